package mutationpatch

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var (
	podGVK        = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	configMapGVK  = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	serviceGVK    = schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	widgetGVK     = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
)

// The objects the tests patch: the sidecar benchmark's Pod, a Deployment, a
// ConfigMap, a Service, and a custom resource.
const (
	testPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"frontend"},"annotations":{"note":"x"}},
	 "spec":{"initContainers":[{"name":"init","image":"busybox","command":["sh","-c","true"]}],
	  "containers":[{"name":"app","image":"nginx:1.27","args":["--port","8080"],"ports":[{"containerPort":8080,"protocol":"TCP"}],
	   "env":[{"name":"A","value":"1"},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
	   "resources":{"limits":{"cpu":"500m","memory":"128Mi"}},"volumeMounts":[{"name":"data","mountPath":"/data"}]}],
	  "volumes":[{"name":"data","emptyDir":{}}],"nodeSelector":{"disk":"ssd"}}}`
	testDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"app":"d"}},
	 "spec":{"replicas":3,"selector":{"matchLabels":{"app":"d"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
	  "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"0.5"}}}]}}}}`
	testConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"two"}}`
	testService   = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":8080}],"selector":{"app":"s"}}}`
	testWidget    = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":2,"ratio":0.5,"big":1e30,"tags":["a","b"],"nested":{"x":null,"y":[1,2.5,"z",true]}}}`
)

// testKinds are the kinds the differential tests patch: built-in kinds
// typed (mutating policies) and as unstructured content (webhooks), and a
// custom resource.
var testKinds = []struct {
	gvk     schema.GroupVersionKind
	builtin bool
	doc     string
}{
	{podGVK, true, testPod},
	{deploymentGVK, true, testDeployment},
	{configMapGVK, true, testConfigMap},
	{serviceGVK, true, testService},
	{widgetGVK, false, testWidget},
	{podGVK, false, testPod},
}

func decodeObject(tb testing.TB, doc string) map[string]any {
	tb.Helper()
	var obj map[string]any
	require.NoError(tb, utiljson.Unmarshal([]byte(doc), &obj))
	return obj
}

// agreeFast checks the fast path either declines or gives the exact path's
// result (reflect.DeepEqual, the object itself when the exact path returns
// it), without modifying object; it returns whether it handled the patch.
func agreeFast(tb testing.TB, ops []byte, object map[string]any, gvk schema.GroupVersionKind, builtin bool) bool {
	tb.Helper()
	tk, err := builtinTypes()
	require.NoError(tb, err)
	before := fmt.Sprintf("%#v", object)
	fast, ok := tk.fastJSONPatch(ops, object, gvk, builtin)
	if fmt.Sprintf("%#v", object) != before {
		tb.Fatalf("fast path modified the object: %v", object)
	}
	want, wantErr := tk.exactJSONPatch(ops, object, gvk, builtin)
	got, gotErr := JSONPatch(ops, object, gvk, builtin)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
		tb.Fatalf("JSONPatch %s: %#v, %v; exact path %#v, %v", ops, got, gotErr, want, wantErr)
	}
	if !ok {
		return false
	}
	if wantErr != nil {
		tb.Fatalf("fast path handled %s on %v (%v), the exact path fails: %v", ops, gvk, fast, wantErr)
	}
	if !reflect.DeepEqual(fast, want) {
		tb.Fatalf("patch %s on %v:\nfast:  %#v\nexact: %#v", ops, gvk, fast, want)
	}
	same, wantSame := sameMap(fast, object), sameMap(want, object)
	if same != wantSame {
		tb.Fatalf("patch %s: fast path returns the object itself: %v, exact path: %v", ops, same, wantSame)
	}
	if !same {
		containers := map[unsafe.Pointer]bool{}
		walkContainers(object, func(p unsafe.Pointer) { containers[p] = true })
		walkContainers(fast, func(p unsafe.Pointer) {
			if containers[p] {
				tb.Fatalf("patch %s: the result shares a map or slice with the object", ops)
			}
		})
	}
	return true
}

