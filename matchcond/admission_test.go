package matchcond

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	testingclock "k8s.io/utils/clock/testing"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

var testAdmissionCompiler = sync.OnceValues(NewAdmissionCompiler)

func admissionCompiler(t testing.TB) *AdmissionCompiler {
	t.Helper()
	c, err := testAdmissionCompiler()
	require.NoError(t, err)
	return c
}

func conditions(exprs ...string) []admissionregistrationv1.MatchCondition {
	out := make([]admissionregistrationv1.MatchCondition, len(exprs))
	for i, e := range exprs {
		out[i] = admissionregistrationv1.MatchCondition{Name: "c" + string(rune('0'+i)), Expression: e}
	}
	return out
}

func compileAdmission(t testing.TB, o AdmissionOptions, exprs ...string) *AdmissionMatcher {
	t.Helper()
	m, err := admissionCompiler(t).Compile(conditions(exprs...), o)
	require.NoError(t, err)
	return m
}

// recordingAuthorizer records the checks it is asked and allows "get".
type recordingAuthorizer struct {
	mu     sync.Mutex
	checks []AuthorizationAttributes
}

func (a *recordingAuthorizer) Authorize(_ context.Context, attrs *AuthorizationAttributes) (Decision, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.checks = append(a.checks, *attrs)
	if attrs.Verb == "get" {
		return DecisionAllow, "gets are fine", nil
	}
	return DecisionNoOpinion, "", nil
}

func podCreate() *AdmissionAttributes {
	return &AdmissionAttributes{
		Request: &admissionv1.AdmissionRequest{
			Kind:            metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource:        metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			RequestKind:     &metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			RequestResource: &metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Name:            "web",
			Namespace:       "default",
			Operation:       admissionv1.Create,
			UserInfo:        authenticationv1.UserInfo{Username: "alice", Groups: []string{"dev"}, Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a"}}},
			DryRun:          new(bool),
		},
		Object: &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
		},
	}
}

func TestAdmissionMatch(t *testing.T) {
	ignore := admissionregistrationv1.Ignore
	broken := "request.userInfo.groups[3] == ''"
	brokenErr := "expression 'request.userInfo.groups[3] == ''' resulted in error: index out of bounds: 3"
	tests := []struct {
		name  string
		exprs []string
		o     AdmissionOptions
		want  AdmissionMatchResult
	}{
		{"no conditions", nil, AdmissionOptions{}, AdmissionMatchResult{Matches: true}},
		{"all true", []string{"request.operation == 'CREATE'", "object.metadata.labels.app == 'web'"}, AdmissionOptions{}, AdmissionMatchResult{Matches: true}},
		{"the first false names the condition", []string{"true", "object.spec.containers.size() > 1", "false"}, AdmissionOptions{}, AdmissionMatchResult{FailedConditionName: "c1"}},
		{"a false wins over errors, before or after", []string{broken, "false", broken}, AdmissionOptions{}, AdmissionMatchResult{FailedConditionName: "c1"}},
		{"Fail returns the errors", []string{broken, "true", "has(request.name)"}, AdmissionOptions{}, AdmissionMatchResult{Error: aggregate(brokenErr)}},
		{"Ignore excludes on errors", []string{broken, "true"}, AdmissionOptions{FailurePolicy: &ignore}, AdmissionMatchResult{}},
		{"omitempty fields are absent", []string{"request.subResource == ''"}, AdmissionOptions{}, AdmissionMatchResult{Error: aggregate("expression 'request.subResource == ''' resulted in error: no such key: subResource")}},
		{"compilation errors fail at evaluation", []string{"request.foo"}, AdmissionOptions{}, AdmissionMatchResult{Error: aggregate("compilation error: compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo\n | .......^")}},
		{"result type", []string{"object.metadata.name"}, AdmissionOptions{}, AdmissionMatchResult{Error: aggregate("compilation error: must evaluate to bool but got dyn")}},
		{"namespaceObject is null", []string{"namespaceObject == null"}, AdmissionOptions{}, AdmissionMatchResult{Matches: true}},
		{"oldObject is null on create", []string{"oldObject == null && object != null"}, AdmissionOptions{}, AdmissionMatchResult{Matches: true}},
		{"params are not declared for webhooks", []string{"params == null"}, AdmissionOptions{}, AdmissionMatchResult{Error: aggregate("compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^")}},
		{"params are null without a param", []string{"params == null"}, AdmissionOptions{Policy: true, HasParams: true}, AdmissionMatchResult{Matches: true}},
		{"variables", []string{"variables.n == 2", "variables.m == 3"}, AdmissionOptions{Policy: true, Variables: []admissionregistrationv1.Variable{{Name: "n", Expression: "1 + 1"}, {Name: "m", Expression: "variables.n + 1"}}}, AdmissionMatchResult{Matches: true}},
		{"a variable may not use a later one", []string{"variables.n == 2"}, AdmissionOptions{Policy: true, Variables: []admissionregistrationv1.Variable{{Name: "n", Expression: "variables.m"}, {Name: "m", Expression: "1"}}},
			AdmissionMatchResult{Error: aggregate("expression 'variables.n == 2' resulted in error: composited variable \"n\" fails to compile: compilation failed: ERROR: <input>:1:10: undefined field 'm'\n | variables.m\n | .........^")}},
		{"a variable that refers to itself", []string{"variables.n == 2"}, AdmissionOptions{Policy: true, Variables: []admissionregistrationv1.Variable{{Name: "n", Expression: "1"}, {Name: "n", Expression: "variables.n + 1"}}},
			AdmissionMatchResult{Error: aggregate("expression 'variables.n == 2' resulted in error: composited variable \"n\" fails to evaluate: composited variable \"n\" refers to itself")}},
		{"out of budget", []string{"lists.range(900000).size() > 0", "false", "lists.range(900000).size() > 0", "lists.range(900000).size() > 0", "lists.range(900000).size() > 0"}, AdmissionOptions{},
			AdmissionMatchResult{Error: ErrOutOfBudget}},
		{"out of budget, ignored", []string{"lists.range(900000).size() > 0", "lists.range(900000).size() > 0", "lists.range(900000).size() > 0", "lists.range(900000).size() > 0"}, AdmissionOptions{FailurePolicy: &ignore},
			AdmissionMatchResult{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compileAdmission(t, tt.o, tt.exprs...).Match(context.Background(), podCreate())
			assert.Equal(t, tt.want.Matches, got.Matches)
			assert.Equal(t, tt.want.FailedConditionName, got.FailedConditionName)
			if tt.want.Error == nil {
				assert.NoError(t, got.Error)
			} else {
				assert.EqualError(t, got.Error, tt.want.Error.Error())
			}
		})
	}
}

