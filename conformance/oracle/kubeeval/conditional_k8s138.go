//go:build k8s138

package kubeeval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/union"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// conditional answers OpConditional with kube-apiserver 1.38's union
// authorizer: ConditionsAwareAuthorize over the scripted chain, then
// EvaluateConditions on its decision, each scripted authorizer evaluating
// its part with PartiallyEvaluateConditionsAwareDecision and the scripted
// condition results, then UnconditionalPartsOrError.
func conditional(q protocol.Query) protocol.Answer {
	u, err := scriptedUnion(q)
	if err != nil {
		return protocol.Answer{NewError: err.Error()}
	}
	ctx := context.Background()
	d := u.ConditionsAwareAuthorize(ctx, authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "x"}})
	a := &protocol.ConditionalAnswer{String: d.String(), Failure: d.FailureDecision().String()}
	for _, p := range sets.List(d.PossibleDecisions()) {
		a.Possible = append(a.Possible, p.String())
	}
	x, reason, err := u.EvaluateConditions(ctx, d, conditionsData{})
	a.Decision, a.Reason = x.String(), reason
	if err != nil {
		a.Error, a.HasError = err.Error(), true
	}
	return protocol.Answer{Conditional: a}
}

// scriptedUnion is the union of q's scripted conditional authorizers, each
// evaluating conditions as q.ConditionResults says.
func scriptedUnion(q protocol.Query) (authorizer.Authorizer, error) {
	eval := scriptedEvaluator(q.ConditionResults)
	var chain []union.NamedAuthorizer
	for _, s := range q.Conditional {
		chain = append(chain, union.NamedAuthorizer{AuthorizerName: s.Name, Authorizer: scriptedConditional{d: scriptedDecision(s.Decision), eval: eval}})
	}
	return union.New(chain...)
}

// scriptedEvaluator evaluates a condition to what results say of its ID:
// "true", "false", "error" (an error without a text), "error:<text>",
// anything else unevaluatable.
func scriptedEvaluator(results map[string]string) authorizer.MaybeEvaluateConditionFunc {
	return func(_ context.Context, c authorizer.Condition, _ authorizer.ConditionsData) authorizer.ConditionEvaluationResult {
		switch r := results[c.GetID()]; {
		case r == "true":
			return authorizer.ConditionEvaluationResultBoolean(true)
		case r == "false":
			return authorizer.ConditionEvaluationResultBoolean(false)
		case r == "error":
			return authorizer.ConditionEvaluationResultError(nil)
		case strings.HasPrefix(r, "error:"):
			return authorizer.ConditionEvaluationResultError(errors.New(strings.TrimPrefix(r, "error:")))
		}
		return authorizer.ConditionsEvaluationResultUnevaluatable()
	}
}

func scriptedDecision(s protocol.ScriptedDecision) authorizer.ConditionsAwareDecision {
	var err error
	if s.Error != "" {
		err = errors.New(s.Error)
	}
	switch s.Type {
	case "Allow":
		return authorizer.ConditionsAwareDecisionAllow(s.Reason, err)
	case "NoOpinion":
		return authorizer.ConditionsAwareDecisionNoOpinion(s.Reason, err)
	case "Deny":
		return authorizer.ConditionsAwareDecisionDeny(s.Reason, err)
	case "ConditionsMap":
		return authorizer.ConditionsAwareDecisionConditionsMap(scriptedConditions(s.DenyConditions), scriptedConditions(s.NoOpinionConditions), scriptedConditions(s.AllowConditions))
	case "Union":
		var b authorizer.ConditionsAwareDecisionUnion
		for _, m := range s.Union {
			b.Add(m.Name, scriptedDecision(m.Decision))
		}
		return b.ToDecision()
	}
	return authorizer.ConditionsAwareDecisionDeny("", fmt.Errorf("oracle: unknown scripted decision type %q", s.Type))
}

func scriptedConditions(in []protocol.ScriptedCondition) []authorizer.Condition {
	if len(in) == 0 {
		return nil
	}
	out := make([]authorizer.Condition, len(in))
	for i, c := range in {
		out[i] = authorizer.GenericCondition{ID: c.ID, Condition: c.Condition, Type: c.Type, Description: c.Description}
	}
	return out
}

// scriptedConditional answers its decision and evaluates with eval.
type scriptedConditional struct {
	d    authorizer.ConditionsAwareDecision
	eval authorizer.MaybeEvaluateConditionFunc
}

func (s scriptedConditional) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return s.d.UnconditionalPartsOrFailClosed()
}

func (s scriptedConditional) ConditionsAwareAuthorize(context.Context, authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return s.d
}

func (s scriptedConditional) EvaluateConditions(ctx context.Context, d authorizer.ConditionsAwareDecision, data authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.PartiallyEvaluateConditionsAwareDecision(ctx, d, data, s.eval).UnconditionalPartsOrError()
}

// conditionsData is empty admission data: the scripted results do not
// look at it.
type conditionsData struct{}

func (conditionsData) GetName() string                             { return "" }
func (conditionsData) GetNamespace() string                        { return "" }
func (conditionsData) GetResource() schema.GroupVersionResource    { return schema.GroupVersionResource{} }
func (conditionsData) GetSubresource() string                      { return "" }
func (conditionsData) GetOperation() authorizer.AdmissionOperation { return "CREATE" }
func (conditionsData) GetOperationOptions() runtime.Object         { return nil }
func (conditionsData) IsDryRun() bool                              { return false }
func (conditionsData) GetObject() runtime.Object                   { return nil }
func (conditionsData) GetOldObject() runtime.Object                { return nil }
func (conditionsData) GetKind() schema.GroupVersionKind            { return schema.GroupVersionKind{} }
func (conditionsData) GetUserInfo() user.Info                      { return &user.DefaultInfo{Name: "x"} }
