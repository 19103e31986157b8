package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservervalidation "k8s.io/apiserver/pkg/apis/apiserver/validation"
	authzcel "k8s.io/apiserver/pkg/authorization/cel"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

var (
	kubeAuthzCompiler = sync.OnceValue(authzcel.NewDefaultCompiler)
	ourAuthzCompiler  = sync.OnceValues(matchcond.NewAuthorizationCompiler)
)

// authzPair is one list of match conditions compiled by both
// implementations, with the compile errors of each.
type authzPair struct {
	ours     *matchcond.AuthorizationMatcher
	ourErrs  field.ErrorList
	kube     *authzcel.CELMatcher
	kubeErrs field.ErrorList
}

func compileAuthzPair(t *testing.T, exprs []string) authzPair {
	t.Helper()
	ourCompiler, err := ourAuthzCompiler()
	require.NoError(t, err)
	var p authzPair
	// kube-apiserver's webhook constructor validates with a nil root path:
	// its paths start at matchConditions.
	p.ours, p.ourErrs = ourCompiler.Compile(exprs, field.NewPath("matchConditions"))
	p.kube, p.kubeErrs = apiservervalidation.ValidateAndCompileMatchConditions(kubeAuthzCompiler(), kubeMatchConditions(exprs))
	return p
}

// fieldErrors renders an error list with every part kube-apiserver's
// validation sets, so that a difference in any of them shows. The bad value
// of an internal error is an error value: kube-apiserver's is its own type
// (k8s.io/apiserver/pkg/cel.Error), gatehouse's cannot be; their texts are
// compared.
func fieldErrors(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		bad := fmt.Sprintf("%#v", e.BadValue)
		if err, ok := e.BadValue.(error); ok && e.Type == field.ErrorTypeInternal {
			bad = "error " + strconv.Quote(err.Error())
		}
		out = append(out, fmt.Sprintf("type=%s field=%s bad=%s detail=%q error=%q", e.Type, e.Field, bad, e.Detail, e.Error()))
	}
	return out
}

// outcome is what a caller sees of one evaluation.
type outcome struct {
	Matched bool
	Err     string
}

func outcomeOf(matched bool, err error) outcome {
	o := outcome{Matched: matched}
	if err != nil {
		o.Err = err.Error()
	}
	return o
}

func kubeOutcome(m *authzcel.CELMatcher, spec authorizationv1.SubjectAccessReviewSpec) outcome {
	if m == nil { // no conditions: kube-apiserver's webhook calls nothing
		return outcome{Matched: true}
	}
	return outcomeOf(m.Eval(context.Background(), &authorizationv1.SubjectAccessReview{Spec: spec}))
}

// TestAuthorizationMatchConditionsMatchKubeAPIServer evaluates every corpus
// expression on every corpus request through both implementations: the same
// match, no-match or error, with the same text, on gatehouse's fast path
// (Match) and on its tracked path (Explain).
func TestAuthorizationMatchConditionsMatchKubeAPIServer(t *testing.T) {
	requests := authzCorpusRequests()
	compared := 0
	for _, expr := range authzCorpusExpressions() {
		p := compileAuthzPair(t, []string{expr})
		if !assert.Equal(t, fieldErrors(p.kubeErrs), fieldErrors(p.ourErrs), "compile %q", expr) || len(p.kubeErrs) > 0 {
			t.Errorf("corpus expression %q does not compile: %v", expr, p.kubeErrs)
			continue
		}
		for _, r := range requests {
			want := kubeOutcome(p.kube, r.spec)
			spec := r.spec
			assert.Equal(t, want, outcomeOf(p.ours.Match(context.Background(), &spec)), "Match: %q on %s", expr, r.name)
			matched, _, err := p.ours.Explain(context.Background(), &spec)
			assert.Equal(t, want, outcomeOf(matched, err), "Explain: %q on %s", expr, r.name)
			compared++
		}
	}
	t.Logf("compared %d expression × request pairs", compared)
}