func aggregate(msg string) error { return &exprError{detail: msg} }

func TestAdmissionVariablesAreComputedOnce(t *testing.T) {
	authz := &recordingAuthorizer{}
	m := compileAdmission(t, AdmissionOptions{Policy: true, Variables: []admissionregistrationv1.Variable{
		{Name: "canGet", Expression: "authorizer.requestResource.check('get').allowed()"},
		{Name: "unused", Expression: "authorizer.path('/x').check('get').allowed()"},
	}}, "variables.canGet", "variables.canGet && variables.canGet", "variables.canGet")
	a := podCreate()
	a.Authorizer = authz
	assert.True(t, m.Match(context.Background(), a).Matches)
	require.Len(t, authz.checks, 1, "one check: canGet once, unused never")
	c := authz.checks[0]
	assert.Equal(t, "get", c.Verb)
	assert.True(t, c.ResourceRequest)
	assert.Equal(t, "pods", c.Resource)
	assert.Equal(t, "default", c.Namespace)
	assert.Equal(t, "web", c.Name)
	require.NotNil(t, c.User)
	assert.Equal(t, "alice", c.User.Name)
	assert.Equal(t, map[string][]string{"scopes": {"a"}}, c.User.Extra)

	// Each call computes the variables again.
	assert.True(t, m.Match(context.Background(), a).Matches)
	assert.Len(t, authz.checks, 2)
}

func TestAdmissionWithoutAuthorizer(t *testing.T) {
	r := compileAdmission(t, AdmissionOptions{}, "authorizer.path('/').check('get').allowed()").Match(context.Background(), podCreate())
	assert.EqualError(t, r.Error, "expression 'authorizer.path('/').check('get').allowed()' resulted in error: no such attribute(s): authorizer")
}

func TestAdmissionUnstructuredObjects(t *testing.T) {
	a := podCreate()
	a.Object = &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": int64(3)}}}
	a.OldObject = &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"replicas": int64(2)}}}
	m := compileAdmission(t, AdmissionOptions{}, "object.spec.replicas > oldObject.spec.replicas", "!has(object.metadata)")
	assert.True(t, m.Match(context.Background(), a).Matches)
	a.OldObject = (*unstructured.Unstructured)(nil) // kube-apiserver would panic
	assert.EqualError(t, m.Match(context.Background(), a).Error, "expression 'object.spec.replicas > oldObject.spec.replicas' resulted in error: no such key: spec")
}

