package mutation

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/util/json"
)

// jsonObj decodes JSON as kube-apiserver's unstructured content (int64
// integers).
func jsonObj(t testing.TB, s string) map[string]any {
	t.Helper()
	var o map[string]any
	require.NoError(t, kjson.Unmarshal([]byte(s), &o))
	return o
}

func testSchemas(t testing.TB) *Schemas {
	t.Helper()
	s := BuiltIn()
	crd, err := os.ReadFile("testdata/widget-crd.yaml")
	require.NoError(t, err)
	require.NoError(t, s.AddCRD(crd))
	return s
}

var (
	deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	widgetGVK     = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
)

const testDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},
 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},
 "spec":{"containers":[{"name":"c","image":"i","args":["x"],"resources":{}}]}},"strategy":{}},"status":{}}`

const testWidget = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
 "spec":{"ports":[{"port":80,"protocol":"TCP"}],"tags":["a"],"selector":{"k":"v"},"extra":{"l":[1]}}}`

func TestApplyPatch(t *testing.T) {
	schemas := testSchemas(t)
	for _, tc := range []struct {
		name    string
		gvk     schema.GroupVersionKind
		object  string
		ac      string // applyConfiguration, JSON
		jp      string // jsonPatch
		want    string // JSON of the result, "" when an error is expected
		wantErr string
		code    int32 // the StatusError's code, 0 for a plain error
	}{
		{name: "replicas merged, kind forced", gvk: deploymentGVK, object: testDeployment,
			ac:   `{"apiVersion":"v9","kind":"Other","spec":{"replicas":3}}`,
			want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i","args":["x"],"resources":{}}]}},"strategy":{}},"status":{}}`},
		{name: "atomic selector", gvk: deploymentGVK, object: testDeployment,
			ac:      `{"spec":{"selector":{"matchLabels":{"b":"c"}}}}`,
			wantErr: "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector"},
		{name: "atomic args, sorted", gvk: deploymentGVK, object: testDeployment,
			ac:      `{"spec":{"template":{"spec":{"containers":[{"name":"c","command":["y"],"args":["z"]}],"nodeSelector":{"a":"b"}}}}}`,
			wantErr: "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.template.spec.containers[0].args, .spec.template.spec.containers[0].command, .spec.template.spec.nodeSelector"},
		{name: "type error", gvk: deploymentGVK, object: testDeployment,
			ac:      `{"spec":{"replicas":"3"}}`,
			wantErr: "error applying patch: failed to convert patch object to typed object: .spec.replicas: expected numeric (int or float), got string"},
		{name: "duplicate keys in the patch", gvk: deploymentGVK, object: testDeployment,
			ac:      `{"spec":{"template":{"spec":{"containers":[{"name":"d"},{"name":"d"}]}}}}`,
			wantErr: `error applying patch: failed to convert patch object to typed object: .spec.template.spec.containers: duplicate entries for key [name="d"]`},
		{name: "empty list dropped by the typed round trip", gvk: deploymentGVK, object: testDeployment,
			ac:   `{"spec":{"template":{"spec":{"initContainers":[]}}}}`,
			want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i","args":["x"],"resources":{}}]}},"strategy":{}},"status":{}}`},
		{name: "container appended, resources added by the round trip", gvk: deploymentGVK, object: testDeployment,
			ac:   `{"spec":{"template":{"spec":{"containers":[{"name":"s","image":"j"}]}}}}`,
			want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i","args":["x"],"resources":{}},{"name":"s","image":"j","resources":{}}]}},"strategy":{}},"status":{}}`},
		{name: "missing schema", gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}, object: `{}`, ac: `{}`,
			wantErr: "Resource kind example.com/v1, Kind=Gadget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", code: 503},
		{name: "missing schema, JSON patch", gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}, object: `{}`, jp: `[]`,
			wantErr: "Resource kind example.com/v1, Kind=Gadget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", code: 503},
		{name: "CRD list map merged, no round trip", gvk: widgetGVK, object: testWidget,
			ac:   `{"spec":{"ports":[{"port":81,"protocol":"UDP"}],"extra":{"l":[2]}}}`,
			want: `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"ports":[{"port":80,"protocol":"TCP"},{"port":81,"protocol":"UDP"}],"tags":["a"],"selector":{"k":"v"},"extra":{"l":[2]}}}`},
		{name: "CRD atomic list", gvk: widgetGVK, object: testWidget,
			ac:      `{"spec":{"tags":["b"],"selector":{"a":"b"}}}`,
			wantErr: "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector, .spec.tags"},

		{name: "JSON patch replace", gvk: deploymentGVK, object: testDeployment,
			jp:   `[{"op":"replace","path":"/spec/replicas","value":5}]`,
			want: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},"spec":{"replicas":5,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i","args":["x"],"resources":{}}]}},"strategy":{}},"status":{}}`},
		{name: "JSON patch test fails: whole patch discarded", gvk: deploymentGVK, object: testDeployment,
			jp:   `[{"op":"replace","path":"/spec/replicas","value":5},{"op":"test","path":"/spec/replicas","value":7}]`,
			want: testDeployment},
		{name: "JSON patch unknown op", gvk: deploymentGVK, object: testDeployment,
			jp: `[{"op":"foo","path":"/spec"}]`, wantErr: "JSON Patch: Unexpected kind: foo"},
		{name: "JSON patch remove missing key", gvk: deploymentGVK, object: testDeployment,
			jp: `[{"op":"remove","path":"/metadata/labels/zz"}]`, wantErr: `JSON Patch: remove operation does not apply: doc is missing path: "/metadata/labels/zz": missing value`},
		{name: "JSON patch strict decode: unknown field", gvk: deploymentGVK, object: testDeployment,
			jp: `[{"op":"add","path":"/spec/bogus","value":1}]`, wantErr: `Internal error occurred: strict decoding error: unknown field "spec.bogus"`, code: 500},
		{name: "JSON patch strict decode: wrong type", gvk: deploymentGVK, object: testDeployment,
			jp: `[{"op":"replace","path":"/spec/replicas","value":"x"}]`, wantErr: `Internal error occurred: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`, code: 500},
		{name: "JSON patch CRD stays unstructured", gvk: widgetGVK, object: testWidget,
			jp:   `[{"op":"add","path":"/spec/bogus","value":1.5}]`,
			want: `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"bogus":1.5,"ports":[{"port":80,"protocol":"TCP"}],"tags":["a"],"selector":{"k":"v"},"extra":{"l":[1]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p patch
			if tc.jp != "" {
				p.jsonPatch = []byte(tc.jp)
			} else {
				p.applyConfiguration = jsonObj(t, tc.ac)
			}
			object := jsonObj(t, tc.object)
			before, err := json.Marshal(object)
			require.NoError(t, err)
			got, err := applyPatch(p, object, tc.gvk, schemas)
			after, merr := json.Marshal(object)
			require.NoError(t, merr)
			assert.JSONEq(t, string(before), string(after), "object modified")
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				if tc.code != 0 {
					var se *apierrors.StatusError
					require.ErrorAs(t, err, &se)
					assert.Equal(t, tc.code, se.Status().Code)
				} else {
					assert.NotErrorAs(t, err, new(*apierrors.StatusError))
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, jsonObj(t, tc.want), got)
		})
	}
}

func TestNormalizeObject(t *testing.T) {
	schemas := testSchemas(t)
	in := jsonObj(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{}},
	 "spec":{"replicas":1,"template":{"spec":{"initContainers":[],"containers":[{"name":"c","resources":{"limits":{"cpu":"1000m"}}}]}}}}`)
	got, err := normalizeObject(in, deploymentGVK, schemas)
	require.NoError(t, err)
	assert.Equal(t, jsonObj(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
	 "spec":{"replicas":1,"selector":null,"strategy":{},"template":{"metadata":{},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1"}}}]}}},"status":{}}`), got)
	assert.Contains(t, in["metadata"], "labels", "the object is not modified")

	_, err = normalizeObject(jsonObj(t, `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":"x"}}`), deploymentGVK, schemas)
	require.Error(t, err)

	w := jsonObj(t, testWidget)
	got, err = normalizeObject(w, widgetGVK, schemas)
	require.NoError(t, err)
	assert.Equal(t, w, got)
}

// TestApplyPatchNativeValues applies ApplyConfigurations holding Go values
// other than JSON's: they are typed, checked for atomics and merged as
// structured-merge-diff sees them.
func TestApplyPatchNativeValues(t *testing.T) {
	schemas := testSchemas(t)
	object := jsonObj(t, testDeployment)
	_, err := applyPatch(patch{applyConfiguration: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"name": "c", "args": []string{"z"}}}}}}}}, object, deploymentGVK, schemas)
	require.EqualError(t, err, `error applying patch: failed to convert patch object to typed object: .spec.template.spec.containers[name="c"].args: expected list, got &{[z]}`)

	_, err = applyPatch(patch{applyConfiguration: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[any]any{
		"nodeSelector": map[any]any{"a": "b"}}}}}}, object, deploymentGVK, schemas)
	require.EqualError(t, err, "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.template.spec.nodeSelector")

	out, err := applyPatch(patch{applyConfiguration: map[string]any{"metadata": map[any]any{"labels": map[any]any{"b": "c"}}, "spec": map[string]any{"replicas": int32(4)}}}, object, deploymentGVK, schemas)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"b": "c"}, out["metadata"].(map[string]any)["labels"])
	assert.Equal(t, int64(4), out["spec"].(map[string]any)["replicas"])
}