// TestAuthorizationMatchConditionListsMatchKubeAPIServer evaluates lists of
// conditions drawn from the corpus: the order, the false that drops earlier
// errors, the aggregation of several errors.
func TestAuthorizationMatchConditionListsMatchKubeAPIServer(t *testing.T) {
	exprs := authzCorpusExpressions()
	requests := authzCorpusRequests()[:10] // without the large requests, which only make it slow
	rng := rand.New(rand.NewPCG(3, 221))
	compared := 0
	for range 150 {
		n := 2 + rng.IntN(4)
		list := make([]string, 0, n)
		for range n {
			list = append(list, exprs[rng.IntN(len(exprs))])
		}
		p := compileAuthzPair(t, list)
		if !assert.Equal(t, fieldErrors(p.kubeErrs), fieldErrors(p.ourErrs), "compile %q", list) || len(p.kubeErrs) > 0 {
			continue // duplicates: compared above
		}
		for _, r := range requests {
			spec := r.spec
			assert.Equal(t, kubeOutcome(p.kube, r.spec), outcomeOf(p.ours.Match(context.Background(), &spec)), "%q on %s", list, r.name)
			compared++
		}
	}
	t.Logf("compared %d condition list × request pairs", compared)
}

// TestAuthorizationMatchConditionCompileErrorsMatchKubeAPIServer compiles bad
// expressions, alone and in lists: the same errors, with the same type,
// field path, bad value and detail.
func TestAuthorizationMatchConditionCompileErrorsMatchKubeAPIServer(t *testing.T) {
	bad := authzCorpusCompileErrors()
	lists := [][]string{nil, {}}
	for _, e := range bad {
		lists = append(lists, []string{e})
	}
	good := authzCorpusExpressions()
	lists = append(lists,
		bad,
		[]string{good[0], bad[2], good[0], good[1], "", good[1]},
		append(append([]string{}, good[:60]...), good[:5]...), // 65 conditions
		good[:64],
		[]string{"true", "true ", " true", "true"},
	)
	for _, list := range lists {
		p := compileAuthzPair(t, list)
		assert.Equal(t, fieldErrors(p.kubeErrs), fieldErrors(p.ourErrs), "%q", list)
		if len(p.kubeErrs) == 0 {
			assert.NotNil(t, p.ours)
		}
	}
}

// TestAuthorizationCostLimitMatchKubeAPIServer evaluates expressions whose
// cost grows with the size of the request on both sides of the size at which
// kube-apiserver's cost reaches the per-call limit: kube-apiserver accepts
// the smaller request and refuses the larger one, and so must gatehouse; the
// costs are then the same at the limit. (The sizes were found by bisection on
// kube-apiserver alone; a search at every run would take a minute.)
func TestAuthorizationCostLimitMatchKubeAPIServer(t *testing.T) {
	groups := func(n int) authorizationv1.SubjectAccessReviewSpec {
		g := make([]string, n)
		for i := range g {
			g[i] = "g"
		}
		return authorizationv1.SubjectAccessReviewSpec{Groups: g}
	}
	user := func(n int) authorizationv1.SubjectAccessReviewSpec {
		return authorizationv1.SubjectAccessReviewSpec{User: strings.Repeat("u", n)}
	}
	tests := []struct {
		expr string
		spec func(int) authorizationv1.SubjectAccessReviewSpec
		// refused is the smallest size kube-apiserver refuses.
		refused int
	}{
		// Comprehensions are compared in TestAuthorizationCostsMatchKubeAPIServer:
		// cel-go's cost tracking makes them quadratic, too slow at the limit.
		{"!('x' in request.groups)", groups, 999_998},
		{"request.user.matches('^u+$')", user, 9_999_980},
		{"request.user.startsWith(request.user)", user, 9_999_961},
		{"request.user.contains(request.user)", user, 9_991},
		{"request.user + request.user != ''", user, 4_999_981},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			p := compileAuthzPair(t, []string{tt.expr})
			require.Empty(t, p.kubeErrs)
			require.Empty(t, p.ourErrs)
			for _, n := range []int{tt.refused - 1, tt.refused} {
				spec := tt.spec(n)
				want := kubeOutcome(p.kube, spec)
				refused := strings.Contains(want.Err, "actual cost limit exceeded")
				require.Equal(t, n == tt.refused, refused, "kube-apiserver's limit is no longer at size %d: %+v", tt.refused, want)
				assert.Equal(t, want, outcomeOf(p.ours.Match(context.Background(), &spec)), "size %d", n)
			}
		})
	}
}

// costRecorder wraps one of kube-apiserver's compiled programs to record the
// actual cost of each evaluation, with kube-apiserver's own activation.
type costRecorder struct {
	cel.Program
	costs *[]uint64
}

func (c costRecorder) ContextEval(ctx context.Context, input any) (ref.Val, *cel.EvalDetails, error) {
	v, det, err := c.Program.ContextEval(ctx, input)
	if cost := det.ActualCost(); cost != nil {
		*c.costs = append(*c.costs, *cost)
	}
	return v, det, err
}