// walkContainers calls f with the identity of every map and non-empty
// slice of v.
func walkContainers(v any, f func(unsafe.Pointer)) {
	switch x := v.(type) {
	case map[string]any:
		if x != nil {
			f(reflect.ValueOf(x).UnsafePointer())
		}
		for _, e := range x {
			walkContainers(e, f)
		}
	case []any:
		if len(x) > 0 {
			f(unsafe.Pointer(&x[0]))
		}
		for _, e := range x {
			walkContainers(e, f)
		}
	}
}

func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestFastJSONPatch(t *testing.T) {
	tests := []struct {
		name    string
		gvk     schema.GroupVersionKind
		builtin bool
		doc     string
		ops     string
		handled bool
	}{
		{"sidecar", podGVK, true, testPod, `[{"op":"add","path":"/spec/initContainers/-","value":{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}}]`, true},
		{"sidecar unstructured", podGVK, false, testPod, `[{"op":"add","path":"/spec/initContainers/-","value":{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}}]`, true},
		{"empty patch", podGVK, true, testPod, `[]`, true},
		{"null patch", widgetGVK, false, testWidget, `null`, true},
		{"add label", podGVK, true, testPod, `[{"op":"add","path":"/metadata/labels/env","value":"prod"}]`, true},
		{"add escaped key", podGVK, true, testPod, `[{"op":"add","path":"/metadata/annotations/example.com~1a~0b","value":"v"}]`, true},
		{"add replaces existing", configMapGVK, true, testConfigMap, `[{"op":"add","path":"/data/a","value":"9"}]`, true},
		{"add at index", podGVK, true, testPod, `[{"op":"add","path":"/spec/containers/0/args/1","value":"x"}]`, true},
		{"add at length", podGVK, true, testPod, `[{"op":"add","path":"/spec/containers/0/args/2","value":"x"}]`, true},
		{"add past length", podGVK, true, testPod, `[{"op":"add","path":"/spec/containers/0/args/3","value":"x"}]`, false},
		{"add at -1 appends", podGVK, true, testPod, `[{"op":"add","path":"/spec/containers/0/args/-1","value":"x"}]`, true},
		{"add at -3 prepends", podGVK, true, testPod, `[{"op":"add","path":"/spec/containers/0/args/-3","value":"x"}]`, true},
		{"add at -4", podGVK, true, testPod, `[{"op":"add","path":"/spec/containers/0/args/-4","value":"x"}]`, false},
		{"add at +1 and 01", podGVK, true, testPod, `[{"op":"add","path":"/spec/containers/0/args/+1","value":"x"},{"op":"add","path":"/spec/containers/0/args/01","value":"y"}]`, true},
		{"add missing parent", podGVK, true, testPod, `[{"op":"add","path":"/spec/nope/x","value":"x"}]`, false},
		{"add through null", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/nested/x/y","value":1}]`, false},
		{"add through scalar", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/size/y","value":1}]`, false},
		{"add without value", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/v"}]`, true},
		{"add null", configMapGVK, true, testConfigMap, `[{"op":"add","path":"/data","value":null}]`, true},
		{"add into added value", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/n","value":{"a":[1]}},{"op":"add","path":"/spec/n/a/0","value":0},{"op":"replace","path":"/spec/n/b","value":2}]`, true},
		{"prefix ignored", podGVK, true, testPod, `[{"op":"add","path":"x/metadata/labels/a","value":"b"}]`, true},
		{"no slash", podGVK, true, testPod, `[{"op":"add","path":"metadata","value":{}}]`, false},
		{"root", podGVK, true, testPod, `[{"op":"replace","path":"","value":{}}]`, false},
		{"root key empty", widgetGVK, false, testWidget, `[{"op":"add","path":"/","value":1}]`, true},
		{"replace", deploymentGVK, true, testDeployment, `[{"op":"replace","path":"/spec/replicas","value":5}]`, true},
		{"replace missing key adds", deploymentGVK, true, testDeployment, `[{"op":"replace","path":"/spec/paused","value":true}]`, true},
		{"replace index", podGVK, true, testPod, `[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:2"},{"op":"replace","path":"/spec/containers/0/args/-1","value":"9090"}]`, true},
		{"replace index out of range", podGVK, true, testPod, `[{"op":"replace","path":"/spec/containers/0/args/2","value":"x"}]`, false},
		{"replace dash", podGVK, true, testPod, `[{"op":"replace","path":"/spec/containers/0/args/-","value":"x"}]`, false},
		{"remove", podGVK, true, testPod, `[{"op":"remove","path":"/metadata/annotations/note"},{"op":"remove","path":"/spec/containers/0/args/0"}]`, true},
		{"remove missing", podGVK, true, testPod, `[{"op":"remove","path":"/metadata/annotations/nope"}]`, false},
		{"remove negative", podGVK, true, testPod, `[{"op":"remove","path":"/spec/containers/0/args/-2"}]`, true},
		{"remove last element", podGVK, true, testPod, `[{"op":"remove","path":"/spec/initContainers/0"}]`, true},
		{"remove required field", podGVK, true, testPod, `[{"op":"remove","path":"/spec/containers/0/name"}]`, true},
		{"volsync jitter", deploymentGVK, true, testDeployment, `[{"op":"add","path":"/spec/template/spec/initContainers","value":[]},{"op":"add","path":"/spec/template/spec/initContainers/-","value":{"name":"jitter","image":"busybox","imagePullPolicy":"IfNotPresent","command":["sh","-c","sleep $(shuf -i 0-30 -n 1) && echo <done>"]}}]`, true},
		{"kubevirt claims", podGVK, true, testPod, `[{"op":"replace","path":"/spec/containers/0/resources","value":{"claims":[{"name":"gpu"}]}}]`, true},
		{"int to int field", deploymentGVK, true, testDeployment, `[{"op":"replace","path":"/spec/replicas","value":2}]`, true},
		{"float literal int field", deploymentGVK, true, testDeployment, `[{"op":"replace","path":"/spec/replicas","value":2.0}]`, false},
		{"exponent int field", deploymentGVK, true, testDeployment, `[{"op":"replace","path":"/spec/replicas","value":2e0}]`, false},
		{"fraction int field", deploymentGVK, true, testDeployment, `[{"op":"replace","path":"/spec/replicas","value":2.5}]`, false},
		{"quantity number", deploymentGVK, true, testDeployment, `[{"op":"add","path":"/spec/template/spec/containers/0/resources/limits","value":{"cpu":1.5,"memory":"1Gi"}}]`, true},
		{"intstr", serviceGVK, true, testService, `[{"op":"replace","path":"/spec/ports/0/targetPort","value":"http"}]`, true},
		{"unknown field", podGVK, true, testPod, `[{"op":"add","path":"/spec/nope","value":1}]`, false},
		{"case mismatch", podGVK, true, testPod, `[{"op":"add","path":"/spec/NodeName","value":"n"}]`, false},
		{"unknown field unstructured", podGVK, false, testPod, `[{"op":"add","path":"/spec/nope","value":1}]`, true},
		{"duplicate key", configMapGVK, true, testConfigMap, `[{"op":"add","path":"/data","value":{"a":"1","a":"2"}}]`, false},
		{"string escapes", configMapGVK, true, testConfigMap, `[{"op":"add","path":"/data/c","value":"a\u003c\"b\\\u00e9 && <x>"}]`, true},
		{"invalid utf-8 escape", configMapGVK, true, testConfigMap, `[{"op":"add","path":"/data/c","value":"\ud800"}]`, true},
		{"numbers unstructured", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/n","value":[2.0,1e3,-0,-0.0,1.50,12345678901234567890,9223372036854775807]}]`, true},
		{"number out of range", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/n","value":1e400}]`, false},
		{"kind changed", widgetGVK, false, testWidget, `[{"op":"replace","path":"/kind","value":""}]`, false},
		{"kind changed typed", podGVK, true, testPod, `[{"op":"replace","path":"/kind","value":"Service"}]`, false},
		{"unknown op", podGVK, true, testPod, `[{"op":"ADD","path":"/metadata/labels/a","value":"b"}]`, false},
		{"move", podGVK, true, testPod, `[{"op":"move","from":"/metadata/labels","path":"/metadata/annotations"}]`, false},
		{"copy", podGVK, true, testPod, `[{"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"}]`, false},
		{"missing path", podGVK, true, testPod, `[{"op":"add","value":"b"}]`, false},
		{"malformed", podGVK, true, testPod, `[{"op":"add"`, false},
		{"test passes", podGVK, true, testPod, `[{"op":"test","path":"/metadata/labels","value":{"tier":"frontend","app":"web"}},{"op":"add","path":"/metadata/labels/a","value":"b"}]`, true},
		{"test fails", podGVK, true, testPod, `[{"op":"test","path":"/metadata/labels/app","value":"api"},{"op":"add","path":"/metadata/labels/a","value":"b"}]`, true},
		{"test fails unstructured", widgetGVK, false, testWidget, `[{"op":"test","path":"/spec/size","value":2.0}]`, true},
		{"test number text", widgetGVK, false, testWidget, `[{"op":"test","path":"/spec/ratio","value":0.5},{"op":"test","path":"/spec/big","value":1e+30},{"op":"test","path":"/spec/tags","value":["a","b"]}]`, true},
		{"test html escape", configMapGVK, true, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"<"}}`, `[{"op":"test","path":"/data/a","value":"<"}]`, true},
		{"test missing is null", podGVK, true, testPod, `[{"op":"test","path":"/metadata/labels/nope","value":null},{"op":"test","path":"/metadata/labels/nope"}]`, true},
		{"test null in array", widgetGVK, false, `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"a":[null]}}`, `[{"op":"test","path":"/spec/a","value":[null]}]`, false},
		{"test after change", podGVK, true, testPod, `[{"op":"add","path":"/metadata/labels/a","value":"b"},{"op":"test","path":"/metadata/labels/a","value":"b"}]`, true},
		{"test after change fails", podGVK, true, testPod, `[{"op":"add","path":"/metadata/labels/a","value":"b"},{"op":"test","path":"/metadata/labels","value":{"a":"c"}}]`, true},
		{"test into added value", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/n","value":{"a":[1,"x",0.5]}},{"op":"test","path":"/spec/n/a","value":[1,"x",0.5]}]`, true},
		{"test after non-canonical text", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/n","value":"\u0061<"},{"op":"test","path":"/spec/n","value":"a<"}]`, false},
		{"test after non-canonical number", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/n","value":2.0},{"op":"test","path":"/spec/n","value":2.0}]`, false},
		{"test after explicit null", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/n","value":null},{"op":"test","path":"/spec/n"}]`, false},
		{"test after absent value", widgetGVK, false, testWidget, `[{"op":"add","path":"/spec/n"},{"op":"test","path":"/spec/n"}]`, true},
		{"test index error", podGVK, true, testPod, `[{"op":"test","path":"/spec/containers/5","value":1}]`, false},
		{"test without value on value", podGVK, true, testPod, `[{"op":"test","path":"/metadata/name"}]`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := decodeObject(t, tt.doc)
			if tt.builtin {
				var err error
				obj, err = Normalize(obj, tt.gvk, true)
				require.NoError(t, err)
			}
			require.Equal(t, tt.handled, agreeFast(t, []byte(tt.ops), obj, tt.gvk, tt.builtin))
		})
	}
}

// TestFastJSONPatchUnstableObjects checks the fast path declines objects
// whose JSON round trip changes them, or fails.
func TestFastJSONPatchUnstableObjects(t *testing.T) {
	ops := []byte(`[{"op":"add","path":"/spec/x","value":1}]`)
	for _, v := range []any{2.0, map[string]any(nil), []any(nil), "\xff", int(1), []string{"a"}} {
		obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"v": v}}
		require.False(t, agreeFast(t, ops, obj, widgetGVK, false), "%#v", v)
	}
	obj := decodeObject(t, testPod)
	obj["metadata"].(map[string]any)["labels"].(map[string]any)["\xff"] = "x"
	require.False(t, agreeFast(t, []byte(`[{"op":"test","path":"/metadata/labels/\ufffd","value":null},{"op":"remove","path":"/metadata/labels"}]`), obj, podGVK, true))
}

// TestFastJSONPatchUnwritableObjects checks the fast path declines a
// built-in object whose JSON the exact path cannot write, even where the
// patch drops the value or a test fails.
func TestFastJSONPatchUnwritableObjects(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), make(chan int), int(1)} {
		for _, ops := range []string{
			`[{"op":"remove","path":"/metadata/annotations/bad"}]`,
			`[{"op":"replace","path":"/metadata/annotations/bad","value":"x"}]`,
			`[{"op":"remove","path":"/metadata/annotations"}]`,
			`[{"op":"test","path":"/metadata/name","value":"other"}]`,
		} {
			obj := decodeObject(t, testPod)
			obj["metadata"].(map[string]any)["annotations"].(map[string]any)["bad"] = v
			require.False(t, agreeFast(t, []byte(ops), obj, podGVK, true), "%v %s", v, ops)
		}
	}
}

