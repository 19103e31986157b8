package authorizer

import (
	"errors"
	"slices"

	sarv1 "github.com/gatehouse-dev/gatehouse/internal/sarv1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// This file is 1.38's reading of an unrequested status.conditionalDecision
// (kubeversions.UnrequestedConditionalDecisionFails). gatehouse's webhooks
// never ask for conditions, so an answer that carries one fails closed, as
// kube-apiserver's plain Authorize does: with the decision's failure
// decision, Deny if the decision is or could evaluate to Deny, NoOpinion
// otherwise, the answer's reason, and errUnrequestedConditional. An
// explicit deny still wins (and both allowed and denied is still that
// error).
//
// The failure decision is that of the decision kube-apiserver builds from
// the answer, which folds some answers: a ConditionsMap that is empty, too
// large, invalid or without Allow and Deny conditions, a union with invalid
// names or a single possible outcome, an unknown type (the failure policy's
// decision). Only what the failure decision depends on is computed here.
//
// The decision is read from JSON and YAML answers (response.go) and from
// protobuf ones (conditionalproto.go).

// errUnrequestedConditional is kube-apiserver's error for an answer with a
// conditional decision the request did not ask for.
var errUnrequestedConditional = errors.New("webhook subject access review returned unrequested conditional decision")

// conditionalFailure is what a cached answer keeps of its conditional
// decision: none, or the decision it fails closed with.
type conditionalFailure uint8

const (
	noConditional conditionalFailure = iota
	conditionalFailsNoOpinion
	conditionalFailsDeny
)

func (c conditionalFailure) decision() Decision {
	if c == conditionalFailsDeny {
		return DecisionDeny
	}
	return DecisionNoOpinion
}

// maxConditionsPerMap, maxConditionBytes and maxConditionDescriptionBytes
// are kube-apiserver's limits on a ConditionsMap.
const (
	maxConditionsPerMap          = 128
	maxConditionBytes            = 10240
	maxConditionDescriptionBytes = 1024
)

// outcomes is a set of decisions.
type outcomes uint8

const (
	mayAllow outcomes = 1 << iota
	mayDeny
	mayNoOpinion
)

// decisionShape is what the failure decision of a decision, and of the
// unions it is part of, depends on: its possible outcomes, and whether its
// tree has an unconditional Allow or Deny leaf.
type decisionShape struct {
	possible      outcomes
	unconditional bool
}

var (
	shapeAllow     = decisionShape{possible: mayAllow, unconditional: true}
	shapeDeny      = decisionShape{possible: mayDeny, unconditional: true}
	shapeNoOpinion = decisionShape{possible: mayNoOpinion}
)

// failClosedShape is the unconditional decision a decision folds to when it
// fails closed: Deny if it could deny, else NoOpinion.
func failClosedShape(couldDeny bool) decisionShape {
	if couldDeny {
		return shapeDeny
	}
	return shapeNoOpinion
}

// unrequestedFailure is the failure decision of an answer's conditional
// decision; onError is the webhook's failure policy decision.
func unrequestedFailure(d *sarv1.ConditionsAwareDecision, onError Decision) conditionalFailure {
	if shapeOf(d, onError).possible&mayDeny != 0 {
		return conditionalFailsDeny
	}
	return conditionalFailsNoOpinion
}

func shapeOf(d *sarv1.ConditionsAwareDecision, onError Decision) decisionShape {
	switch d.Type {
	case sarv1.ConditionsAwareDecisionTypeAllow:
		return shapeAllow
	case sarv1.ConditionsAwareDecisionTypeDeny:
		return shapeDeny
	case sarv1.ConditionsAwareDecisionTypeNoOpinion:
		return shapeNoOpinion
	case sarv1.ConditionsAwareDecisionTypeConditionsMap:
		return conditionsMapShape(d.ConditionsMap)
	case sarv1.ConditionsAwareDecisionTypeUnion:
		return unionShape(d.Union, onError)
	}
	// An unknown type fails closed with the failure policy's decision.
	return failClosedShape(onError == DecisionDeny)
}

func conditionsMapShape(m *sarv1.ConditionsMap) decisionShape {
	if m == nil {
		return shapeNoOpinion
	}
	deny, noOpinion, allow := len(m.DenyConditions), len(m.NoOpinionConditions), len(m.AllowConditions)
	switch total := deny + noOpinion + allow; {
	case total == 0:
		return shapeNoOpinion
	case total > maxConditionsPerMap:
		return failClosedShape(deny > 0)
	case deny == 0 && allow == 0:
		// Only NoOpinion conditions: NoOpinion whatever they evaluate to.
		return shapeNoOpinion
	}
	seen := make(map[string]bool, deny+noOpinion+allow)
	for _, list := range [][]sarv1.Condition{m.DenyConditions, m.NoOpinionConditions, m.AllowConditions} {
		if !validConditions(seen, list) {
			return failClosedShape(deny > 0)
		}
	}
	s := decisionShape{possible: mayNoOpinion}
	if allow > 0 {
		s.possible |= mayAllow
	}
	if deny > 0 {
		s.possible |= mayDeny
	}
	return s
}

// validConditions checks conditions as kube-apiserver does when it builds
// a ConditionsMap: IDs unique in the map and domain-prefixed label keys,
// types domain-prefixed label keys when set, sizes within the limits.
func validConditions(seen map[string]bool, conditions []sarv1.Condition) bool {
	for _, c := range conditions {
		if seen[c.ID] {
			return false
		}
		seen[c.ID] = true
		if len(utilvalidation.IsDomainPrefixedKey(field.NewPath("id"), c.ID)) > 0 ||
			len(c.Condition) > maxConditionBytes ||
			(c.Type != "" && len(utilvalidation.IsDomainPrefixedKey(field.NewPath("type"), c.Type)) > 0) ||
			len(c.Description) > maxConditionDescriptionBytes {
			return false
		}
	}
	return true
}

// unionShape is the shape of a union as kube-apiserver builds it: members
// after the first whose tree has an unconditional Allow or Deny are
// dropped; a union with an invalid member name fails closed; NoOpinion is
// possible unless a member has an unconditional Allow or Deny; a union with
// one possible outcome folds to that unconditional decision.
func unionShape(members []sarv1.NamedConditionsAwareDecision, onError Decision) decisionShape {
	var (
		sub           outcomes
		unconditional bool
		invalid       bool
		names         []string
	)
	for i := range members {
		if unconditional {
			break
		}
		name := members[i].AuthorizerName
		if name == "" || slices.Contains(names, name) || len(utilvalidation.IsDNS1123Subdomain(name)) > 0 {
			invalid = true
		}
		names = append(names, name)
		s := shapeOf(&members[i].Decision, onError)
		unconditional = unconditional || s.unconditional
		sub |= s.possible
	}
	possible := sub | mayNoOpinion
	if unconditional {
		possible &^= mayNoOpinion
	}
	if invalid {
		return failClosedShape(possible&mayDeny != 0)
	}
	switch possible {
	case mayAllow:
		return shapeAllow
	case mayDeny:
		return shapeDeny
	case mayNoOpinion:
		return shapeNoOpinion
	}
	return decisionShape{possible: possible, unconditional: unconditional}
}

// conditionalReading says how a webhook reads status.conditionalDecision:
// not at all (before 1.38, and in v1beta1, which has no such field), or
// with onError, the failure policy's decision, that a decision of an
// unknown type fails closed with.
type conditionalReading struct {
	on      bool
	onError Decision
}

// failure is the failure decision of an answer's conditional decision, nil
// when the answer has none.
func (r conditionalReading) failure(d *sarv1.ConditionsAwareDecision) conditionalFailure {
	if !r.on || d == nil {
		return noConditional
	}
	return unrequestedFailure(d, r.onError)
}
