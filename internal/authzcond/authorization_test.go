package authzcond

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// The compiler is expensive to build; the tests share one, as callers do.
var testCompiler = sync.OnceValues(NewAuthorizationCompiler)

func compiler(t testing.TB) *AuthorizationCompiler {
	t.Helper()
	c, err := testCompiler()
	require.NoError(t, err)
	return c
}

func compile(t testing.TB, exprs ...string) *AuthorizationMatcher {
	t.Helper()
	m, errs := compiler(t).Compile(exprs, field.NewPath("matchConditions"))
	require.Empty(t, errs)
	require.NotNil(t, m)
	return m
}

func TestAuthorizationCompileErrors(t *testing.T) {
	path := field.NewPath("authorizers").Index(0).Child("matchConditions")
	tooMany := make([]string, 65)
	for i := range tooMany {
		tooMany[i] = "request.user == 'u" + strings.Repeat("x", i) + "'"
	}
	tests := []struct {
		name  string
		exprs []string
		want  []string
	}{
		{"too many", tooMany, []string{"authorizers[0].matchConditions: Too many: 65: must have at most 64 items"}},
		{"too many, even if all are broken", append(tooMany[:0:0], make([]string, 65)...), []string{"authorizers[0].matchConditions: Too many: 65: must have at most 64 items"}},
		{"empty", []string{""}, []string{"authorizers[0].matchConditions[0].expression: Required value"}},
		{"blank", []string{"true", " \t\n"}, []string{"authorizers[0].matchConditions[1].expression: Required value"}},
		{"duplicate", []string{"request.user == 'a'", "true", "request.user == 'a'"}, []string{`authorizers[0].matchConditions[2].expression: Duplicate value: "request.user == 'a'"`}},
		{"duplicates differ by spaces are not duplicates", []string{"true", " true"}, nil},
		{"duplicate of a broken one is a duplicate", []string{"1", "1"}, []string{
			`authorizers[0].matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int`,
			`authorizers[0].matchConditions[1].expression: Duplicate value: "1"`,
		}},
		{"undefined field", []string{"request.foo == 1"}, []string{
			"authorizers[0].matchConditions[0].expression: Invalid value: \"request.foo == 1\": compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 1\n | .......^",
		}},
		{"undeclared reference", []string{"test"}, []string{
			"authorizers[0].matchConditions[0].expression: Invalid value: \"test\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'test' (in container '')\n | test\n | ^",
		}},
		{"syntax", []string{"request.user = 'a'"}, []string{
			"authorizers[0].matchConditions[0].expression: Invalid value: \"request.user = 'a'\": compilation failed: ERROR: <input>:1:14: Syntax error: token recognition error at: '= '\n | request.user = 'a'\n | .............^\nERROR: <input>:1:16: Syntax error: extraneous input ''a'' expecting <EOF>\n | request.user = 'a'\n | ...............^",
		}},
		{"overload", []string{"request.user == 1"}, []string{
			"authorizers[0].matchConditions[0].expression: Invalid value: \"request.user == 1\": compilation failed: ERROR: <input>:1:14: found no matching overload for '_==_' applied to '(string, int)'\n | request.user == 1\n | .............^",
		}},
		{"not bool", []string{"request.user"}, []string{`authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string`}},
		{"dyn is not bool", []string{"dyn(true)"}, []string{`authorizers[0].matchConditions[0].expression: Invalid value: "dyn(true)": must evaluate to bool but got dyn`}},
		{"user is a string, not an object (the KEP's example)", []string{"!('system:serviceaccounts:kube-system' in request.user.groups)"}, []string{
			"authorizers[0].matchConditions[0].expression: Invalid value: \"!('system:serviceaccounts:kube-system' in request.user.groups)\": compilation failed: ERROR: <input>:1:55: type 'string' does not support field selection\n | !('system:serviceaccounts:kube-system' in request.user.groups)\n | ......................................................^",
		}},
		{"no authorizer variable", []string{"authorizer != null"}, []string{
			"authorizers[0].matchConditions[0].expression: Invalid value: \"authorizer != null\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer != null\n | ^",
		}},
		{"every error, in order", []string{"", "x", "true", "true"}, []string{
			"authorizers[0].matchConditions[0].expression: Required value",
			"authorizers[0].matchConditions[1].expression: Invalid value: \"x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^",
			`authorizers[0].matchConditions[3].expression: Duplicate value: "true"`,
		}},
		{"valid", []string{"has(request.resourceAttributes)", "request.resourceAttributes.?fieldSelector.hasValue()"}, nil},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, errs := compiler(t).Compile(tt.exprs, path)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
			if tt.want != nil {
				assert.Nil(t, m)
			} else {
				require.NotNil(t, m)
				assert.Equal(t, len(tt.exprs), m.Len())
			}
		})
	}
}