// orderDependentCost are the corpus expressions whose cost depends on the
// order in which a map is iterated, which is random in kube-apiserver (a Go
// map) as in gatehouse: an exists() that stops at the key it looks for.
var orderDependentCost = map[string]bool{
	"dyn(request).exists(k, k == 'extra')":                                        true,
	"request.extra.exists(k, k.startsWith('authentication.kubernetes.io/'))":      true,
	"request.extra.all(k, request.extra[k].size() > 0)":                           true,
	"request.extra.all(k, v, v.all(s, s != ''))":                                  true,
	"dyn(request.nonResourceAttributes).exists(k, v, k == 'verb' && v == 'get')":  true,
	"request.extra.exists(k, v, k.startsWith('scopes') && v.size() == 2) || true": true,
}

// TestAuthorizationCostsMatchKubeAPIServer compares the actual cost of every
// corpus expression on every request (but the largest, on which cel-go's
// cost tracking of comprehensions is slow): the cost that Explain reports is
// the cost kube-apiserver charges.
func TestAuthorizationCostsMatchKubeAPIServer(t *testing.T) {
	requests := authzCorpusRequests()[:10]
	compared := 0
	for _, expr := range authzCorpusExpressions() {
		if orderDependentCost[expr] {
			continue
		}
		p := compileAuthzPair(t, []string{expr})
		require.Empty(t, p.kubeErrs, expr)
		var kubeCosts []uint64
		p.kube.CompilationResults[0].Program = costRecorder{p.kube.CompilationResults[0].Program, &kubeCosts}
		for _, r := range requests {
			kubeCosts = kubeCosts[:0]
			kubeOutcome(p.kube, r.spec)
			spec := r.spec
			_, trace, _ := p.ours.Explain(context.Background(), &spec)
			require.Len(t, trace, 1)
			require.Len(t, kubeCosts, 1)
			assert.Equal(t, kubeCosts[0], trace[0].Cost, "%q on %s", expr, r.name)
			compared++
		}
	}
	t.Logf("compared the costs of %d expression × request pairs", compared)
}

// TestAuthorizationMatchConditionMetricsMatchKubeAPIServer records the same
// evaluations through both implementations' metrics.
func TestAuthorizationMatchConditionMetricsMatchKubeAPIServer(t *testing.T) {
	const name = "conformance-matchcond"
	sink := metrics.NewMemory()
	kubeMetrics := authzcel.NewMatcherMetrics()
	before := gatherAuthzMatchMetrics(t, name)
	broken := "request.resourceAttributes.namespace == 'x'"
	for _, list := range [][]string{{"true"}, {"false"}, {broken, "false"}, {"false", broken}, {broken}, {broken, "true"}} {
		p := compileAuthzPair(t, list)
		require.Empty(t, p.kubeErrs)
		p.kube.Metrics, p.kube.AuthorizerType, p.kube.AuthorizerName = kubeMetrics, "Webhook", name
		ours := p.ours.WithOptions(matchcond.AuthorizationMatcherOptions{AuthorizerName: name, Metrics: sink})
		for _, r := range authzCorpusRequests()[:8] {
			spec := r.spec
			kubeOutcome(p.kube, r.spec)
			_, _ = ours.Match(context.Background(), &spec)
		}
	}
	after := gatherAuthzMatchMetrics(t, name)
	assert.Equal(t, after.errors-before.errors, sink.Value(metrics.AuthorizationMatchConditionErrors, "Webhook", name))
	assert.Equal(t, after.exclusions-before.exclusions, sink.Value(metrics.AuthorizationMatchConditionExclusions, "Webhook", name))
	assert.Equal(t, after.observations-before.observations, sink.HistogramOf(metrics.AuthorizationMatchConditionDuration, "Webhook", name).Count)
}

type authzMatchMetrics struct {
	errors, exclusions float64
	observations       uint64
}

func gatherAuthzMatchMetrics(t *testing.T, name string) authzMatchMetrics {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	require.NoError(t, err)
	var m authzMatchMetrics
	for _, mf := range families {
		for _, s := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["name"] != name || labels["type"] != "Webhook" {
				continue
			}
			switch mf.GetName() {
			case metrics.AuthorizationMatchConditionErrors.Name():
				m.errors = s.GetCounter().GetValue()
			case metrics.AuthorizationMatchConditionExclusions.Name():
				m.exclusions = s.GetCounter().GetValue()
			case metrics.AuthorizationMatchConditionDuration.Name():
				m.observations = s.GetHistogram().GetSampleCount()
			}
		}
	}
	return m
}
