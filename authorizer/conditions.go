package authorizer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// This file is conditional authorization's decision model (KEP-5681,
// kube-apiserver 1.38's ConditionsAwareDecision, gate
// ConditionalAuthorization): the five kinds of decision, what they can
// evaluate to, and how kube-apiserver's constructors fold them.

// ConditionalDecision is kube-apiserver 1.38's ConditionsAwareDecision: an
// unconditional Allow, Deny or NoOpinion (with a reason and an error), a
// ConditionsMap (conditions to evaluate later, against the admission data,
// each with the effect Deny, NoOpinion or Allow), or a Union (the ordered
// decisions of a chain's authorizers, each named, forming a tree).
//
// The zero value is an unconditional Deny with no reason and no error. A
// ConditionalDecision is immutable and passed by value. Build one with
// UnconditionalDecision, ConditionalAllow, ConditionsMapDecision or
// ConditionalUnion, which fold as kube-apiserver's constructors do (an
// invalid map or union fails closed to an unconditional decision with an
// error; one that can have a single outcome is that outcome).
type ConditionalDecision struct {
	kind conditionalKind

	// A ConditionsMap's conditions, by effect (at least one Deny or Allow).
	deny, noOpinion, allow []Condition

	// A Union's members, and what they can evaluate to: decisive when a
	// member's tree has an unconditional Allow or Deny leaf (the last
	// member, then), sub the union of their possible outcomes.
	members  []ConditionalMember
	decisive bool
	sub      outcomes

	// An unconditional decision's reason and error.
	reason string
	err    error
}

type conditionalKind uint8

const (
	kindDeny conditionalKind = iota // the zero value denies
	kindAllow
	kindNoOpinion
	kindConditionsMap
	kindUnion
)

// Condition is one condition of a ConditionsMap decision, as an authorizer
// states it. The effect (Deny, NoOpinion or Allow) is the list it is in.
type Condition struct {
	// ID identifies the condition in its map: a domain-prefixed label key
	// (example.com/name), unique in the map.
	ID string
	// Type tells the evaluator what Condition is (optional; a
	// domain-prefixed label key when set).
	Type string
	// Condition is the condition itself, opaque here (at most 10240 bytes).
	Condition string
	// Description is for people (optional, at most 1024 bytes); it is
	// quoted in the reason of the decision the condition makes.
	Description string
}

// ConditionalMember is a named member of a Union decision: in a chain, an
// authorizer's name and its decision.
type ConditionalMember struct {
	Name     string
	Decision ConditionalDecision
}

// kube-apiserver's limits on a ConditionsMap (maxConditionsPerMap,
// maxConditionBytes and maxConditionDescriptionBytes, conditional.go).

// UnconditionalDecision is the unconditional decision d with its reason and
// error (kube-apiserver's ConditionsAwareDecisionFromParts): how a
// conditions-unaware authorizer's answer reads. A decision other than
// Allow, Deny and NoOpinion is Deny, with the error
// "unknown unconditional decision type: N" added to err.
func UnconditionalDecision(d Decision, reason string, err error) ConditionalDecision {
	switch d {
	case DecisionAllow:
		return ConditionalDecision{kind: kindAllow, reason: reason, err: err}
	case DecisionNoOpinion:
		return ConditionalDecision{kind: kindNoOpinion, reason: reason, err: err}
	case DecisionDeny:
		return ConditionalDecision{kind: kindDeny, reason: reason, err: err}
	}
	return ConditionalDecision{kind: kindDeny, reason: reason, err: utilerrors.NewAggregate([]error{
		err, fmt.Errorf("unknown unconditional decision type: %d", int(d)),
	})}
}

// ConditionalAllow is an unconditional Allow with reason, as a request
// allowed before admission carries it (kube-apiserver's authorization
// filter attaches ConditionsAwareDecisionAllow(reason, nil)).
func ConditionalAllow(reason string) ConditionalDecision {
	return ConditionalDecision{kind: kindAllow, reason: reason}
}