func TestAuthorizationCompileErrorTypes(t *testing.T) {
	_, errs := compiler(t).Compile([]string{"", "1", "1", "x"}, field.NewPath("matchConditions"))
	require.Len(t, errs, 4)
	assert.Equal(t, field.ErrorTypeRequired, errs[0].Type)
	assert.Equal(t, field.ErrorTypeInvalid, errs[1].Type)
	assert.Equal(t, "1", errs[1].BadValue)
	assert.Equal(t, "must evaluate to bool but got int", errs[1].Detail)
	assert.Equal(t, field.ErrorTypeDuplicate, errs[2].Type)
	assert.Equal(t, "matchConditions[2].expression", errs[2].Field)
	assert.Equal(t, field.ErrorTypeInvalid, errs[3].Type)
}

var (
	kubeSystemPods = &authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:kube-system:gc",
		UID:    "uid-1",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"},
		Extra:  map[string]authorizationv1.ExtraValue{"scopes": {"a", "b"}},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: "kube-system", Verb: "list", Version: "v1", Resource: "pods",
		},
	}
	defaultSecret = &authorizationv1.SubjectAccessReviewSpec{
		User:   "jane",
		Groups: []string{"system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: "default", Verb: "get", Version: "v1", Resource: "secrets", Name: "s",
			FieldSelector: &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{{Key: "spec.nodeName", Operator: metav1.FieldSelectorOpIn, Values: []string{"n1"}}}},
			LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "a=b", Requirements: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn, Values: []string{"b"}}}},
		},
	}
	healthz = &authorizationv1.SubjectAccessReviewSpec{
		User:                  "bob",
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"},
	}
)

