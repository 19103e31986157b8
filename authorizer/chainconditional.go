package authorizer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

var _ ConditionsAuthorizer = (*Chain)(nil)

// AuthorizeConditionally asks the authorizers in order for a possibly
// conditional decision, as kube-apiserver's union authorizer's
// ConditionsAwareAuthorize (1.37 and later): each authorizer's decision
// (AsConditionsAuthorizer's for one that is not conditions-aware) is added
// to a Union named by the chain's names, until one whose tree has an
// unconditional Allow or Deny; the Union folds as ConditionalUnion says
// (at 1.37, names are not checked as DNS-1123 subdomains). A chain of
// unconditional answers thus gives an unconditional decision, whose
// NoOpinion reason is "name: {reason}" joined by ", ", not Authorize's.
//
// Before 1.37 kube-apiserver's union has no such method; the chain's
// Authorize is returned as an unconditional decision.
func (c *Chain) AuthorizeConditionally(ctx context.Context, a *Attributes) ConditionalDecision {
	return c.authorizeConditionally(ctx, a, nil)
}

func (c *Chain) authorizeConditionallyTraced(ctx context.Context, a *Attributes, s *Step) ConditionalDecision {
	s.chain = true
	return c.authorizeConditionally(ctx, a, s)
}

func (c *Chain) authorizeConditionally(ctx context.Context, a *Attributes, s *Step) ConditionalDecision {
	if c.conditional == unionLifted {
		return UnconditionalDecision(c.authorize(ctx, a, s))
	}
	u := unionBuilder{checkNames: c.conditional == union138}
	for i := range c.entries {
		e := &c.entries[i]
		var d ConditionalDecision
		if s == nil {
			d = AsConditionsAuthorizer(e.Authorizer).AuthorizeConditionally(ctx, a)
		} else {
			s.Steps = append(s.Steps, Step{Name: e.Name})
			d = conditionalStep(ctx, e.Authorizer, a, &s.Steps[len(s.Steps)-1])
		}
		u.add(e.Name, d)
		if d.hasDecisiveLeaf() {
			break
		}
	}
	return u.decision()
}

// EvaluateConditions evaluates a Union decision the chain returned against
// data, as kube-apiserver's union authorizer: members in order, an
// unconditional Allow or Deny decides with its reason and error, a
// NoOpinion passes on, a ConditionsMap or Union is evaluated by the
// authorizer of that name (which must return one of its possible
// decisions, else the member fails closed with an error); when nobody
// decides, NoOpinion with the reasons "name: reason" joined by newlines and
// the errors aggregated. A decision that is not a Union fails closed.
func (c *Chain) EvaluateConditions(ctx context.Context, d ConditionalDecision, data *ConditionsData) (Decision, string, error) {
	return c.evaluateConditions(ctx, d, data, nil)
}

func (c *Chain) evaluateConditionsTraced(ctx context.Context, d ConditionalDecision, data *ConditionsData, s *Step) (Decision, string, error) {
	s.chain = true
	return c.evaluateConditions(ctx, d, data, s)
}

func (c *Chain) evaluateConditions(ctx context.Context, d ConditionalDecision, data *ConditionsData, s *Step) (Decision, string, error) {
	if !d.IsUnion() {
		return d.FailureDecision(), "failed closed", errors.New("the union authorizer can only evaluate union ConditionsAwareDecisions")
	}
	var (
		errs    []error
		reasons []string
	)
	for _, m := range d.members {
		var (
			x      Decision
			reason string
			err    error
		)
		var step *Step
		if s != nil {
			s.Steps = append(s.Steps, Step{Name: m.Name, Conditional: m.Decision.String()})
			step = &s.Steps[len(s.Steps)-1]
		}
		switch m.Decision.kind {
		case kindDeny, kindAllow, kindNoOpinion:
			x, reason, err = m.Decision.Outcome()
		default:
			x, reason, err = c.evaluateMember(ctx, m.Name, m.Decision, data, step)
			if possible := m.Decision.possible(); !possible.has(x) {
				x, reason, err = m.Decision.FailureDecision(), "failed closed",
					fmt.Errorf("evaluated to decision %s, but only %v were possible", kubeDecisionString(x), possible)
			}
		}
		if step != nil {
			step.Decision, step.Reason, step.Err = x, reason, err
		}
		switch x {
		case DecisionAllow, DecisionDeny:
			return x, reason, err
		case DecisionNoOpinion:
			if err != nil {
				errs = append(errs, err)
			}
			if reason != "" {
				reasons = append(reasons, m.Name+": "+reason)
			}
		}
	}
	return DecisionNoOpinion, strings.Join(reasons, "\n"), utilerrors.NewAggregate(errs)
}

func (c *Chain) evaluateMember(ctx context.Context, name string, d ConditionalDecision, data *ConditionsData, s *Step) (Decision, string, error) {
	for i := range c.entries {
		if c.entries[i].Name == name {
			if s != nil {
				return evaluationStep(ctx, c.entries[i].Authorizer, d, data, s)
			}
			return AsConditionsAuthorizer(c.entries[i].Authorizer).EvaluateConditions(ctx, d, data)
		}
	}
	return d.FailureDecision(), "failed closed", fmt.Errorf("couldn't find authorizer with name: %q", name)
}

// kubeDecisionString is kube-apiserver's Decision.String, which names a
// decision out of range "Unknown (N)".
func kubeDecisionString(d Decision) string {
	switch d {
	case DecisionDeny, DecisionAllow, DecisionNoOpinion:
		return d.String()
	}
	return "Unknown (" + strconv.Itoa(int(d)) + ")"
}