// ConditionsMapDecision is a ConditionsMap decision with these conditions,
// by effect, as kube-apiserver 1.38's ConditionsAwareDecisionConditionsMap
// builds it. It folds:
//   - no condition: NoOpinion, reason "no conditions", and an error;
//   - more than 128 conditions, or an invalid one (ID not a unique
//     domain-prefixed label key, Type set and not one, Condition over
//     10240 bytes, Description over 1024): reason "failed closed" and the
//     error, Deny if there are Deny conditions, NoOpinion otherwise;
//   - NoOpinion conditions only: NoOpinion, reason "only NoOpinion
//     conditions always evaluate to NoOpinion".
//
// The slices are copied.
func ConditionsMapDecision(deny, noOpinion, allow []Condition) ConditionalDecision {
	failClosed := func(err error) ConditionalDecision {
		if len(deny) > 0 {
			return ConditionalDecision{kind: kindDeny, reason: "failed closed", err: err}
		}
		return ConditionalDecision{kind: kindNoOpinion, reason: "failed closed", err: err}
	}
	total := len(deny) + len(noOpinion) + len(allow)
	switch {
	case total == 0:
		return ConditionalDecision{kind: kindNoOpinion, reason: "no conditions",
			err: errors.New("at least one condition must be passed to ConditionsAwareDecisionConditionsMap(), got none")}
	case total > maxConditionsPerMap:
		return failClosed(fmt.Errorf("too many conditions: %d exceeds maximum of %d", total, maxConditionsPerMap))
	case len(deny) == 0 && len(allow) == 0:
		return ConditionalDecision{kind: kindNoOpinion, reason: "only NoOpinion conditions always evaluate to NoOpinion"}
	}
	seen := make(map[string]struct{}, total)
	for _, list := range [...][]Condition{deny, noOpinion, allow} {
		if err := checkConditions(seen, list); err != nil {
			return failClosed(err)
		}
	}
	return ConditionalDecision{
		kind:      kindConditionsMap,
		deny:      cloneConditions(deny),
		noOpinion: cloneConditions(noOpinion),
		allow:     cloneConditions(allow),
	}
}

func cloneConditions(c []Condition) []Condition {
	if len(c) == 0 {
		return nil
	}
	return append([]Condition(nil), c...)
}

// checkConditions is kube-apiserver 1.38's validation of a map's
// conditions, with its error texts.
func checkConditions(seen map[string]struct{}, conditions []Condition) error {
	for _, c := range conditions {
		if _, dup := seen[c.ID]; dup {
			return fmt.Errorf("duplicate condition ID %q", c.ID)
		}
		seen[c.ID] = struct{}{}
		if errs := utilvalidation.IsDomainPrefixedKey(field.NewPath("id"), c.ID); len(errs) > 0 {
			return fmt.Errorf("invalid condition: %w", errs.ToAggregate())
		}
		if n := len(c.Condition); n > maxConditionBytes {
			return fmt.Errorf("condition %q length %d is larger than the maximum allowed %d bytes", c.ID, n, maxConditionBytes)
		}
		if c.Type != "" {
			if errs := utilvalidation.IsDomainPrefixedKey(field.NewPath("type"), c.Type); len(errs) > 0 {
				return fmt.Errorf("invalid condition: %w", errs.ToAggregate())
			}
		}
		if n := len(c.Description); n > maxConditionDescriptionBytes {
			return fmt.Errorf("condition %q description length %d is larger than the maximum allowed %d bytes", c.ID, n, maxConditionDescriptionBytes)
		}
	}
	return nil
}

