package admissionmatch

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// randomHooks returns n random webhooks and policies, drawn as the fuzz
// target draws them.
func randomHooks(seed uint64, n int) []Hook {
	rng := rand.New(rand.NewPCG(seed, 0))
	hooks := make([]Hook, n)
	for i := range hooks {
		data := make([]byte, 64)
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		fb := &fuzzBytes{b: data}
		var rules []admissionregistrationv1.RuleWithOperations
		for range fb.n(3) + 1 {
			rules = append(rules, fb.rule("deployments"))
		}
		policy := draw(fb, nil, ptr(admissionregistrationv1.Exact), ptr(admissionregistrationv1.Equivalent))
		if i%2 == 0 {
			hooks[i] = CompileWebhook(WebhookCriteria{Rules: rules, NamespaceSelector: fb.selector("env"), ObjectSelector: fb.selector("app"), MatchPolicy: policy}, Options{})
			continue
		}
		named := make([]admissionregistrationv1.NamedRuleWithOperations, len(rules))
		for j := range rules {
			named[j].RuleWithOperations = rules[j]
		}
		mr := &admissionregistrationv1.MatchResources{NamespaceSelector: fb.selector("env"), ObjectSelector: fb.selector("app"), MatchPolicy: policy}
		if fb.n(2) == 0 {
			mr.ResourceRules = named
		} else {
			mr.ExcludeResourceRules = named[:1]
			mr.ResourceRules = named[1:]
		}
		hooks[i] = CompilePolicy(mr, Options{})
	}
	return hooks
}

func TestIndexMatchesEveryHook(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 300} {
		hooks := randomHooks(uint64(n), n)
		x := NewIndex(hooks...)
		require.Equal(t, n, x.Len())
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		seen := 0
		for range 300 {
			data := make([]byte, 32)
			for j := range data {
				data[j] = byte(rng.UintN(256))
			}
			fb := &fuzzBytes{b: data}
			r := podCreate()
			r.Resource = draw(fb, podsGVR, deploymentsV1, deploymentsExt, namespacesGVR)
			r.Operation = draw(fb, r.Operation, "UPDATE", "DELETE", "CONNECT")
			r.Subresource = draw(fb, "", "status", "scale")
			r.Namespace = draw(fb, "", "default", "dev", "gone", "broken")

			var want []int
			wantResults := map[int]Result{}
			for i, h := range hooks {
				if res := h.Match(context.Background(), r); res.Matches || res.Err != nil {
					want = append(want, i)
					wantResults[i] = res
				}
			}
			var got []int
			x.Match(context.Background(), r, func(i int, res Result) bool {
				got = append(got, i)
				assert.Equal(t, wantResults[i].Matches, res.Matches)
				assert.Equal(t, wantResults[i].Resource, res.Resource)
				assert.Equal(t, wantResults[i].Kind, res.Kind)
				assert.Equal(t, wantResults[i].Err, res.Err)
				return true
			})
			assert.Equal(t, want, got, "n=%d %+v", n, r)
			seen += len(want)
		}
		if n >= 64 {
			assert.Greater(t, seen, 50, "too few matches to test the index")
		}
	}
}

func TestIndexStops(t *testing.T) {
	allRules := []admissionregistrationv1.RuleWithOperations{ruleOf([]string{"*"}, []string{"*"}, []string{"*"}, []string{"*"})}
	x := NewIndex(webhookOf(allRules, everything, everything, nil), webhookOf(allRules, everything, everything, nil))
	calls := 0
	x.Match(context.Background(), podCreate(), func(int, Result) bool { calls++; return false })
	assert.Equal(t, 1, calls)
	assert.Same(t, x.Hook(1), x.hooks[1])
}

func TestIndexKeepsPoliciesFailingOnTheirExclusions(t *testing.T) {
	// The policy names pods only, but its exclusion fails a request on the
	// scale of deployments (an equivalent resource of unknown kind).
	p := CompilePolicy(&admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
		MatchPolicy:          ptr(admissionregistrationv1.Equivalent),
		ResourceRules:        []admissionregistrationv1.NamedRuleWithOperations{named(ruleOf([]string{"*"}, []string{""}, []string{"v1"}, []string{"pods"}))},
		ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(ruleOf([]string{"*"}, []string{"extensions"}, []string{"*"}, []string{"deployments/scale"}))},
	}, noExemptions)
	r := podCreate()
	r.Resource, r.Kind, r.Subresource = deploymentsV1, deploymentV1, "scale"
	want := p.Match(context.Background(), r)
	require.EqualError(t, want.Err, "unable to convert to extensions/v1beta1, Resource=deployments: unknown kind")
	var got []Result
	NewIndex(p).Match(context.Background(), r, func(_ int, res Result) bool { got = append(got, res); return true })
	assert.Equal(t, []Result{want}, got)
}
