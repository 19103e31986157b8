package mutation

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

func obj(t *testing.T, y string) map[string]any {
	t.Helper()
	var o map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(y), &o))
	return o
}

func merge(t *testing.T, s *Schema, live, patch string) (string, error) {
	t.Helper()
	l, err := s.FromUnstructured(obj(t, live))
	if err != nil {
		return "", err
	}
	p, err := s.FromUnstructured(obj(t, patch))
	if err != nil {
		return "", err
	}
	m, err := l.Merge(p)
	if err != nil {
		return "", err
	}
	out, err := yaml.Marshal(m.AsValue().Unstructured())
	require.NoError(t, err)
	o, err := yaml.YAMLToJSON(out)
	require.NoError(t, err)
	return string(o), nil
}

func TestSchemasMerge(t *testing.T) {
	schemas := BuiltIn()
	crd, err := os.ReadFile("testdata/widget-crd.yaml")
	require.NoError(t, err)
	require.NoError(t, schemas.AddCRD(crd))
	pod, err := schemas.Lookup(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	require.NoError(t, err)
	widget, err := schemas.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	require.NoError(t, err)

	for _, tc := range []struct {
		name          string
		schema        *Schema
		live, patch   string
		want, wantErr string
	}{
		{"containers merge by name", pod, `{spec: {containers: [{name: a, image: x}, {name: b}]}}`, `{spec: {containers: [{name: b, image: q}]}}`,
			`{"spec":{"containers":[{"image":"x","name":"a"},{"image":"q","name":"b"}]}}`, ""},
		{"args are atomic", pod, `{spec: {containers: [{name: a, args: [x, w]}]}}`, `{spec: {containers: [{name: a, args: [z]}]}}`,
			`{"spec":{"containers":[{"args":["z"],"name":"a"}]}}`, ""},
		{"labels are granular", pod, `{metadata: {labels: {a: "1"}}}`, `{metadata: {labels: {b: "2"}}}`,
			`{"metadata":{"labels":{"a":"1","b":"2"}}}`, ""},
		{"duplicate keys", pod, `{}`, `{spec: {containers: [{name: a}, {name: a}]}}`, "", `.spec.containers: duplicate entries for key [name="a"]`},
		{"undeclared field", pod, `{}`, `{spec: {replicas: 1}}`, "", `.spec.replicas: field not declared in schema`},
		{"list map with defaulted key", widget, `{spec: {ports: [{port: 80, protocol: TCP, name: a}]}}`, `{spec: {ports: [{port: 80, name: b}]}}`,
			`{"spec":{"ports":[{"name":"b","port":80,"protocol":"TCP"}]}}`, ""},
		{"unkeyed list is atomic", widget, `{spec: {tags: [a]}}`, `{spec: {tags: [b]}}`, `{"spec":{"tags":["b"]}}`, ""},
		{"int-or-string takes both", widget, `{spec: {size: 1}}`, `{spec: {size: "50%"}}`, `{"spec":{"size":"50%"}}`, ""},
		{"preserved fields are kept and merged", widget, `{spec: {extra: {a: {b: 1}}}}`, `{spec: {extra: {a: {c: 2}}}}`, `{"spec":{"extra":{"a":{"b":1,"c":2}}}}`, ""},
		{"embedded resource has metadata", widget, `{spec: {template: {metadata: {labels: {a: "1"}}}}}`, `{spec: {template: {metadata: {labels: {b: "1"}}, x: 1}}}`,
			`{"spec":{"template":{"metadata":{"labels":{"a":"1","b":"1"}},"x":1}}}`, ""},
		{"undeclared CRD field", widget, `{}`, `{spec: {nope: 1}}`, "", ".spec.nope: field not declared in schema"},
		{"deduced replaces lists", Deduced(), `{spec: {containers: [{name: a}]}}`, `{spec: {containers: [{name: b}]}}`, `{"spec":{"containers":[{"name":"b"}]}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := merge(t, tc.schema, tc.live, tc.patch)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, got)
		})
	}
}

func TestSchemasLookupAndAddCRD(t *testing.T) {
	schemas := BuiltIn()
	_, err := schemas.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	assert.True(t, errors.Is(err, ErrNoSchema))
	assert.True(t, Deduced().IsDeduced())
	pod, err := schemas.Lookup(schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	require.NoError(t, err)
	assert.False(t, pod.IsDeduced())

	for _, tc := range []struct{ name, crd, err string }{
		{"not a CRD", `{apiVersion: v1, kind: Pod}`, "not an apiextensions.k8s.io/v1 CustomResourceDefinition"},
		{"no versions", `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}}}`, "at least one version"},
		{"built-in kind", `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: apps, names: {kind: Deployment}, versions: [{name: v1}]}}`, "is the built-in kind"},
		{"bad list type", `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, versions: [{name: v1, schema: {openAPIV3Schema: {type: object, properties: {a: {type: array, items: {type: string}, x-kubernetes-list-type: bag}}}}}]}}`, `.a: unknown x-kubernetes-list-type "bag"`},
		{"untyped node", `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, versions: [{name: v1, schema: {openAPIV3Schema: {type: object, properties: {a: {}}}}}]}}`, `.a: type is required`},
		{"not YAML", "{", "decoding the CRD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorContains(t, schemas.AddCRD([]byte(tc.crd)), tc.err)
		})
	}

	// A CRD without schema is deduced as a whole; adding it again replaces it.
	require.NoError(t, schemas.AddCRD([]byte(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, versions: [{name: v1}, {name: v2}]}}`)))
	k, err := schemas.Lookup(schema.GroupVersionKind{Group: "g", Version: "v2", Kind: "K"})
	require.NoError(t, err)
	got, err := merge(t, k, `{a: [1], b: {c: 1}}`, `{a: [2], b: {d: 1}}`)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":[2],"b":{"c":1,"d":1}}`, got)
	require.NoError(t, schemas.AddCRD([]byte(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, versions: [{name: v3}]}}`)))
	_, err = schemas.Lookup(schema.GroupVersionKind{Group: "g", Version: "v2", Kind: "K"})
	assert.ErrorIs(t, err, ErrNoSchema)
}