// ConditionalUnion is the Union of these members, in order, as kube-apiserver
// 1.38's ConditionsAwareDecisionUnion builds it (a chain's
// AuthorizeConditionally builds one the same way):
//   - members after the first whose tree has an unconditional Allow or
//     Deny leaf are dropped (they can never decide);
//   - a member name that is empty, repeated or not a DNS-1123 subdomain
//     fails the union closed: reason "failed closed", the errors
//     aggregated, Deny if the union could deny, NoOpinion otherwise;
//   - a union with a single possible outcome is that unconditional
//     decision, with the reasons of its members that are that decision,
//     each "name: {reason}" (nested names joined by ": "), joined by ", ",
//     and their errors, each prefixed "name: ", aggregated.
func ConditionalUnion(members ...ConditionalMember) ConditionalDecision {
	u := unionBuilder{checkNames: true}
	for _, m := range members {
		u.add(m.Name, m.Decision)
	}
	return u.decision()
}

// Unconditional returns the decision when d is an unconditional Allow,
// Deny or NoOpinion, and false when d is a ConditionsMap or a Union.
func (d ConditionalDecision) Unconditional() (Decision, bool) {
	switch d.kind {
	case kindAllow:
		return DecisionAllow, true
	case kindNoOpinion:
		return DecisionNoOpinion, true
	case kindDeny:
		return DecisionDeny, true
	}
	return DecisionDeny, false
}

// IsUnion tells whether d is a Union decision (a ConditionsMap if it is
// neither unconditional nor a Union).
func (d ConditionalDecision) IsUnion() bool { return d.kind == kindUnion }

// Members returns a Union decision's members, in order (nil for the other
// kinds).
func (d ConditionalDecision) Members() []ConditionalMember {
	return append([]ConditionalMember(nil), d.members...)
}

// Conditions returns a ConditionsMap decision's conditions by effect, in
// the order given (nil for the other kinds).
func (d ConditionalDecision) Conditions() (deny, noOpinion, allow []Condition) {
	return cloneConditions(d.deny), cloneConditions(d.noOpinion), cloneConditions(d.allow)
}

// possible is the set of decisions d can evaluate to.
func (d ConditionalDecision) possible() outcomes {
	switch d.kind {
	case kindAllow:
		return mayAllow
	case kindNoOpinion:
		return mayNoOpinion
	case kindConditionsMap:
		o := mayNoOpinion
		if len(d.allow) > 0 {
			o |= mayAllow
		}
		if len(d.deny) > 0 {
			o |= mayDeny
		}
		return o
	case kindUnion:
		return unionPossible(d.sub, d.decisive)
	}
	return mayDeny
}

func unionPossible(sub outcomes, decisive bool) outcomes {
	o := sub | mayNoOpinion
	if decisive {
		o &^= mayNoOpinion
	}
	return o
}

// has tells whether o holds decision x.
func (o outcomes) has(x Decision) bool {
	switch x {
	case DecisionAllow:
		return o&mayAllow != 0
	case DecisionDeny:
		return o&mayDeny != 0
	case DecisionNoOpinion:
		return o&mayNoOpinion != 0
	}
	return false
}

// list is o in kube-apiserver's sets.List order (by value: Deny, Allow,
// NoOpinion).
func (o outcomes) list() []Decision {
	out := make([]Decision, 0, 3)
	for _, x := range [...]Decision{DecisionDeny, DecisionAllow, DecisionNoOpinion} {
		if o.has(x) {
			out = append(out, x)
		}
	}
	return out
}

// String is the set as kube-apiserver prints sets.List of decisions with
// %v: "[Deny NoOpinion]".
func (o outcomes) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range o.list() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.String())
	}
	b.WriteByte(']')
	return b.String()
}

// PossibleDecisions returns what d can evaluate to, never empty, in
// kube-apiserver's order (Deny, Allow, NoOpinion); a single one when d is
// unconditional.
func (d ConditionalDecision) PossibleDecisions() []Decision { return d.possible().list() }

