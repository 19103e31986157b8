package authzcond

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
	authorizationv1 "k8s.io/api/authorization/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// AuthorizationMatcher evaluates the compiled match conditions of one
// authorization webhook. It is immutable and safe for concurrent use. A nil
// matcher has no conditions and always matches, as a webhook without
// matchConditions.
type AuthorizationMatcher struct {
	conditions []*compiledCondition
	anyFast    bool
	// allNative tells that every condition is native: Match then needs no
	// activation unless one of them cannot decide.
	allNative   bool
	uses        selectorUse
	activations *sync.Pool // of *authzActivation, shared by the compiler's matchers

	instrumented bool
	clock        clock.PassiveClock
	seconds      metrics.Series
	failures     metrics.Series
	exclusions   metrics.Series
}

// AuthorizationMatcherOptions are the instrumentation of a matcher, bound
// once (see WithOptions).
type AuthorizationMatcherOptions struct {
	// AuthorizerName is the name label of the metrics: the authorizer's
	// configured name ("default" for the webhook of the legacy flags).
	AuthorizerName string
	// Metrics receives apiserver_authorization_match_condition_* with
	// type="Webhook". Nil records nothing.
	Metrics metrics.Sink
	// Clock times the evaluations; nil is the real clock.
	Clock clock.PassiveClock
}

// authorizerType is the type label of the match condition metrics: only
// webhooks have match conditions.
const authorizerType = "Webhook"

// WithOptions returns a copy of m that records its metrics as kube-apiserver
// does, once per Match of a matcher with at least one condition:
//   - apiserver_authorization_match_condition_evaluation_seconds, always;
//   - ..._exclusions_total when a condition is false;
//   - ..._evaluation_errors_total when a condition failed, even if a later
//     one was false.
func (m *AuthorizationMatcher) WithOptions(o AuthorizationMatcherOptions) *AuthorizationMatcher {
	if m == nil {
		return nil
	}
	c := *m
	c.instrumented = o.Metrics != nil
	c.clock = o.Clock
	if c.clock == nil {
		c.clock = clock.RealClock{}
	}
	c.seconds = metrics.NewSeries(o.Metrics, metrics.AuthorizationMatchConditionDuration, authorizerType, o.AuthorizerName)
	c.failures = metrics.NewSeries(o.Metrics, metrics.AuthorizationMatchConditionErrors, authorizerType, o.AuthorizerName)
	c.exclusions = metrics.NewSeries(o.Metrics, metrics.AuthorizationMatchConditionExclusions, authorizerType, o.AuthorizerName)
	return &c
}

// Len is the number of compiled conditions.
func (m *AuthorizationMatcher) Len() int {
	if m == nil {
		return 0
	}
	return len(m.conditions)
}

// ConditionResult tells how one match condition evaluated.
type ConditionResult struct {
	// Index is the condition's position in the list given to Compile.
	Index int
	// Expression is the condition's text.
	Expression string
	// Matched is the condition's value when Err is nil.
	Matched bool
	// Err is the evaluation error, with kube-apiserver's text.
	Err error
	// Cost is the condition's actual CEL cost.
	Cost uint64
}

// Match evaluates the conditions against a request with kube-apiserver's
// semantics: in order; the first false returns false at once, with no error
// even if earlier conditions failed; otherwise every failure is returned,
// aggregated (utilerrors.NewAggregate), each as
// "cel evaluation error: expression '<expr>' resulted in error: <err>", and
// the result is false; true when every condition is true. Each condition may
// cost at most 1,000,000 ("operation cancelled: actual cost limit exceeded").
// A cancelled ctx stops any comprehension within 100 iterations
// ("operation interrupted: context canceled").
func (m *AuthorizationMatcher) Match(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec) (bool, error) {
	return m.match(ctx, spec, nil, nil, nil)
}

// MatchTimed is Match that also returns the reading of the matcher's clock
// that ended the timing of the evaluation, when the matcher records metrics
// (see WithOptions); otherwise it is zero. A caller that needs the time
// right after matching (an authorizer checking its decision cache) takes it
// from there rather than reading the clock again.
func (m *AuthorizationMatcher) MatchTimed(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec) (bool, time.Time, error) {
	var end time.Time
	ok, err := m.match(ctx, spec, nil, nil, &end)
	return ok, end, err
}

// Explain is Match that also reports, in order, each condition it evaluated:
// the last one is the false condition that excluded the request, if any.
// Match does not pay for this.
func (m *AuthorizationMatcher) Explain(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec) (bool, []ConditionResult, error) {
	var trace []ConditionResult
	ok, err := m.match(ctx, spec, nil, &trace, nil)
	return ok, trace, err
}

