package validatingpolicy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// nativeShapes are expressions of the native shapes, and near misses.
var nativeShapes = []string{
	`object.metadata.name.startsWith("a")`,
	`has(object.metadata.labels) && 'team' in object.metadata.labels`,
	`"missing team label on " + object.metadata.name`,
	`object.spec.containers.all(c, c.image != "")`,
	`object.spec.containers.exists(c, c.name == "app" && c.image.endsWith(":latest"))`,
	`!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.hostPath))`,
	`object.spec.replicas <= 5`,
	`object.spec.replicas > 1 && object.spec.replicas < 10`,
	`has(object.spec.replicas) ? object.spec.replicas >= 2 : true`,
	`object.metadata.labels['color'] == 'red'`,
	`object.metadata.name.contains("-") || size(object.metadata.name) >= 3`,
	`object.metadata.name.size() < 64`,
	`object.spec.containers.size() > 0 && object.spec.containers[0].name != ""`,
	`oldObject == null || oldObject.metadata.name == object.metadata.name`,
	`oldObject != null && has(oldObject.spec)`,
	`object.kind in ["Pod", "Deployment"]`,
	`object.spec.replicas in [1, 2, 3]`,
	`object.spec.containers.all(c, c.ports.all(p, p.containerPort > 1024))`,
	`object.spec.containers.all(object, object.image.startsWith("registry/"))`,
	`object.metadata.name < "m" && object.metadata.name >= ""`,
	`object.spec.x == 1.0`,
	`object.spec.x == object.spec.y`,
	`object.metadata == null`,
	`object.metadata == {}`,
	`object.nosuch.x == "a"`,
	`object.metadata.name.startsWith(object.metadata.namespace)`,
	`object.spec.containers.exists(c, c.nosuch)`,
	`object.metadata.labels.all(k, k.startsWith("a"))`,
	`[object.metadata.name, "b"].exists(x, x == "b")`,
	`object.spec.replicas == 3 || object.spec.flag`,
	`!object.spec.flag`,
	`object.spec.containers[5].name == "a"`,
	`"é" + object.metadata.name`,
	`object.spec.tags.exists(t, t in object.metadata.labels)`,
	`variables.v.all(c, c.image != "")`,
	`variables.v == 3 || variables.v`,
	`variables.v > 1 && variables.v < 100`,
	`params.metadata.name == object.metadata.name`,
	`object.spec.replicas <= params.spec.replicas`,
	`params.spec.tags.exists(t, t in object.metadata.labels)`,
	`params == null`,
	`object.spec.containers.all(c, variables.v.exists(d, d.name == c.name))`,
	`request.operation == "CREATE" || oldObject.metadata.name == object.metadata.name`,
	`has(request.name) && request.name.startsWith("a") && request.namespace != "pci"`,
	`!("system:nodes" in request.userInfo.groups)`,
	`request.userInfo.username == "system:serviceaccount:" + request.namespace + ":x"`,
	`request.kind.kind == "Pod" && request.resource.resource == "pods" && !has(request.subResource)`,
	`request.userInfo.groups.exists(g, g.startsWith("system:"))`,
	`object.spec.containers.all(request, request.name != "")`,
}

// seedRequests are requests in fuzzRequest's form.
var seedRequests = []string{seedRequest, "UPDATE||||||Deployment|deployments", "CONNECT|x|kube-system|system:node:a|system:nodes|exec|Pod|pods"}

// variableShapes are expressions of the variable v.
var variableShapes = []string{
	`object.spec.containers`,
	`params.spec.replicas`,
	`has(object.metadata.labels) && "team" in object.metadata.labels`,
	`object.metadata.name.size()`,
	`variables.v`,
	`params.nosuch`,
	`object.spec.containers.map(c, c.name)`,
}

// nativeObjects are objects the fuzz target starts from.
var nativeObjects = []string{
	`{"kind":"Pod","metadata":{"name":"alpha","namespace":"dev","labels":{"team":"a","color":"red"}},"spec":{"replicas":3,"flag":true,"x":1.5,"y":null,"tags":["team","b"],"containers":[{"name":"app","image":"nginx:latest","ports":[{"containerPort":8080}]},{"name":"side","image":""}],"volumes":[{"name":"v","hostPath":{"path":"/"}}]}}`,
	`{"kind":"Deployment","metadata":{"name":"b-é\u00ff","labels":{}},"spec":{"replicas":-9223372036854775808,"containers":[],"flag":"yes"}}`,
	`{"metadata":{"name":""},"spec":{"containers":null,"replicas":1e300}}`,
}