// FailureDecision is the decision to fail closed with when d cannot be
// evaluated: Deny if d is or could evaluate to Deny, NoOpinion otherwise.
func (d ConditionalDecision) FailureDecision() Decision {
	if d.possible()&mayDeny != 0 {
		return DecisionDeny
	}
	return DecisionNoOpinion
}

// Reason is an unconditional decision's reason ("" for a ConditionsMap or
// a Union).
func (d ConditionalDecision) Reason() string { return d.reason }

// Err is an unconditional decision's error (nil for a ConditionsMap or a
// Union).
func (d ConditionalDecision) Err() error { return d.err }

// decisive tells whether d's tree has an unconditional Allow or Deny leaf.
func (d ConditionalDecision) hasDecisiveLeaf() bool {
	switch d.kind {
	case kindAllow, kindDeny:
		return true
	case kindUnion:
		return d.decisive
	}
	return false
}

// Outcome is d as an unconditional answer: its decision, reason and error
// when d is unconditional; for a ConditionsMap or a Union, its failure
// decision, reason "failed closed" and an error, as kube-apiserver's
// UnconditionalPartsOrError.
func (d ConditionalDecision) Outcome() (Decision, string, error) {
	if x, ok := d.Unconditional(); ok {
		return x, d.reason, d.err
	}
	return d.FailureDecision(), "failed closed", errors.New("tried to return an unexpected conditional decision during unconditional authorization")
}

// String is kube-apiserver's String of the decision, byte for byte:
// Allow(reason="...", err="..."), NoOpinion, Deny (the parameters only when
// set), ConditionsMap(denies=1, noopinions=2, allows=3) (counts only when
// not zero), Union[name: decision, ...].
func (d ConditionalDecision) String() string {
	var b strings.Builder
	d.writeString(&b)
	return b.String()
}

func (d ConditionalDecision) writeString(b *strings.Builder) {
	var name string
	params := make([]string, 0, 3)
	switch d.kind {
	case kindUnion:
		b.WriteString("Union[")
		for i, m := range d.members {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m.Name)
			b.WriteString(": ")
			m.Decision.writeString(b)
		}
		b.WriteByte(']')
		return
	case kindAllow:
		name = "Allow"
	case kindNoOpinion:
		name = "NoOpinion"
	case kindConditionsMap:
		name = "ConditionsMap"
	default:
		name = "Deny"
	}
	if d.reason != "" {
		params = append(params, "reason="+strconv.Quote(d.reason))
	}
	if d.err != nil {
		params = append(params, "err="+strconv.Quote(d.err.Error()))
	}
	if d.kind == kindConditionsMap {
		for _, c := range [...]struct {
			label string
			n     int
		}{{"denies", len(d.deny)}, {"noopinions", len(d.noOpinion)}, {"allows", len(d.allow)}} {
			if c.n != 0 {
				params = append(params, c.label+"="+strconv.Itoa(c.n))
			}
		}
	}
	b.WriteString(name)
	if len(params) > 0 {
		b.WriteByte('(')
		b.WriteString(strings.Join(params, ", "))
		b.WriteByte(')')
	}
}

// unionBuilder builds a Union decision as kube-apiserver's
// ConditionsAwareDecisionUnion does. checkNames is 1.38's: names must be
// DNS-1123 subdomains, and the errors say "authorizerName" (1.37 says
// "conditionalAuthorizerName" and checks only empty and repeated names).
type unionBuilder struct {
	checkNames bool
	members    []ConditionalMember
	errs       []error
	decisive   bool
	sub        outcomes
}