// ExplainOffering is Explain for a SubjectAccessReview whose spec offers
// conditional decisions: request.authorizationOptions.handledDecisionTypes
// is handled (k8s.io/api v0.37's spec cannot hold it), as kube-apiserver
// 1.38, with the gate ConditionalAuthorization on, shows it to the match
// conditions of a webhook that has a conditionsReview. The field exists
// only for a compiler that declares it (NewAuthorizationCompilerOf); a nil
// handled is Explain.
func (m *AuthorizationMatcher) ExplainOffering(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec, handled []string) (bool, []ConditionResult, error) {
	var trace []ConditionResult
	ok, err := m.match(ctx, spec, handled, &trace, nil)
	return ok, trace, err
}

// authzActivation resolves `request` during one Match. Activations are
// pooled: nothing of an evaluation outlives it (the results are booleans and
// errors formatted during the evaluation).
type authzActivation struct {
	request *sarValue
}

func (a *authzActivation) ResolveName(name string) (any, bool) {
	if name == sarVarName {
		return a.request, true
	}
	return nil, false
}

func (a *authzActivation) Parent() interpreter.Activation { return nil }

// errNilSpec is returned for a nil spec, which kube-apiserver never builds.
var errNilSpec = errors.New("matchcond: nil SubjectAccessReviewSpec")

// match evaluates the conditions; end, if set, receives the clock reading
// that ended the timing of an instrumented matcher.
func (m *AuthorizationMatcher) match(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec, handled []string, trace *[]ConditionResult, end *time.Time) (matched bool, err error) {
	if m == nil || len(m.conditions) == 0 {
		return true, nil
	}
	if spec == nil {
		return false, errNilSpec
	}
	var failed []error
	if m.instrumented {
		start := m.clock.Now()
		defer func() {
			m.seconds.Observe(m.elapsed(start, end).Seconds())
			if len(failed) > 0 {
				m.failures.Add(1)
			}
		}()
	}
	// Native conditions read the spec alone, never authorizationOptions.
	if m.allNative && trace == nil && specWithinSizeBound(spec, m.uses) {
		if matched, ok := m.matchNative(ctx, spec); ok {
			if !matched && m.instrumented {
				m.exclusions.Add(1)
			}
			return matched, nil
		}
	}
	act := m.activations.Get().(*authzActivation)
	act.request.reset(spec, handled, m.uses)
	defer func() {
		act.request.reset(nil, nil, selectorUse{})
		m.activations.Put(act)
	}()
	ev := evaluation{ctx: ctx, act: act, fast: m.anyFast && trace == nil && act.request.withinSizeBound()}
	if ev.fast {
		ev.spec = spec
	}
	defer ev.close()
	for _, c := range m.conditions {
		r := ev.eval(c, trace != nil)
		ok, cerr := authzResult(c.expression, r)
		if trace != nil {
			*trace = append(*trace, ConditionResult{Index: c.index, Expression: c.expression, Matched: ok, Err: cerr, Cost: r.cost})
		}
		if cerr != nil {
			failed = append(failed, cerr)
			continue
		}
		if !ok {
			if m.instrumented {
				m.exclusions.Add(1)
			}
			return false, nil
		}
	}
	if len(failed) > 0 {
		return false, utilerrors.NewAggregate(failed)
	}
	return true, nil
}

// authzResult turns one program's result into kube-apiserver's outcome.
func authzResult(expr string, r evalResult) (bool, error) {
	if r.err != nil {
		return false, fmt.Errorf("cel evaluation error: expression '%v' resulted in error: %w", expr, r.err)
	}
	if r.val.Type() != types.BoolType {
		return false, fmt.Errorf("cel evaluation error: expression '%v' eval result type should be bool but got %v", expr, r.val.Type())
	}
	b, ok := r.val.Value().(bool)
	if !ok {
		return false, fmt.Errorf("cel evaluation error: expression '%v' eval result value should be bool but got %v", expr, r.val.Value())
	}
	return b, nil
}

// matchNative evaluates conditions that are all native; ok is false when
// one of them cannot decide before a false one does, and cel-go must
// evaluate them all.
func (m *AuthorizationMatcher) matchNative(ctx context.Context, spec *authorizationv1.SubjectAccessReviewSpec) (matched, ok bool) {
	for _, c := range m.conditions {
		if c.loops && ctx.Err() != nil {
			return false, false // cel-go's comprehensions may see the cancellation
		}
		v, ok := c.native(nativeEnv{s: spec})
		if !ok {
			return false, false
		}
		if !v {
			return false, true
		}
	}
	return true, true
}

// elapsed is the time since start on the matcher's clock; end, if set,
// receives the reading. The real clock is read once for both; a caller's
// clock answers Since itself, as it always has, and is read again for end.
func (m *AuthorizationMatcher) elapsed(start time.Time, end *time.Time) time.Duration {
	switch m.clock.(type) {
	case clock.RealClock, *clock.RealClock:
		now := time.Now()
		if end != nil {
			*end = now
		}
		return now.Sub(start)
	}
	d := m.clock.Since(start)
	if end != nil {
		*end = m.clock.Now()
	}
	return d
}