// realworldExpressions are the expressions of the published policies in
// testdata/realworld.
func realworldExpressions(tb testing.TB) []string {
	files, err := filepath.Glob("testdata/realworld/*.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && (k == "expression" || k == "messageExpression" || k == "valueExpression") {
					out = append(out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var v any
			if yaml.Unmarshal([]byte(doc), &v) == nil {
				walk(v)
			}
		}
	}
	return out
}

var (
	nativeCompilersOnce sync.Once
	nativeCompilers     []*Compiler
	nativeCompilersErr  error
)

// compilersForVersions are compilers for every supported version.
func compilersForVersions(tb testing.TB) []*Compiler {
	nativeCompilersOnce.Do(func() {
		for _, v := range kube.SupportedVersions() {
			t, err := kube.TargetFor(v)
			if err != nil {
				nativeCompilersErr = err
				return
			}
			c, err := NewCompilerFor(t)
			if err != nil {
				nativeCompilersErr = err
				return
			}
			nativeCompilers = append(nativeCompilers, c)
		}
	})
	if nativeCompilersErr != nil {
		tb.Fatal(nativeCompilersErr)
	}
	return nativeCompilers
}

// nativeCase is an expression evaluated with a variable v, on objects and
// params.
type nativeCase struct {
	expr, variable            string
	object, oldObject, params map[string]any
	request                   *admissionv1.AdmissionRequest
	typedView                 bool
}

// fuzzRequest builds a request from fuzzed text: operation, name,
// namespace, username, groups (comma-separated), subresource, kind and
// resource, separated by '|'.
func fuzzRequest(s string) *admissionv1.AdmissionRequest {
	p := strings.Split(s, "|")
	at := func(i int) string {
		if i < len(p) {
			return p[i]
		}
		return ""
	}
	r := &admissionv1.AdmissionRequest{UID: "u", Operation: admissionv1.Operation(at(0)), Name: at(1), Namespace: at(2), SubResource: at(5)}
	r.UserInfo.Username = at(3)
	if g := at(4); g != "" {
		r.UserInfo.Groups = strings.Split(g, ",")
	}
	r.Kind.Kind, r.Resource.Resource = at(6), at(7)
	return r
}

const seedRequest = "CREATE|alpha|dev|alice|system:authenticated,dev||Pod|pods"

// variableEnvs caches the environments of variableEnv, which take
// milliseconds to build: the fuzzer mutates one input at a time.
var variableEnvs = struct {
	sync.Mutex
	m map[variableKey]variableEnvEntry
}{m: map[variableKey]variableEnvEntry{}}

type variableKey struct {
	c        *Compiler
	variable string
}

type variableEnvEntry struct {
	vars *admissioncel.PolicyVariables
	env  *admissioncel.PolicyEnv
}

// variableEnv is c's environment of validations with params and the
// variable v.
func variableEnv(t *testing.T, c *Compiler, variable string) (*admissioncel.PolicyVariables, *admissioncel.PolicyEnv) {
	variableEnvs.Lock()
	defer variableEnvs.Unlock()
	k := variableKey{c, variable}
	if e, ok := variableEnvs.m[k]; ok {
		return e.vars, e.env
	}
	vars, reg, err := admissioncel.CompileVariables(c.bases[1][1], []admissionregistrationv1.Variable{{Name: "v", Expression: variable}}, c.stored)
	if err != nil {
		t.Fatal(err)
	}
	env, err := admissioncel.WithVariables(c.bases[1][1], reg, true, c.stored)
	if err != nil {
		t.Fatal(err)
	}
	if len(variableEnvs.m) > 256 {
		clear(variableEnvs.m)
	}
	variableEnvs.m[k] = variableEnvEntry{vars, env}
	return vars, env
}

