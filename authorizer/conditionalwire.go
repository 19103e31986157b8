package authorizer

import (
	"errors"
	"fmt"

	sarv1 "github.com/gatehouse-dev/gatehouse/internal/sarv1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// This file converts conditional decisions to and from their wire shape
// (authorization.k8s.io/v1's ConditionsAwareDecision, k8s.io/api v0.38),
// and validates an answer's conditionalDecision as kube-apiserver 1.38 does
// (pkg/apis/authorization/validation and the declarative validation k8s.io/api
// generates), with its texts.

// decisionFromWire is the decision kube-apiserver builds from a webhook's
// conditionalDecision (ToAuthorizerConditionsAwareDecision): the
// constructors fold as always; a type it does not know is failClosed's.
func decisionFromWire(d *sarv1.ConditionsAwareDecision, failClosed func(error) ConditionalDecision) ConditionalDecision {
	switch d.Type {
	case sarv1.ConditionsAwareDecisionTypeAllow:
		return ConditionalDecision{kind: kindAllow, reason: wireReason(d.Allow), err: wireError(d.Allow)}
	case sarv1.ConditionsAwareDecisionTypeDeny:
		return ConditionalDecision{kind: kindDeny, reason: wireReason(d.Deny), err: wireError(d.Deny)}
	case sarv1.ConditionsAwareDecisionTypeNoOpinion:
		return ConditionalDecision{kind: kindNoOpinion, reason: wireReason(d.NoOpinion), err: wireError(d.NoOpinion)}
	case sarv1.ConditionsAwareDecisionTypeConditionsMap:
		if m := d.ConditionsMap; m != nil {
			return ConditionsMapDecision(conditionsFromWire(m.DenyConditions), conditionsFromWire(m.NoOpinionConditions), conditionsFromWire(m.AllowConditions))
		}
		return ConditionsMapDecision(nil, nil, nil)
	case sarv1.ConditionsAwareDecisionTypeUnion:
		u := unionBuilder{checkNames: true}
		for i := range d.Union {
			u.add(d.Union[i].AuthorizerName, decisionFromWire(&d.Union[i].Decision, failClosed))
		}
		return u.decision()
	}
	return failClosed(fmt.Errorf("unrecognized ConditionsAwareDecision.type=%q", string(d.Type)))
}

func wireReason(u *sarv1.UnconditionalDecision) string {
	if u == nil {
		return ""
	}
	return u.Reason
}

func wireError(u *sarv1.UnconditionalDecision) error {
	if u == nil || u.EvaluationError == "" {
		return nil
	}
	return errors.New(u.EvaluationError)
}

func conditionsFromWire(in []sarv1.Condition) []Condition {
	if len(in) == 0 {
		return nil
	}
	out := make([]Condition, len(in))
	for i, c := range in {
		out[i] = Condition{ID: c.ID, Condition: c.Condition, Type: c.Type, Description: c.Description}
	}
	return out
}

// decisionToWire is kube-apiserver's FromAuthorizerConditionsAwareDecision:
// how a decision is sent for evaluation.
func decisionToWire(d ConditionalDecision) sarv1.ConditionsAwareDecision {
	var errText string
	if d.err != nil {
		errText = d.err.Error()
	}
	switch d.kind {
	case kindAllow:
		return sarv1.ConditionsAwareDecision{Type: sarv1.ConditionsAwareDecisionTypeAllow, Allow: &sarv1.UnconditionalDecision{Reason: d.reason, EvaluationError: errText}}
	case kindNoOpinion:
		return sarv1.ConditionsAwareDecision{Type: sarv1.ConditionsAwareDecisionTypeNoOpinion, NoOpinion: &sarv1.UnconditionalDecision{Reason: d.reason, EvaluationError: errText}}
	case kindConditionsMap:
		return sarv1.ConditionsAwareDecision{Type: sarv1.ConditionsAwareDecisionTypeConditionsMap, ConditionsMap: &sarv1.ConditionsMap{
			DenyConditions:      conditionsToWire(d.deny),
			NoOpinionConditions: conditionsToWire(d.noOpinion),
			AllowConditions:     conditionsToWire(d.allow),
		}}
	case kindUnion:
		members := make([]sarv1.NamedConditionsAwareDecision, len(d.members))
		for i, m := range d.members {
			members[i] = sarv1.NamedConditionsAwareDecision{AuthorizerName: m.Name, Decision: decisionToWire(m.Decision)}
		}
		return sarv1.ConditionsAwareDecision{Type: sarv1.ConditionsAwareDecisionTypeUnion, Union: members}
	}
	return sarv1.ConditionsAwareDecision{Type: sarv1.ConditionsAwareDecisionTypeDeny, Deny: &sarv1.UnconditionalDecision{Reason: d.reason, EvaluationError: errText}}
}

func conditionsToWire(in []Condition) []sarv1.Condition {
	out := make([]sarv1.Condition, len(in))
	for i, c := range in {
		out[i] = sarv1.Condition{ID: c.ID, Condition: c.Condition, Type: c.Type, Description: c.Description}
	}
	return out
}

// decisionTypes are the types of ConditionsAwareDecision, in
// kube-apiserver's sorted order (its "supported values").
var decisionTypes = []sarv1.ConditionsAwareDecisionType{
	sarv1.ConditionsAwareDecisionTypeAllow,
	sarv1.ConditionsAwareDecisionTypeConditionsMap,
	sarv1.ConditionsAwareDecisionTypeDeny,
	sarv1.ConditionsAwareDecisionTypeNoOpinion,
	sarv1.ConditionsAwareDecisionTypeUnion,
}

// validateWireDecision is k8s.io/api v0.38's declarative validation of a
// ConditionsAwareDecision (Validate_ConditionsAwareDecision), for a create:
// the type discriminates which member is set, is required and one of the
// five; conditions are at most 128 per effect, their IDs unique and
// domain-prefixed label keys, their types such keys when set, conditions
// at most 10240 bytes and descriptions 1024; union members' names unique,
// required and DNS-1123 subdomains, their decisions valid in turn.
func validateWireDecision(p *field.Path, d *sarv1.ConditionsAwareDecision) field.ErrorList {
	var errs field.ErrorList
	for _, m := range [...]struct {
		name string
		typ  sarv1.ConditionsAwareDecisionType
		set  bool
	}{
		{"deny", sarv1.ConditionsAwareDecisionTypeDeny, d.Deny != nil},
		{"noOpinion", sarv1.ConditionsAwareDecisionTypeNoOpinion, d.NoOpinion != nil},
		{"allow", sarv1.ConditionsAwareDecisionTypeAllow, d.Allow != nil},
		{"conditionsMap", sarv1.ConditionsAwareDecisionTypeConditionsMap, d.ConditionsMap != nil},
		{"union", sarv1.ConditionsAwareDecisionTypeUnion, len(d.Union) != 0},
	} {
		selected := d.Type == m.typ
		switch {
		case m.set && !selected:
			errs = append(errs, field.Invalid(p.Child(m.name), "", fmt.Sprintf("may only be specified when `type` is %q", string(m.typ))))
		case !m.set && selected:
			errs = append(errs, field.Invalid(p.Child(m.name), "", fmt.Sprintf("must be specified when `type` is %q", string(d.Type))))
		}
	}
	switch {
	case d.Type == "":
		errs = append(errs, field.Required(p.Child("type"), ""))
	default:
		known := false
		for _, t := range decisionTypes {
			known = known || t == d.Type
		}
		if !known {
			errs = append(errs, field.NotSupported(p.Child("type"), d.Type, decisionTypes))
		}
	}
	if m := d.ConditionsMap; m != nil {
		mp := p.Child("conditionsMap")
		errs = append(errs, validateWireConditions(mp.Child("denyConditions"), m.DenyConditions)...)
		errs = append(errs, validateWireConditions(mp.Child("noOpinionConditions"), m.NoOpinionConditions)...)
		errs = append(errs, validateWireConditions(mp.Child("allowConditions"), m.AllowConditions)...)
	}
	if len(d.Union) > 0 {
		up := p.Child("union")
		errs = append(errs, duplicates(up, d.Union, func(a, b *sarv1.NamedConditionsAwareDecision) bool { return a.AuthorizerName == b.AuthorizerName })...)
		for i := range d.Union {
			ip := up.Index(i)
			name := d.Union[i].AuthorizerName
			if name == "" {
				errs = append(errs, field.Required(ip.Child("authorizerName"), ""))
			} else {
				for _, msg := range content.IsDNS1123Subdomain(name) {
					errs = append(errs, field.Invalid(ip.Child("authorizerName"), name, msg))
				}
			}
			errs = append(errs, validateWireDecision(ip.Child("decision"), &d.Union[i].Decision)...)
		}
	}
	return errs
}

func validateWireConditions(p *field.Path, conditions []sarv1.Condition) field.ErrorList {
	if len(conditions) > maxConditionsPerMap {
		return field.ErrorList{field.TooMany(p, len(conditions), maxConditionsPerMap)}
	}
	errs := duplicates(p, conditions, func(a, b *sarv1.Condition) bool { return a.ID == b.ID })
	for i, c := range conditions {
		ip := p.Index(i)
		if c.ID == "" {
			errs = append(errs, field.Required(ip.Child("id"), ""))
		} else {
			for _, msg := range content.IsPrefixedLabelKey(c.ID) {
				errs = append(errs, field.Invalid(ip.Child("id"), c.ID, msg))
			}
		}
		if len(c.Condition) > maxConditionBytes {
			errs = append(errs, field.TooLong(ip.Child("condition"), c.Condition, maxConditionBytes))
		}
		if c.Type != "" {
			for _, msg := range content.IsPrefixedLabelKey(c.Type) {
				errs = append(errs, field.Invalid(ip.Child("type"), c.Type, msg))
			}
		}
		if len(c.Description) > maxConditionDescriptionBytes {
			errs = append(errs, field.TooLong(ip.Child("description"), c.Description, maxConditionDescriptionBytes))
		}
	}
	return errs
}

// duplicates is the declarative ValSliceUnique: each item equal to an
// earlier one is a Duplicate, in index order, with the item as its value.
func duplicates[T any](p *field.Path, items []T, same func(a, b *T) bool) field.ErrorList {
	var errs field.ErrorList
	for j := range items {
		for i := 0; i < j; i++ {
			if same(&items[i], &items[j]) {
				errs = append(errs, field.Duplicate(p.Index(j), items[j]))
				break
			}
		}
	}
	return errs
}

// validateConditionalStatus is kube-apiserver 1.38's validation of a
// SubjectAccessReview answer asked conditionally
// (CombinedValidateSubjectAccessReviewCreate on the request with the
// answer's status, gate on): the spec's user or groups, the status's
// handwritten rules, then the declarative rules of its conditionalDecision.
// conditionsAware is whether the request offered conditional decisions.
func validateConditionalStatus(a *Attributes, st *conditionalStatus, conditionsAware bool) field.ErrorList {
	var errs field.ErrorList
	if u := a.User; u == nil || (u.Name == "" && len(u.Groups) == 0) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "user"), "", "at least one of user or group must be specified"))
	}
	sp := field.NewPath("status")
	// An answer that allows and denies never gets here (an error before
	// validation), so kube-apiserver's rule against it is left out.
	if cd := st.decision; cd != nil {
		if !conditionsAware {
			errs = append(errs, field.Forbidden(sp.Child("conditionalDecision"), "can only be set when the client opted into conditions-awareness"))
		}
		switch cd.Type {
		case sarv1.ConditionsAwareDecisionTypeDeny, sarv1.ConditionsAwareDecisionTypeAllow, sarv1.ConditionsAwareDecisionTypeNoOpinion:
			errs = append(errs, field.Invalid(sp.Child("conditionalDecision", "type"), cd.Type,
				"cannot be one of [Allow, Deny, NoOpinion], these decisions must be expressed using status.allowed and status.denied"))
		case sarv1.ConditionsAwareDecisionTypeConditionsMap, sarv1.ConditionsAwareDecisionTypeUnion:
			for _, f := range [...]struct {
				name, must string
				bad        bool
			}{
				{"allowed", "false", st.allowed},
				{"denied", "false", st.denied},
				{"evaluationError", "empty", st.evaluationError != ""},
				{"reason", "empty", st.reason != ""},
			} {
				if f.bad {
					errs = append(errs, field.Forbidden(sp.Child(f.name), fmt.Sprintf("must be %s when status.conditionalDecision.type=%s", f.must, string(cd.Type))))
				}
			}
		}
		errs = append(errs, validateWireDecision(sp.Child("conditionalDecision"), cd)...)
	}
	return errs
}