func TestAuthorizationMatch(t *testing.T) {
	noResource := "cel evaluation error: expression 'request.resourceAttributes.namespace == \"kube-system\"' resulted in error: no such key: resourceAttributes"
	tests := []struct {
		name    string
		exprs   []string
		spec    *authorizationv1.SubjectAccessReviewSpec
		want    bool
		wantErr string
	}{
		{"no conditions", nil, healthz, true, ""},
		{"has resourceAttributes", []string{"has(request.resourceAttributes)"}, kubeSystemPods, true, ""},
		{"has no resourceAttributes", []string{"has(request.resourceAttributes)"}, healthz, false, ""},
		{"user is always present, even empty", []string{"has(request.user) && has(request.uid) && has(request.groups) && has(request.extra)"}, &authorizationv1.SubjectAccessReviewSpec{}, true, ""},
		{"nil extra is {}", []string{"request.extra == {}"}, healthz, true, ""},
		{"nil groups is []", []string{"request.groups == [] && size(request.groups) == 0"}, healthz, true, ""},
		{"extra", []string{"request.extra['scopes'] == ['a', 'b']"}, kubeSystemPods, true, ""},
		{"missing extra key", []string{"request.extra['x'] == ['a']"}, kubeSystemPods, false,
			"cel evaluation error: expression 'request.extra['x'] == ['a']' resulted in error: no such key: x"},
		{"absent resourceAttributes", []string{`request.resourceAttributes.namespace == "kube-system"`}, healthz, false, noResource},
		{"absent nonResourceAttributes", []string{"request.nonResourceAttributes.path == '/'"}, kubeSystemPods, false,
			"cel evaluation error: expression 'request.nonResourceAttributes.path == '/'' resulted in error: no such key: nonResourceAttributes"},
		{"optional chaining", []string{"request.?resourceAttributes.namespace.orValue('') == ''"}, healthz, true, ""},
		{"the three conditions, kube-system", []string{
			"has(request.resourceAttributes)",
			"request.resourceAttributes.namespace == 'kube-system'",
			"!('system:serviceaccounts:kube-system' in request.groups)",
		}, kubeSystemPods, false, ""},
		{"the three conditions, default", []string{
			"has(request.resourceAttributes)",
			"request.resourceAttributes.namespace == 'default'",
			"!('system:serviceaccounts:kube-system' in request.groups)",
		}, defaultSecret, true, ""},
		{"a false wins over an earlier error", []string{`request.resourceAttributes.namespace == "kube-system"`, "false"}, healthz, false, ""},
		{"a false stops before a later error", []string{"false", `request.resourceAttributes.namespace == "kube-system"`}, healthz, false, ""},
		{"an error and true", []string{`request.resourceAttributes.namespace == "kube-system"`, "true"}, healthz, false, noResource},
		{"errors are aggregated", []string{`request.resourceAttributes.namespace == "kube-system"`, "request.extra['x'] == ['a']"}, healthz, false,
			"[" + noResource + ", cel evaluation error: expression 'request.extra['x'] == ['a']' resulted in error: no such key: x]"},
		{"selectors are present when named", []string{"request.resourceAttributes.fieldSelector.requirements[0].key == 'spec.nodeName'"}, defaultSecret, true, ""},
		{"a raw selector replaces the requirements", []string{"has(request.resourceAttributes.labelSelector.rawSelector) && !has(request.resourceAttributes.labelSelector.requirements)"}, defaultSecret, true, ""},
		{"selectors are absent unless named", []string{"dyn(request.resourceAttributes).size() == 7"}, defaultSecret, true, ""},
		{"a condition naming a selector includes it for all", []string{"dyn(request.resourceAttributes).size() == 8", "has(request.resourceAttributes.fieldSelector) || true"}, defaultSecret, true, ""},
		{"optional select counts as naming", []string{"request.resourceAttributes.?labelSelector.hasValue()"}, defaultSecret, true, ""},
		{"the request is a map", []string{"type(request) == map && dyn(request).size() == 5"}, kubeSystemPods, true, ""},
		{"the whole object compares as kube-apiserver's map", []string{"request.nonResourceAttributes == dyn({'path': '/healthz', 'verb': 'get'})"}, healthz, true, ""},
		{"a whole object in a list", []string{"[request.resourceAttributes][0].namespace == 'kube-system'"}, kubeSystemPods, true, ""},
		{"an object through dyn", []string{"dyn(request).resourceAttributes.resource == 'pods'"}, kubeSystemPods, true, ""},
		{"comprehension", []string{"request.groups.exists(g, g.startsWith('system:serviceaccounts:'))"}, kubeSystemPods, true, ""},
		{"library function", []string{"request.user.lowerAscii() == 'jane'"}, defaultSecret, true, ""},
		{"cost limit", []string{"'x' in request.groups"}, &authorizationv1.SubjectAccessReviewSpec{Groups: make([]string, 1_000_000)}, false,
			"cel evaluation error: expression ''x' in request.groups' resulted in error: operation cancelled: actual cost limit exceeded"},
		{"just under the cost limit", []string{"'x' in request.groups"}, &authorizationv1.SubjectAccessReviewSpec{Groups: make([]string, 999_990)}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, errs := compiler(t).Compile(tt.exprs, field.NewPath("matchConditions"))
			require.Empty(t, errs)
			got, err := m.Match(context.Background(), tt.spec)
			assert.Equal(t, tt.want, got)
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
			// Explain always takes the tracked path: same outcome.
			got2, trace, err2 := m.Explain(context.Background(), tt.spec)
			assert.Equal(t, got, got2)
			assert.Equal(t, err, err2)
			assert.LessOrEqual(t, len(trace), len(tt.exprs))
		})
	}
}

func TestAuthorizationExplain(t *testing.T) {
	m := compile(t, "request.extra['x'] == ['a']", "has(request.resourceAttributes)", "request.user == 'bob'", "true")
	ok, trace, err := m.Explain(context.Background(), healthz)
	assert.False(t, ok)
	assert.NoError(t, err)
	require.Len(t, trace, 2)
	assert.Equal(t, 0, trace[0].Index)
	assert.EqualError(t, trace[0].Err, "cel evaluation error: expression 'request.extra['x'] == ['a']' resulted in error: no such key: x")
	assert.Equal(t, ConditionResult{Index: 1, Expression: "has(request.resourceAttributes)", Cost: trace[1].Cost}, trace[1])

	ok, trace, err = m.Explain(context.Background(), kubeSystemPods)
	assert.False(t, ok)
	assert.NoError(t, err) // the false of condition 2 drops the error of condition 0
	require.Len(t, trace, 3)
	assert.Error(t, trace[0].Err)
	assert.True(t, trace[1].Matched)
	assert.False(t, trace[2].Matched) // user is not bob
}