func (u *unionBuilder) add(name string, d ConditionalDecision) {
	if u.decisive {
		return // nothing after an unconditional Allow or Deny can decide
	}
	label := "conditionalAuthorizerName"
	if u.checkNames {
		label = "authorizerName"
	}
	if name == "" {
		u.errs = append(u.errs, fmt.Errorf("%s must be non-empty", label))
	}
	for _, m := range u.members {
		if m.Name == name {
			u.errs = append(u.errs, fmt.Errorf("duplicate %s %q", label, name))
			break
		}
	}
	if u.checkNames {
		if errs := utilvalidation.IsDNS1123Subdomain(name); len(errs) > 0 {
			u.errs = append(u.errs, fmt.Errorf("invalid authorizerName: %v", errs))
		}
	}
	if d.hasDecisiveLeaf() {
		u.decisive = true
	}
	u.members = append(u.members, ConditionalMember{Name: name, Decision: d})
	u.sub |= d.possible()
}

func (u *unionBuilder) decision() ConditionalDecision {
	possible := unionPossible(u.sub, u.decisive)
	if len(u.errs) > 0 {
		failure := DecisionNoOpinion
		if possible&mayDeny != 0 {
			failure = DecisionDeny
		}
		return UnconditionalDecision(failure, "failed closed", utilerrors.NewAggregate(u.errs))
	}
	var only Decision
	switch possible {
	case mayAllow:
		only = DecisionAllow
	case mayDeny:
		only = DecisionDeny
	case mayNoOpinion:
		only = DecisionNoOpinion
	default:
		return ConditionalDecision{
			kind:     kindUnion,
			members:  append([]ConditionalMember(nil), u.members...),
			decisive: u.decisive,
			sub:      u.sub,
		}
	}
	var (
		reasons []string
		errs    []error
	)
	for _, m := range u.members {
		reasons, errs = collectParts([]string{m.Name}, m.Decision, only, reasons, errs)
	}
	return UnconditionalDecision(only, strings.Join(reasons, ", "), utilerrors.NewAggregate(errs))
}

// collectParts gathers the reasons and errors of the leaves of d that are
// the unconditional decision want, each prefixed by its path of names.
func collectParts(path []string, d ConditionalDecision, want Decision, reasons []string, errs []error) ([]string, []error) {
	if x, ok := d.Unconditional(); ok {
		if x != want {
			return reasons, errs
		}
		prefix := strings.Join(path, ": ")
		if d.reason != "" {
			reasons = append(reasons, prefix+": {"+d.reason+"}")
		}
		if d.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", prefix, d.err))
		}
		return reasons, errs
	}
	for _, m := range d.members {
		reasons, errs = collectParts(append(path[:len(path):len(path)], m.Name), m.Decision, want, reasons, errs)
	}
	return reasons, errs
}

// ConditionResult is what one condition evaluated to: true, false, an
// error, or unevaluatable (the evaluator cannot say; the zero value).
type ConditionResult struct {
	kind conditionResultKind
	err  error
}

type conditionResultKind uint8

const (
	condUnevaluatable conditionResultKind = iota
	condTrue
	condFalse
	condError
)

// ConditionBool is a condition that evaluated to b.
func ConditionBool(b bool) ConditionResult {
	if b {
		return ConditionResult{kind: condTrue}
	}
	return ConditionResult{kind: condFalse}
}

// ConditionError is a condition whose evaluation failed with err (nil
// reads "unspecified evaluation error").
func ConditionError(err error) ConditionResult {
	if err == nil {
		err = errors.New("unspecified evaluation error")
	}
	return ConditionResult{kind: condError, err: err}
}

// ConditionUnevaluatable is a condition the evaluator cannot evaluate.
func ConditionUnevaluatable() ConditionResult { return ConditionResult{} }

// EvaluateConditionFunc evaluates one condition of a ConditionsMap.
type EvaluateConditionFunc func(ctx context.Context, c Condition) ConditionResult