func TestAdmissionMetrics(t *testing.T) {
	sink := metrics.NewMemory()
	clk := fixedClock{testingclock.NewFakePassiveClock(time.Unix(0, 0)), 3 * time.Millisecond}
	broken := "request.userInfo.groups[3] == ''"
	for _, policy := range []bool{false, true} {
		o := AdmissionOptions{Policy: policy, Name: "x", Type: "admit", Metrics: sink, Clock: clk}
		for _, exprs := range [][]string{{"true"}, {"false"}, {broken, broken, "false", broken}, {broken, "true"}} {
			compileAdmission(t, o, exprs...).Match(context.Background(), podCreate())
		}
	}
	for _, kind := range []string{"webhook", "policy"} {
		labels := []string{"x", kind, "admit", "CREATE"}
		// Seconds: not for the plain match.
		assert.Equal(t, uint64(3), sink.HistogramOf(metrics.AdmissionMatchConditionDuration, labels...).Count, kind)
		assert.InDelta(t, 0.009, sink.HistogramOf(metrics.AdmissionMatchConditionDuration, labels...).Sum, 1e-9, kind)
		// Errors: one per failed condition before the first false.
		assert.Equal(t, 3.0, sink.Value(metrics.AdmissionMatchConditionErrors, labels...), kind)
	}
	// Exclusions: recorded for webhooks only, as kube-apiserver's dispatcher does.
	assert.Equal(t, 2.0, sink.Value(metrics.AdmissionMatchConditionExclusions, "x", "webhook", "admit", "CREATE"))
	assert.Equal(t, 0.0, sink.Value(metrics.AdmissionMatchConditionExclusions, "x", "policy", "admit", "CREATE"))
	assert.Empty(t, sink.Errors())
}

func TestAdmissionValidate(t *testing.T) {
	path := field.NewPath("webhooks").Index(0).Child("matchConditions")
	tooMany := make([]admissionregistrationv1.MatchCondition, 65)
	for i := range tooMany {
		tooMany[i] = admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", i), Expression: "true"}
	}
	tooMany[3].Expression = ""
	nameMsg := "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	tests := []struct {
		name      string
		conds     []admissionregistrationv1.MatchCondition
		hasParams bool
		want      []string
	}{
		{"valid", []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "true"}, {Name: "example.com/b", Expression: "request.name != ''"}}, false, nil},
		{"too many, and the rest is checked", tooMany, false, []string{
			"webhooks[0].matchConditions: Too many: 65: must have at most 64 items",
			"webhooks[0].matchConditions[3].expression: Required value",
		}},
		{"expression and name required", []admissionregistrationv1.MatchCondition{{Expression: " \n"}}, false, []string{
			"webhooks[0].matchConditions[0].expression: Required value",
			"webhooks[0].matchConditions[0].name: Required value",
		}},
		{"the trimmed expression is compiled", []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "  1 "}}, false, []string{
			`webhooks[0].matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int`,
		}},
		{"no params in webhooks", []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "params == null"}}, false, []string{
			"webhooks[0].matchConditions[0].expression: Invalid value: \"params == null\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^",
		}},
		{"params in policies with a paramKind", []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "params == null"}}, true, nil},
		{"no variables in match conditions", []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "variables.x"}}, true, []string{
			"webhooks[0].matchConditions[0].expression: Invalid value: \"variables.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.x\n | ^",
		}},
		{"internal error", []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "'a'.find('(') == ''"}}, false, []string{
			"webhooks[0].matchConditions[0].expression: Internal error: program instantiation failed: error parsing regexp: missing closing ): `(`",
		}},
		{"names", []admissionregistrationv1.MatchCondition{{Name: "a b", Expression: "true"}, {Name: "a b", Expression: "false"}, {Name: "-x", Expression: "true"}}, false, []string{
			`webhooks[0].matchConditions[0].name: Invalid value: "a b": ` + nameMsg,
			`webhooks[0].matchConditions[1].name: Invalid value: "a b": ` + nameMsg,
			`webhooks[0].matchConditions[1].name: Duplicate value: "a b"`,
			`webhooks[0].matchConditions[2].name: Invalid value: "-x": ` + nameMsg,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range admissionCompiler(t).Validate(tt.conds, AdmissionValidateOptions{HasParams: tt.hasParams}, path) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// includes() is 1.37's: kube-apiserver checks what a write adds or changes
// at compatibility version 1.36, and accepts what is already stored.
func TestAdmissionValidateNewAndStoredExpressions(t *testing.T) {
	path := field.NewPath("webhooks").Index(0).Child("matchConditions")
	tests := []struct {
		name        string
		conds       []admissionregistrationv1.MatchCondition
		hasParams   bool
		preexisting []string
		want        []string
	}{
		{name: "a new expression: no includes()", conds: []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "[1].includes(1)"}}, want: []string{
			"webhooks[0].matchConditions[0].expression: Invalid value: \"[1].includes(1)\": compilation failed: ERROR: <input>:1:13: undeclared reference to 'includes' (in container '')\n | [1].includes(1)\n | ............^",
		}},
		{name: "a stored expression: includes()", conds: []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "[1].includes(1)"}}, preexisting: []string{"[1].includes(1)"}},
		{name: "stored, with params", conds: []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "[params].includes(1)"}}, hasParams: true, preexisting: []string{"[params].includes(1)"}},
		{name: "the trimmed expression is looked up as written", conds: []admissionregistrationv1.MatchCondition{{Name: "a", Expression: " [1].includes(1)"}}, preexisting: []string{" [1].includes(1)"}, want: []string{
			"webhooks[0].matchConditions[0].expression: Invalid value: \"[1].includes(1)\": compilation failed: ERROR: <input>:1:13: undeclared reference to 'includes' (in container '')\n | [1].includes(1)\n | ............^",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range admissionCompiler(t).Validate(tt.conds, AdmissionValidateOptions{HasParams: tt.hasParams, Preexisting: tt.preexisting}, path) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAdmissionCompileErrors(t *testing.T) {
	m := compileAdmission(t, AdmissionOptions{Policy: true, Variables: []admissionregistrationv1.Variable{{Name: "v", Expression: "1 +"}}}, "true", "x")
	errs := m.CompileErrors()
	require.Len(t, errs, 2)
	assert.Contains(t, errs[0].Error(), `variable "v": compilation failed: ERROR: <input>:1:4: Syntax error`)
	assert.Contains(t, errs[1].Error(), `match condition "c1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'x'`)
}

func TestAdmissionConcurrentMatch(t *testing.T) {
	m := compileAdmission(t, AdmissionOptions{Policy: true, Variables: []admissionregistrationv1.Variable{{Name: "app", Expression: "object.metadata.labels.app"}}},
		"variables.app == 'web'", "request.userInfo.groups.exists(g, g == 'dev')")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				r := m.Match(context.Background(), podCreate())
				assert.True(t, r.Matches)
				assert.NoError(t, r.Error)
			}
		})
	}
	wg.Wait()
}

