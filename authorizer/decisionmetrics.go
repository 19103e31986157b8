package authorizer

import (
	"context"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// WithDecisionMetrics returns an authorizer that asks a and counts its
// terminal decisions in apiserver_authorization_decisions_total{type, name,
// decision}: "allowed" for Allow, "denied" for Deny, nothing for NoOpinion,
// "unknown" for a value outside the three. kube-apiserver wraps every
// configured authorizer this way, but not the system:masters one; New does
// the same. A nil sink records nothing.
func WithDecisionMetrics(sink metrics.Sink, authorizerType, name string, a Authorizer) Authorizer {
	sink = metrics.OrNoop(sink)
	return &instrumented{
		typ:         authorizerType,
		delegate:    a,
		allowed:     metrics.NewSeries(sink, metrics.AuthorizationDecisions, authorizerType, name, "allowed"),
		denied:      metrics.NewSeries(sink, metrics.AuthorizationDecisions, authorizerType, name, "denied"),
		unknown:     metrics.NewSeries(sink, metrics.AuthorizationDecisions, authorizerType, name, "unknown"),
		conditional: metrics.NewSeries(sink, metrics.AuthorizationDecisions, authorizerType, name, "conditional"),
	}
}

type instrumented struct {
	typ                      string
	delegate                 Authorizer
	allowed, denied, unknown metrics.Series
	conditional              metrics.Series
}

// AuthorizeConditionally asks the authorizer conditionally (lifted if it
// is not conditions-aware) and counts the decision as kube-apiserver's
// instrumented authorizer does: a ConditionsMap or Union as "conditional".
func (m *instrumented) AuthorizeConditionally(ctx context.Context, a *Attributes) ConditionalDecision {
	d := AsConditionsAuthorizer(m.delegate).AuthorizeConditionally(ctx, a)
	if x, ok := d.Unconditional(); ok {
		m.record(x)
	} else {
		m.conditional.Add(1)
	}
	return d
}

// EvaluateConditions evaluates with the authorizer and counts the decision
// as Authorize does.
func (m *instrumented) EvaluateConditions(ctx context.Context, d ConditionalDecision, data *ConditionsData) (Decision, string, error) {
	x, reason, err := AsConditionsAuthorizer(m.delegate).EvaluateConditions(ctx, d, data)
	m.record(x)
	return x, reason, err
}

func (m *instrumented) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	d, reason, err := m.delegate.Authorize(ctx, a)
	m.record(d)
	return d, reason, err
}

func (m *instrumented) authorizeTraced(ctx context.Context, a *Attributes, s *Step) (Decision, string, error) {
	s.Type = m.typ
	d, reason, err := authorizeStep(ctx, m.delegate, a, s)
	m.record(d)
	return d, reason, err
}

func (m *instrumented) record(d Decision) {
	switch d {
	case DecisionNoOpinion:
	case DecisionAllow:
		m.allowed.Add(1)
	case DecisionDeny:
		m.denied.Add(1)
	default:
		m.unknown.Add(1)
	}
}
