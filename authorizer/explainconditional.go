package authorizer

import "context"

// This file explains conditional authorization: ExplainConditionally is
// Explain of AuthorizeConditionally, ExplainEvaluation of
// EvaluateConditions.

// conditionalTracer is an authorizer that explains its conditional asks.
type conditionalTracer interface {
	authorizeConditionallyTraced(ctx context.Context, a *Attributes, s *Step) ConditionalDecision
}

// evaluationTracer is an authorizer that explains its evaluations.
type evaluationTracer interface {
	evaluateConditionsTraced(ctx context.Context, d ConditionalDecision, data *ConditionsData, s *Step) (Decision, string, error)
}

// conditionalStep asks az conditionally, recording in s its decision's
// String (Conditional) and, when unconditional, its decision, reason and
// error; a conditional one records its failure decision.
func conditionalStep(ctx context.Context, az Authorizer, a *Attributes, s *Step) ConditionalDecision {
	var d ConditionalDecision
	switch t := az.(type) {
	case conditionalTracer:
		d = t.authorizeConditionallyTraced(ctx, a, s)
	case ConditionsAuthorizer:
		d = t.AuthorizeConditionally(ctx, a)
	default:
		// Not conditions-aware: its Authorize, explained, lifted.
		d = UnconditionalDecision(authorizeStep(ctx, az, a, s))
	}
	s.Conditional = d.String()
	if x, ok := d.Unconditional(); ok {
		s.Decision, s.Reason, s.Err = x, d.reason, d.err
	} else {
		s.Decision, s.Reason, s.Err = d.FailureDecision(), "", nil
	}
	return d
}

// evaluationStep has az evaluate d, recording the outcome in s.
func evaluationStep(ctx context.Context, az Authorizer, d ConditionalDecision, data *ConditionsData, s *Step) (Decision, string, error) {
	var (
		x      Decision
		reason string
		err    error
	)
	if t, ok := az.(evaluationTracer); ok {
		x, reason, err = t.evaluateConditionsTraced(ctx, d, data, s)
	} else {
		x, reason, err = AsConditionsAuthorizer(az).EvaluateConditions(ctx, d, data)
	}
	if s.Conditional == "" {
		s.Conditional = d.String()
	}
	s.Decision, s.Reason, s.Err = x, reason, err
	return x, reason, err
}

// ExplainConditionally asks az conditionally, as AuthorizeConditionally
// does, and tells how: Trace.Conditional is the decision's String
// ("Union[...]", "ConditionsMap(...)", or an unconditional one), and each
// Step's Conditional that of its authorizer's decision. Decision, Reason
// and Err are the decision's when it is unconditional; for a conditional
// one, Decision is its failure decision (what it fails closed to) and
// Reason and Err are empty. Authorizers that are not conditions-aware are
// explained as Explain does.
func ExplainConditionally(ctx context.Context, az Authorizer, a *Attributes) (*Trace, ConditionalDecision) {
	var root Step
	d := conditionalStep(ctx, az, a, &root)
	return traceOf(&root), d
}

// ExplainEvaluation evaluates d with az, as EvaluateConditions does, and
// tells how: for a chain, one Step per Union member looked at, with the
// member's decision (Conditional) and what its evaluation decided (for a
// webhook, with its calls in Webhook); Trace.Conditional is d's String.
func ExplainEvaluation(ctx context.Context, az Authorizer, d ConditionalDecision, data *ConditionsData) *Trace {
	var root Step
	evaluationStep(ctx, az, d, data, &root)
	return traceOf(&root)
}

func traceOf(root *Step) *Trace {
	t := &Trace{Decision: root.Decision, Reason: root.Reason, Err: root.Err, Conditional: root.Conditional}
	if root.chain {
		t.Steps = root.Steps
	} else {
		t.Steps = []Step{*root}
	}
	return t
}

func (m *instrumented) authorizeConditionallyTraced(ctx context.Context, a *Attributes, s *Step) ConditionalDecision {
	s.Type = m.typ
	d := conditionalStep(ctx, m.delegate, a, s)
	if x, ok := d.Unconditional(); ok {
		m.record(x)
	} else {
		m.conditional.Add(1)
	}
	return d
}

func (m *instrumented) evaluateConditionsTraced(ctx context.Context, d ConditionalDecision, data *ConditionsData, s *Step) (Decision, string, error) {
	s.Type = m.typ
	x, reason, err := evaluationStep(ctx, m.delegate, d, data, s)
	m.record(x)
	return x, reason, err
}

func (w *Webhook) authorizeConditionallyTraced(ctx context.Context, a *Attributes, s *Step) ConditionalDecision {
	if s.Type == "" {
		s.Type = TypeWebhook
	}
	if !w.askConditional {
		return UnconditionalDecision(w.authorizeTraced(ctx, a, s))
	}
	s.Webhook = &WebhookStep{ConditionIndex: -1}
	return w.authorizeConditionally(ctx, a, s.Webhook)
}

func (w *Webhook) evaluateConditionsTraced(ctx context.Context, d ConditionalDecision, data *ConditionsData, s *Step) (Decision, string, error) {
	if s.Type == "" {
		s.Type = TypeWebhook
	}
	s.Webhook = &WebhookStep{ConditionIndex: -1}
	return w.evaluateConditions(ctx, d, data, s.Webhook)
}