func TestAuthorizationMatchNil(t *testing.T) {
	var m *AuthorizationMatcher
	ok, err := m.Match(context.Background(), nil)
	assert.True(t, ok)
	assert.NoError(t, err)
	assert.Nil(t, m.WithOptions(AuthorizationMatcherOptions{}))

	ok, err = compile(t, "true").Match(context.Background(), nil)
	assert.False(t, ok)
	assert.EqualError(t, err, "matchcond: nil SubjectAccessReviewSpec")
}

// fixedClock reports that every evaluation took the same time.
type fixedClock struct {
	*testingclock.FakePassiveClock
	took time.Duration
}

func (c fixedClock) Since(time.Time) time.Duration { return c.took }

func TestAuthorizationMetrics(t *testing.T) {
	sink := metrics.NewMemory()
	clk := fixedClock{testingclock.NewFakePassiveClock(time.Unix(0, 0)), 7 * time.Millisecond}
	opts := AuthorizationMatcherOptions{AuthorizerName: "opa", Metrics: sink, Clock: clk}
	broken := `request.resourceAttributes.namespace == "x"`

	for _, tt := range []struct {
		exprs []string
		spec  *authorizationv1.SubjectAccessReviewSpec
	}{
		{[]string{"true"}, healthz},                            // match
		{[]string{"false"}, healthz},                           // exclusion
		{[]string{broken, "false"}, healthz},                   // exclusion and error
		{[]string{broken}, healthz},                            // error
		{[]string{"has(request.resourceAttributes)"}, healthz}, // exclusion
	} {
		_, _ = compile(t, tt.exprs...).WithOptions(opts).Match(context.Background(), tt.spec)
	}
	// A webhook without conditions has no matcher in kube-apiserver: nothing recorded.
	_, _ = compile(t).WithOptions(opts).Match(context.Background(), healthz)

	assert.Equal(t, 3.0, sink.Value(metrics.AuthorizationMatchConditionExclusions, "Webhook", "opa"))
	assert.Equal(t, 2.0, sink.Value(metrics.AuthorizationMatchConditionErrors, "Webhook", "opa"))
	h := sink.HistogramOf(metrics.AuthorizationMatchConditionDuration, "Webhook", "opa")
	assert.Equal(t, uint64(5), h.Count)
	assert.InDelta(t, 0.035, h.Sum, 1e-9)
	assert.Empty(t, sink.Errors())

	// Without options nothing is recorded, and the clock is not read.
	sink.Reset()
	_, _ = compile(t, "false").Match(context.Background(), healthz)
	assert.Empty(t, sink.Text())
}

func TestAuthorizationContextCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A condition without comprehension is evaluated as in kube-apiserver.
	ok, err := compile(t, "request.user == 'bob'").Match(ctx, healthz)
	assert.True(t, ok)
	assert.NoError(t, err)
	// A comprehension stops within 100 iterations.
	m := compile(t, "lists.range(1000).all(i, i >= 0)")
	ok, err = m.Match(ctx, healthz)
	assert.False(t, ok)
	assert.EqualError(t, err, "cel evaluation error: expression 'lists.range(1000).all(i, i >= 0)' resulted in error: operation interrupted: context canceled")
	assert.ErrorIs(t, err, context.Canceled)
	// The same condition with a live context runs to the end.
	ok, err = m.Match(context.Background(), healthz)
	assert.True(t, ok)
	assert.NoError(t, err)
}

func TestAuthorizationConcurrentMatch(t *testing.T) {
	m := compile(t, "has(request.resourceAttributes)", "request.resourceAttributes.namespace == 'kube-system'", "!('system:serviceaccounts:kube-system' in request.groups)")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec, want := kubeSystemPods, false
			if i%2 == 1 {
				spec, want = healthz, false
			}
			for range 200 {
				got, err := m.Match(context.Background(), spec)
				assert.NoError(t, err)
				assert.Equal(t, want, got)
			}
		}()
	}
	wg.Wait()
}