// FuzzFastJSONPatch compares the fast JSON patch with the exact path on
// arbitrary patches and objects of built-in kinds (typed, and as the
// unstructured content of webhooks) and of a custom resource: kindIndex
// picks the kind; odd indices patch the object as the caller holds it
// (normalized for a built-in kind), even ones as decoded.
func FuzzFastJSONPatch(f *testing.F) {
	for i, k := range testKinds {
		for _, ops := range fuzzSeedPatches {
			f.Add(uint8(2*i+1), []byte(k.doc), []byte(ops))
		}
	}
	f.Fuzz(func(t *testing.T, kindIndex uint8, doc, ops []byte) {
		var obj map[string]any
		if utiljson.Unmarshal(doc, &obj) != nil || obj == nil {
			return
		}
		k := testKinds[int(kindIndex/2)%len(testKinds)]
		if kindIndex%2 == 1 && k.builtin {
			n, err := Normalize(obj, k.gvk, true)
			if err != nil {
				return
			}
			obj = n
		}
		agreeFast(t, ops, obj, k.gvk, k.builtin)
	})
}

// fuzzSeedPatches are realistic JSON patches: the sidecar benchmark's, those
// the published JSONPatch policies write (the website's sidecar, kyverno's
// labels and replicas, volsync's and kubevirt's pod changes), and the
// quirks of the table test.
var fuzzSeedPatches = []string{
	`[{"op":"add","path":"/spec/initContainers/-","value":{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}}]`,
	`[{"op":"add","path":"/spec/initContainers/-","value":{"name":"mesh-proxy","image":"mesh-proxy/v1.0.0","restartPolicy":"Always"}}]`,
	`[{"op":"add","path":"/metadata/labels","value":{"env":"test"}}]`,
	`[{"op":"replace","path":"/spec/replicas","value":2}]`,
	`[{"op":"add","path":"/metadata/labels/foo","value":"bar"},{"op":"add","path":"/metadata/annotations/policies.kyverno.io~1patched","value":"true"}]`,
	`[{"op":"add","path":"/spec/template/spec/initContainers","value":[]},{"op":"add","path":"/spec/template/spec/initContainers/-","value":{"name":"jitter","image":"ghcr.io/home-operations/busybox:1.37.0","imagePullPolicy":"IfNotPresent","command":["sh","-c","sleep $(shuf -i 0-30 -n 1)"]}}]`,
	`[{"op":"replace","path":"/spec/containers/0/resources","value":{"claims":[{"name":"gpu"}]}}]`,
	`[{"op":"replace","path":"/spec/replicas","value":13}]`,
	`[{"op":"test","path":"/metadata/labels/app","value":"web"},{"op":"replace","path":"/spec/containers/0/image","value":"nginx:2"},{"op":"remove","path":"/spec/containers/0/args/-1"}]`,
	`[{"op":"replace","path":"/data/a","value":"x"},{"op":"remove","path":"/data/b"},{"op":"add","path":"/data/c","value":"<&>"}]`,
	`[{"op":"replace","path":"/spec/ports/0/targetPort","value":"http"},{"op":"add","path":"/spec/ports/-1","value":{"port":443,"targetPort":8443}}]`,
	`[{"op":"add","path":"/spec/n","value":[2.0,1e3,-0,1.5,null,{"a":{}}]},{"op":"replace","path":"/spec/size","value":3},{"op":"test","path":"/spec/tags/0","value":"a"}]`,
	`[{"op":"add","path":"/spec/template/spec/containers/0/resources/limits","value":{"cpu":1.5,"memory":"1Gi"}},{"op":"replace","path":"/spec/strategy/rollingUpdate/maxSurge","value":1}]`,
}