// A policy's expressions are compiled in the environment of the libraries
// they call; one that calls a library's macro or names a qualified function
// in the whole environment.
func TestAdmissionPolicyEnvironmentOfItsLibraries(t *testing.T) {
	c, err := NewAdmissionCompiler()
	require.NoError(t, err)
	tests := []struct {
		variables []admissionregistrationv1.Variable
		condition string
		libs      icel.Libraries
	}{
		{[]admissionregistrationv1.Variable{{Name: "n", Expression: "object.metadata.name"}}, "variables.n == 'web'", 0},
		{[]admissionregistrationv1.Variable{{Name: "q", Expression: "quantity('1Gi')"}}, "variables.q.isGreaterThan(quantity('1Mi'))", icel.LibraryQuantity | icel.LibrarySemver},
		{[]admissionregistrationv1.Variable{{Name: "h", Expression: "url('https://' + object.metadata.name).getHost()"}}, "variables.h.matches('^w')", icel.LibraryURLs},
		{[]admissionregistrationv1.Variable{{Name: "i", Expression: "request.userInfo.groups.indexOf('dev')"}}, "variables.i == 0", icel.LibraryStrings | icel.LibraryLists},
		{[]admissionregistrationv1.Variable{{Name: "r", Expression: "lists.range(2)"}}, "variables.r.size() == 2", icel.AllLibraries},
		{[]admissionregistrationv1.Variable{{Name: "c", Expression: "object.spec.containers"}}, "variables.c.all(i, c, c.name != '')", icel.AllLibraries},
	}
	for _, tt := range tests {
		t.Run(tt.condition, func(t *testing.T) {
			m, err := c.Compile(conditions(tt.condition), AdmissionOptions{Policy: true, Variables: tt.variables})
			require.NoError(t, err)
			require.Empty(t, m.CompileErrors())
			r := m.Match(context.Background(), podCreate())
			assert.True(t, r.Matches, "%+v", r)
			assert.NoError(t, r.Error)
			assert.True(t, c.bases.Has(tt.libs), "the environment of libraries %b", tt.libs)
			assert.Equal(t, tt.libs, c.parseAll(append([]string{tt.variables[0].Expression}, tt.condition), admissionVariables(AdmissionOptions{Policy: true})).libs)
		})
	}
}

// fixedClock reports that every evaluation took the same time.
type fixedClock struct {
	*testingclock.FakePassiveClock
	took time.Duration
}

func (c fixedClock) Since(time.Time) time.Duration { return c.took }