// PartiallyEvaluate evaluates d's ConditionsMaps with eval, as
// kube-apiserver's PartiallyEvaluateConditionsAwareDecision: what eval can
// evaluate is replaced by its outcome, what it cannot stays conditional.
//
// A ConditionsMap: Deny conditions first, then NoOpinion, then Allow; in
// each effect, the first true condition decides (reason `condition "id"
// denied the request` / `evaluated to NoOpinion` / `allowed the request`,
// plus ` with description "..."` when it has one, no error), else errors
// decide (Deny for Deny conditions, NoOpinion for the others, reason "one
// or more conditional evaluation errors occurred", each error `condition
// "id" with effect=Deny evaluated to an error: ...`), else the
// unevaluatable conditions of this effect and the later ones stay a
// ConditionsMap; all false is NoOpinion, reason "no conditions matched".
//
// A Union is walked in order until a member has an unconditional Allow or
// Deny leaf; after the first member that stays conditional, the rest stay
// unevaluated. An unconditional decision is returned as is.
func (d ConditionalDecision) PartiallyEvaluate(ctx context.Context, eval EvaluateConditionFunc) ConditionalDecision {
	switch d.kind {
	case kindConditionsMap:
		return d.evaluateMap(ctx, eval)
	case kindUnion:
		u := unionBuilder{checkNames: true}
		tail := false
		for _, m := range d.members {
			if tail {
				u.add(m.Name, m.Decision)
				continue
			}
			e := m.Decision.PartiallyEvaluate(ctx, eval)
			u.add(m.Name, e)
			if e.hasDecisiveLeaf() {
				return u.decision()
			}
			if _, ok := e.Unconditional(); !ok {
				tail = true
			}
		}
		return u.decision()
	}
	return d
}

func (d ConditionalDecision) evaluateMap(ctx context.Context, eval EvaluateConditionFunc) ConditionalDecision {
	effects := [...]struct {
		conditions []Condition
		name       string
		applied    string
		decides    conditionalKind // when a condition is true
		errs       conditionalKind // when none is and some failed
	}{
		{d.deny, "Deny", "denied the request", kindDeny, kindDeny},
		{d.noOpinion, "NoOpinion", "evaluated to NoOpinion", kindNoOpinion, kindNoOpinion},
		{d.allow, "Allow", "allowed the request", kindAllow, kindNoOpinion},
	}
	for i, e := range effects {
		if len(e.conditions) == 0 {
			continue
		}
		applied, errs, pending := evaluateEffect(ctx, eval, e.conditions, e.name, e.applied)
		switch {
		case applied != "":
			return ConditionalDecision{kind: e.decides, reason: applied}
		case len(errs) > 0:
			return ConditionalDecision{kind: e.errs, reason: "one or more conditional evaluation errors occurred", err: utilerrors.NewAggregate(errs)}
		case len(pending) > 0:
			// The unevaluated conditions of this effect, and those of the
			// effects after it; the effects before evaluated to false.
			var lists [3][]Condition
			lists[i] = pending
			for k := i + 1; k < len(effects); k++ {
				lists[k] = effects[k].conditions
			}
			return ConditionsMapDecision(lists[0], lists[1], lists[2])
		}
	}
	return ConditionalDecision{kind: kindNoOpinion, reason: "no conditions matched"}
}

// evaluateEffect evaluates the conditions of one effect: the reason of the
// first true one, or the errors and the unevaluatable conditions.
func evaluateEffect(ctx context.Context, eval EvaluateConditionFunc, conditions []Condition, effect, applied string) (string, []error, []Condition) {
	var (
		errs    []error
		pending []Condition
	)
	for _, c := range conditions {
		var r ConditionResult
		if eval != nil {
			r = eval(ctx, c)
		}
		switch r.kind {
		case condTrue:
			reason := "condition " + strconv.Quote(c.ID) + " " + applied
			if c.Description != "" {
				reason += " with description " + strconv.Quote(c.Description)
			}
			return reason, nil, nil
		case condFalse:
		case condError:
			errs = append(errs, fmt.Errorf("condition %q with effect=%s evaluated to an error: %w", c.ID, effect, r.err))
		default:
			pending = append(pending, c)
		}
	}
	return "", errs, pending
}