// checkNative compiles the case's expression in c's environment of
// validations (with params and the variable v) and, if it has a native
// form, compares it with the cel-go program: the same value when the native
// form answers, no error from cel-go then, and a cost (the variable's
// included) within the native bound. It reports whether the native form
// answered.
func checkNative(t *testing.T, c *Compiler, nc nativeCase) bool {
	t.Helper()
	vars, env := variableEnv(t, c, nc.variable)
	prg, checked, cerr := env.Compile(nc.expr)
	if cerr != nil {
		return false
	}
	nvars := compileNativeVariables(vars)
	native := compileNative(checked.NativeRep().Expr(), nvars)
	if native == nil {
		return false
	}
	ctx := context.Background()
	act := &admissioncel.Activation{
		Ctx:          ctx,
		Object:       admissioncel.AdmittedVal(nc.object, nc.typedView),
		OldObject:    admissioncel.AdmittedVal(nc.oldObject, nc.typedView),
		Namespace:    types.NullValue,
		AuthzRequest: nc.request,
	}
	if nc.params != nil {
		act.Params = admissioncel.TypedToVal(&unstructured.Unstructured{Object: nc.params})
	}
	vars.Bind(act)
	want, cost, err := prg.Eval(ctx, act)
	cost += uint64(act.VariablesCost)
	nenv := &nativeEnv{ctx: ctx, object: nc.object, oldObject: nc.oldObject, params: nc.params, vars: nvars.newState(), request: nc.request}
	got, bound, ok := native.run(nenv)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s (v = %s, %v): native %v, cel-go error %v", nc.expr, nc.variable, c.kube, got, err)
	}
	if !sameVal(got, want) {
		t.Fatalf("%s (v = %s, %v): native %v, cel-go %v", nc.expr, nc.variable, c.kube, got, want)
	}
	if bound < cost {
		t.Fatalf("%s (v = %s, %v): native bound %d below cel-go's cost %d", nc.expr, nc.variable, c.kube, bound, cost)
	}
	return true
}

// checkNativePolicy evaluates a policy whose validation, messageExpression
// and audit annotation are the case's expression, with and without native
// expressions: the same decisions and annotations.
func checkNativePolicy(t *testing.T, c *Compiler, nc nativeCase) {
	t.Helper()
	p := c.Compile(policy("p", paramKind("v1", "ConfigMap"),
		variables(admissionregistrationv1.Variable{Name: "v", Expression: nc.variable}),
		validations(admissionregistrationv1.Validation{Expression: nc.expr, MessageExpression: nc.expr}, expr(`false`)),
		annotations(admissionregistrationv1.AuditAnnotation{Key: "k", ValueExpression: nc.expr})))
	in := &evalInput{request: nc.request, object: nc.object, oldObject: nc.oldObject, params: nc.params, typedView: nc.typedView}
	got := p.validate(context.Background(), in)
	in.explain = true
	want := p.validate(context.Background(), in)
	if !equalDecisions(got.decisions, want.decisions) {
		t.Fatalf("%s (v = %s, %v): native decisions %+v, cel-go %+v", nc.expr, nc.variable, c.kube, got.decisions, want.decisions)
	}
	if len(got.annotations) != len(want.annotations) {
		t.Fatalf("%s: annotations %+v, %+v", nc.expr, got.annotations, want.annotations)
	}
	for i := range got.annotations {
		if got.annotations[i] != want.annotations[i] {
			t.Fatalf("%s (v = %s, %v): native annotation %+v, cel-go %+v", nc.expr, nc.variable, c.kube, got.annotations[i], want.annotations[i])
		}
	}
}

func sameVal(a, b ref.Val) bool {
	return a.Type() == b.Type() && a.Equal(b) == types.True
}

