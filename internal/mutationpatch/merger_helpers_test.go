package mutationpatch_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	kjson "k8s.io/apimachinery/pkg/util/json"

	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// mergeKinds are the kinds the Merger's tests merge: built-in kinds and a
// custom resource whose schema has every kind of list and map.
var mergeKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "Pod"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "ConfigMap"},
	{Group: "example.com", Version: "v1", Kind: "Gadget"},
	{Group: "example.com", Version: "v1", Kind: "Widget"},
}

// gadgetCRD has sets, associative lists with one and two keys (a
// default), atomic and granular maps, int-or-string, preserved unknown
// fields and embedded resources.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
                    protocol: {type: string, default: TCP}
                    name: {type: string}
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    value: {type: string}
                    count: {type: number}
                    labels: {type: object, additionalProperties: {type: string}}
                    tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              numbers:
                type: array
                x-kubernetes-list-type: set
                items: {type: integer}
              plain:
                type: array
                items: {type: string}
              selector:
                type: object
                x-kubernetes-map-type: atomic
                additionalProperties: {type: string}
              config:
                type: object
                x-kubernetes-map-type: granular
                additionalProperties: {type: string}
              nested:
                type: object
                x-kubernetes-map-type: atomic
                properties:
                  a: {type: string}
                  b: {type: integer}
              enabled: {type: boolean}
              ratio: {type: number}
              size:
                x-kubernetes-int-or-string: true
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              phase: {type: string}
`

// mergeSchemas returns the built-in schemas with the Widget and Gadget CRDs.
func mergeSchemas(t testing.TB) *mutation.Schemas {
	t.Helper()
	s := mutation.BuiltIn()
	widget, err := os.ReadFile("../../mutation/testdata/widget-crd.yaml")
	require.NoError(t, err)
	require.NoError(t, s.AddCRD(widget))
	require.NoError(t, s.AddCRD([]byte(gadgetCRD)))
	return s
}

// jsonMap decodes a JSON object as kube-apiserver does (integers as int64).
func jsonMap(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, kjson.Unmarshal([]byte(s), &m))
	return m
}

// withGVK returns m with the apiVersion and kind of gvk, as
// ApplyConfiguration sets them on the patch.
func withGVK(m map[string]any, gvk schema.GroupVersionKind) map[string]any {
	out := make(map[string]any, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	out["apiVersion"], out["kind"] = gvk.GroupVersion().String(), gvk.Kind
	return out
}

// mergeOutcome is the result of a merge, or its error's text.
type mergeOutcome struct {
	Object map[string]any
	Err    string
}

func outcomeOf(out map[string]any, err error) mergeOutcome {
	if err != nil {
		return mergeOutcome{Err: err.Error()}
	}
	return mergeOutcome{Object: out}
}

// checkMerge merges p into obj with the Merger first and with
// structured-merge-diff alone, requires the same outcome (reflect.DeepEqual
// objects, equal error texts) and tells whether the Merger handled it.
// Neither input may be modified.
func checkMerge(t testing.TB, s mutationpatch.Typer, p, obj map[string]any) (handled bool) {
	t.Helper()
	pBefore, objBefore := deepCopy(p), deepCopy(obj)
	exact := outcomeOf(mutationpatch.MergeExact(p, obj, s))
	_, handled = mutationpatch.MergerOf(s).MergeFast(p, obj)
	got := outcomeOf(mutationpatch.MergeApplyConfiguration(p, obj, s))
	if handled {
		require.Equal(t, exact, got, "patch %v\nobject %v", p, obj)
	} else {
		// Both are structured-merge-diff's outcome, whose error text may
		// name any of several faults (it walks maps in Go's order).
		require.Equal(t, exact.Err == "", got.Err == "", "patch %v\nobject %v", p, obj)
		if exact.Err == "" {
			require.Equal(t, exact, got, "patch %v\nobject %v", p, obj)
		}
	}
	require.Equal(t, pBefore, p, "the patch was modified")
	require.Equal(t, objBefore, obj, "the object was modified")
	return handled
}

func deepCopy(v map[string]any) map[string]any {
	var c func(any) any
	c = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			m := make(map[string]any, len(v))
			for k, x := range v {
				m[k] = c(x)
			}
			return m
		case []any:
			l := make([]any, len(v))
			for i, x := range v {
				l[i] = c(x)
			}
			return l
		}
		return v
	}
	if v == nil {
		return nil
	}
	return c(v).(map[string]any)
}