// FuzzFastJSONPatchGenerated compares the fast JSON patch with the exact
// path on patches built from the object's own paths, so that most of them
// apply: choices reads the operations, paths and values to use.
func FuzzFastJSONPatchGenerated(f *testing.F) {
	for i := range testKinds {
		f.Add(uint8(2*i+1), []byte{0, 1, 2, 3, 4, 5, 6, 7})
		f.Add(uint8(2*i), []byte{3, 9, 0, 1, 0, 17, 2, 4, 5, 1})
	}
	f.Fuzz(func(t *testing.T, kindIndex uint8, choices []byte) {
		k := testKinds[int(kindIndex/2)%len(testKinds)]
		obj := decodeObject(t, k.doc)
		if kindIndex%2 == 1 && k.builtin {
			n, err := Normalize(obj, k.gvk, true)
			require.NoError(t, err)
			obj = n
		}
		agreeFast(t, generatePatch(obj, choices), obj, k.gvk, k.builtin)
	})
}

var (
	generatedOps    = []string{"add", "replace", "remove", "test", "add", "replace"}
	generatedSuffix = []string{"", "", "", "/-", "/0", "/-1", "/1", "/nope", "/name", "/x~1y", "/", "/-2", "/01"}
	generatedValues = []string{
		`1`, `2.0`, `"s"`, `null`, `{"a":1}`, `[1,null]`, `"<&>"`, `{"name":"x","image":"i"}`, `true`,
		`1e400`, `-0`, `{"a":1,"a":2}`, `"\ud800"`, `[]`, `{}`, `"100m"`, `0.5`, `{"Name":"x"}`, `[{"name":"n"}]`, `"2024-01-02T03:04:05Z"`,
	}
)