func decodeObject(s string) map[string]any {
	var m map[string]any
	if utiljson.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

// TestNativeShapes checks that the shapes are compiled natively and agree
// with cel-go on the seed objects, in every version.
func TestNativeShapes(t *testing.T) {
	answered := map[string]bool{}
	for _, c := range compilersForVersions(t) {
		for k, expr := range nativeShapes {
			for i, o := range nativeObjects {
				for _, typed := range []bool{false, true} {
					for j, old := range []map[string]any{decodeObject(nativeObjects[(i+1)%len(nativeObjects)]), nil} {
						nc := nativeCase{expr: expr, variable: variableShapes[(k+j)%len(variableShapes)], object: decodeObject(o), oldObject: old,
							params: decodeObject(nativeObjects[(i+2)%len(nativeObjects)]), typedView: typed, request: fuzzRequest(seedRequests[(i+j)%len(seedRequests)])}
						if checkNative(t, c, nc) {
							answered[expr] = true
						}
						checkNativePolicy(t, c, nc)
					}
				}
			}
		}
	}
	c := compilersForVersions(t)[0]
	for _, nc := range []nativeCase{
		{expr: `variables.v.all(c, c.image != "")`, variable: `object.spec.containers`},
		{expr: `object.spec.containers.all(c, variables.v.exists(d, d.name == c.name))`, variable: `object.spec.containers`},
		{expr: `variables.v > 1 && variables.v < 100`, variable: `params.spec.replicas`},
	} {
		nc.object, nc.params = decodeObject(nativeObjects[0]), decodeObject(`{"metadata":{"name":"p"},"spec":{"replicas":3}}`)
		nc.request = fuzzRequest(seedRequest)
		if !checkNative(t, c, nc) {
			t.Errorf("%s (v = %s): not answered natively", nc.expr, nc.variable)
		}
	}
	for _, expr := range []string{
		`object.metadata.name.startsWith("a")`,
		`has(object.metadata.labels) && 'team' in object.metadata.labels`,
		`"missing team label on " + object.metadata.name`,
		`object.spec.containers.all(c, c.image != "")`,
		`object.spec.containers.all(c, c.ports.all(p, p.containerPort > 1024))`,
		`oldObject == null || oldObject.metadata.name == object.metadata.name`,
		`params.metadata.name == object.metadata.name`,
		`!("system:nodes" in request.userInfo.groups)`,
		`has(request.name) && request.name.startsWith("a") && request.namespace != "pci"`,
	} {
		if !answered[expr] {
			t.Errorf("%s: never answered natively", expr)
		}
	}
}

// FuzzNativeValidations evaluates expressions of the native shapes and near
// misses on random objects with the native closures and with cel-go, in
// every version: when the closure answers, it gives cel-go's value, cel-go
// gives no error, and cel-go's cost is within the closure's bound.
func FuzzNativeValidations(f *testing.F) {
	exprs := append(append([]string{}, nativeShapes...), realworldExpressions(f)...)
	for i, e := range exprs {
		f.Add(e, variableShapes[i%len(variableShapes)], nativeObjects[i%len(nativeObjects)], nativeObjects[(i+1)%len(nativeObjects)], nativeObjects[(i+2)%len(nativeObjects)], seedRequests[i%len(seedRequests)], uint8(i))
	}
	compilers := compilersForVersions(f)
	f.Fuzz(func(t *testing.T, expr, variable, object, oldObject, params, request string, mode uint8) {
		c := compilers[int(mode>>3)%len(compilers)]
		nc := nativeCase{expr: expr, variable: variable, object: decodeObject(object), params: decodeObject(params), request: fuzzRequest(request), typedView: mode&1 != 0}
		if mode&2 != 0 {
			nc.oldObject = decodeObject(oldObject)
		}
		if mode&4 != 0 {
			nc.params = nil
		}
		checkNative(t, c, nc)
		checkNativePolicy(t, c, nc)
	})
}

// TestNativeBudgetFallback checks that natives whose bounds cross the
// budget give way to cel-go: twelve validations that cel-go evaluates
// within the budget but whose bounds together exceed it.
func TestNativeBudgetFallback(t *testing.T) {
	items := make([]any, 90_000)
	for i := range items {
		items[i] = "x"
	}
	obj := map[string]any{"metadata": map[string]any{"name": "a"}, "items": items}
	var vs []admissionregistrationv1.Validation
	for range 12 {
		vs = append(vs, admissionregistrationv1.Validation{Expression: `object.items.all(i, i != "z")`})
	}
	vs = append(vs, admissionregistrationv1.Validation{Expression: `object.metadata.name == "b"`, MessageExpression: `"name " + object.metadata.name`})
	c, err := NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	p := c.Compile(policy("p", validations(vs...)))
	if p.validations[0].native == nil {
		t.Fatal("no native form")
	}
	in := &evalInput{request: &admissionv1.AdmissionRequest{}, object: obj}
	got := p.validate(context.Background(), in)
	in.explain = true
	want := p.validate(context.Background(), in)
	if len(got.decisions) != 13 || !got.decisions[12].deny || got.decisions[12].message != "name a" {
		t.Fatalf("decisions: %+v", got.decisions)
	}
	for i := range got.decisions {
		got.decisions[i].elapsed, want.decisions[i].elapsed = 0, 0
	}
	if !equalDecisions(got.decisions, want.decisions) {
		t.Fatalf("native %+v, cel-go %+v", got.decisions, want.decisions)
	}
	// The bounds do cross the budget: 12 of them at 90,000 elements.
	_, bound, ok := p.validations[0].native.run(&nativeEnv{ctx: context.Background(), object: obj})
	if !ok || 12*bound <= 10_000_000 || bound > 1_000_000 {
		t.Fatalf("bound %d (%v) does not exercise the fallback", bound, ok)
	}
}

func equalDecisions(a, b []decision) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
