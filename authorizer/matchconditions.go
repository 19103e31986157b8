package authorizer

import (
	"context"

	"github.com/gatehouse-dev/gatehouse/internal/authzcond"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
)

// compileMatchConditions compiles a webhook's match conditions as
// kube-apiserver's webhook constructor does: errors are reported under
// "matchConditions[i].expression" (no authorizer prefix) and aggregated.
func compileMatchConditions(c *authzcond.AuthorizationCompiler, target kube.Target, expressions []string, name string, sink metrics.Sink, clk clock.PassiveClock) (*authzcond.AuthorizationMatcher, error) {
	if c == nil {
		var err error
		if c, err = authzcond.NewAuthorizationCompilerOf(target); err != nil {
			return nil, err
		}
	}
	m, errs := c.Compile(expressions, field.NewPath("matchConditions"))
	if err := errs.ToAggregate(); err != nil {
		return nil, err
	}
	return bindMatcher(m, name, sink, clk), nil
}

// bindMatcher binds the match condition metrics to the webhook's name.
func bindMatcher(m *authzcond.AuthorizationMatcher, name string, sink metrics.Sink, clk clock.PassiveClock) *authzcond.AuthorizationMatcher {
	return m.WithOptions(authzcond.AuthorizationMatcherOptions{AuthorizerName: name, Metrics: sink, Clock: clk})
}

// matchResult is the outcome of the match conditions, and for Explain which
// condition decided.
type matchResult struct {
	matched    bool
	index      int // of the condition that was false or failed first; -1 if none
	expression string
}

// explainMatch evaluates the match conditions for Explain (Authorize
// calls the matcher itself).
func (w *Webhook) explainMatch(ctx context.Context, a *Attributes, sc *scratch) (matchResult, error) {
	return w.explainMatchOffering(ctx, a, sc, nil)
}

// explainMatchOffering is explainMatch for a review that offers the decision
// types handled (nil: none offered).
func (w *Webhook) explainMatchOffering(ctx context.Context, a *Attributes, sc *scratch, handled []string) (matchResult, error) {
	spec := specOf(a, &sc.spec)
	ok, results, err := w.matcher.ExplainOffering(ctx, spec, handled)
	sc.spec = specScratch{}
	res := matchResult{matched: ok, index: -1}
	switch {
	case err != nil:
		for _, r := range results {
			if r.Err != nil {
				res.index, res.expression = r.Index, r.Expression
				break
			}
		}
	case !ok && len(results) > 0:
		last := results[len(results)-1]
		res.index, res.expression = last.Index, last.Expression
	}
	return res, err
}

// traceMatch records the match conditions' outcome in t.
func (t *WebhookStep) traceMatch(res matchResult, err error) {
	t.ConditionIndex, t.Condition = res.index, res.expression
	switch {
	case err != nil:
		t.MatchConditions = MatchError
		t.FailurePolicy = true
	case !res.matched:
		t.MatchConditions = MatchExcluded
	default:
		t.MatchConditions = MatchAll
	}
}