// generatePatch builds a JSON patch of up to four operations on paths of
// obj (with a suffix sometimes), reading its choices from choices.
func generatePatch(obj map[string]any, choices []byte) []byte {
	var paths []string
	var values []any
	var walk func(string, any)
	walk = func(p string, v any) {
		paths, values = append(paths, p), append(values, v)
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(p+"/"+pointerEscaper.Replace(k), e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s/%d", p, i), e)
			}
		}
	}
	walk("", obj)
	sortPaths(paths, values)
	next := func() int {
		if len(choices) == 0 {
			return 0
		}
		c := int(choices[0])
		choices = choices[1:]
		return c
	}
	var ops []string
	for range 1 + next()%4 {
		op := generatedOps[next()%len(generatedOps)]
		i := next() % len(paths)
		path := paths[i] + generatedSuffix[next()%len(generatedSuffix)]
		var value string
		if c := next(); c%3 == 0 {
			// The value at the path: a test that passes, a replace
			// that changes nothing.
			b, _ := utiljson.Marshal(values[i])
			value = string(b)
		} else {
			value = generatedValues[c%len(generatedValues)]
		}
		pb, _ := utiljson.Marshal(path)
		ops = append(ops, fmt.Sprintf(`{"op":%q,"path":%s,"value":%s}`, op, pb, value))
	}
	return []byte("[" + joinComma(ops) + "]")
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func sortPaths(paths []string, values []any) {
	idx := make([]int, len(paths))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return paths[idx[a]] < paths[idx[b]] })
	p2, v2 := make([]string, len(paths)), make([]any, len(values))
	for i, j := range idx {
		p2[i], v2[i] = paths[j], values[j]
	}
	copy(paths, p2)
	copy(values, v2)
}

func joinComma(s []string) string { return strings.Join(s, ",") }