// Concurrent compilations build each library's environment once and match
// with conditions from several environments on the same requests.
func TestAuthorizationConcurrentCompile(t *testing.T) {
	c, err := NewAuthorizationCompiler()
	require.NoError(t, err)
	exprs := []string{
		"request.user.indexOf('zz') < 0",                           // Strings, Lists
		"request.groups.sum() == ''",                               // Lists: a type error
		"request.user.matches('^system:') || request.user == ''",   // standard
		"lists.range(1).size() == 1",                               // the whole environment
		"isURL('https://' + request.resourceAttributes.namespace)", // URLs
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			expr := exprs[i%len(exprs)]
			m, errs := c.Compile([]string{expr}, field.NewPath("matchConditions"))
			if expr == "request.groups.sum() == ''" {
				assert.Len(t, errs, 1)
				return
			}
			require.Empty(t, errs, expr)
			got, err := m.Match(context.Background(), kubeSystemPods)
			assert.NoError(t, err)
			assert.True(t, got, expr)
		}()
	}
	wg.Wait()
	c.envs.mu.Lock()
	defer c.envs.mu.Unlock()
	assert.Len(t, c.envs.byKey, 5, "the standard environment and one for each other set of libraries")
}

func TestAuthorizationMatchTimed(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(time.Unix(100, 0))
	m := compile(t, "request.user == 'jane'")
	ok, end, err := m.MatchTimed(context.Background(), healthz)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.True(t, end.IsZero(), "no metrics: the clock is not read")

	m = m.WithOptions(AuthorizationMatcherOptions{Metrics: metrics.NewMemory(), Clock: clk})
	ok, end, err = m.MatchTimed(context.Background(), &authorizationv1.SubjectAccessReviewSpec{User: "jane"})
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, time.Unix(100, 0), end)
}

// request.authorizationOptions exists where kube-apiserver 1.38 declares it
// (the gate ConditionalAuthorization on), and holds the offered decision
// types only when the review offers them.
func TestAuthorizationOptions(t *testing.T) {
	const expr = "has(request.authorizationOptions) && 'Union' in request.authorizationOptions.handledDecisionTypes"
	t138, err := kube.ParseTarget("1.38")
	require.NoError(t, err)
	on, err := t138.WithFeatureGate(kube.ConditionalAuthorization, true)
	require.NoError(t, err)
	for _, target := range []kube.Target{{}, t138} {
		c, err := NewAuthorizationCompilerOf(target)
		require.NoError(t, err)
		_, errs := c.Compile([]string{expr}, field.NewPath("matchConditions"))
		require.Len(t, errs, 1, "at %s", target.Version())
		assert.Contains(t, errs[0].Error(), "undefined field 'authorizationOptions'")
	}
	c, err := NewAuthorizationCompilerOf(on)
	require.NoError(t, err)
	spec := &authorizationv1.SubjectAccessReviewSpec{User: "jane", ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get"}}
	offered := []string{"Allow", "ConditionsMap", "Deny", "NoOpinion", "Union"}
	tests := []struct {
		expr                 string
		unoffered, offeredOK bool
		unofferedErr         string
	}{
		{expr: expr, unoffered: false, offeredOK: true},
		{expr: "!has(request.authorizationOptions)", unoffered: true, offeredOK: false},
		{expr: "request.authorizationOptions.handledDecisionTypes.size() == 5", offeredOK: true, unofferedErr: "no such key: authorizationOptions"},
		{expr: "size(dyn(request)) == 6", unoffered: false, offeredOK: true},
		{expr: "'authorizationOptions' in dyn(request)", unoffered: false, offeredOK: true},
		{expr: "request.?authorizationOptions.handledDecisionTypes.orValue([]).size() == 0", unoffered: true, offeredOK: false},
		{expr: "request.user == 'jane'", unoffered: true, offeredOK: true},
	}
	for _, tc := range tests {
		m, errs := c.Compile([]string{tc.expr}, field.NewPath("matchConditions"))
		require.Empty(t, errs, tc.expr)
		ok, _, err := m.ExplainOffering(context.Background(), spec, offered)
		require.NoError(t, err, tc.expr)
		assert.Equal(t, tc.offeredOK, ok, "%s, offered", tc.expr)
		for _, match := range []func() (bool, error){
			func() (bool, error) { return m.Match(context.Background(), spec) },
			func() (bool, error) { ok, _, err := m.ExplainOffering(context.Background(), spec, nil); return ok, err },
		} {
			ok, err := match()
			if tc.unofferedErr != "" {
				require.Error(t, err, tc.expr)
				assert.Contains(t, err.Error(), tc.unofferedErr)
				continue
			}
			require.NoError(t, err, tc.expr)
			assert.Equal(t, tc.unoffered, ok, "%s, not offered", tc.expr)
		}
	}
}
