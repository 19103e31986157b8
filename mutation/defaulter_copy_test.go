package mutation_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// A Defaulter changes a copy of a mutated custom object, whose JSON patch
// leaves the request's maps it did not touch shared with the result: the
// request's object stays as it was.
func TestDefaulterChangesACopy(t *testing.T) {
	schemas := mutation.BuiltIn()
	crd, err := os.ReadFile("testdata/widget-crd.yaml")
	require.NoError(t, err)
	require.NoError(t, schemas.AddCRD(crd))
	cfg, err := mutation.Decode([]byte(`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'add', path: '/metadata/labels', value: {'team': 'a'}}]"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p}
`))
	require.NoError(t, err)
	defaulter := func(u *unstructured.Unstructured) {
		for _, p := range u.Object["spec"].(map[string]any)["ports"].([]any) {
			p.(map[string]any)["name"] = "defaulted"
		}
	}
	d, err := mutation.NewDispatcher(cfg.Policies, cfg.Bindings, mutation.Options{Schemas: schemas, Defaulter: defaulter})
	require.NoError(t, err)
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec":     map[string]any{"ports": []any{map[string]any{"port": int64(80), "protocol": "TCP"}}},
	}}
	before := fmt.Sprintf("%#v", widget.Object)
	res, err := d.Admit(context.Background(), &mutation.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
		Resource:  schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		Name:      "w", Namespace: "default", Object: widget,
	})
	require.NoError(t, err)
	require.True(t, res.Changed)
	ports, _, _ := unstructured.NestedSlice(res.Object.Object, "spec", "ports")
	assert.Equal(t, "defaulted", ports[0].(map[string]any)["name"])
	assert.Equal(t, before, fmt.Sprintf("%#v", widget.Object), "the request's object is not modified")
}
