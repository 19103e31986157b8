package mutation_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// TestDispatchTypedRoundTrip admits a Pod through two JSON Patch mutations:
// the first adds an empty initContainers, which the Pod's Go type drops
// (omitempty), so the second, appending to it, fails as in kube-apiserver
// (kubernetes#129309); and a Defaulter's output is taken through the Go
// type too before the next mutation.
func TestDispatchTypedRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mutations string
		defaulter func(*unstructured.Unstructured)
		wantErr   string
		wantSpec  map[string]any
	}{
		{name: "an empty list added is gone for the next mutation", mutations: `
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/spec/initContainers", value: []}]'}
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/spec/initContainers/-", value: Object.spec.initContainers{name: "s", image: "i"}}]'}`,
			wantErr: `policy 'p' with binding 'p' denied request: JSON Patch: add operation does not apply: doc is missing path: "/spec/initContainers/-": missing value`},
		{name: "a defaulter's empty field is gone too", mutations: `
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/spec/nodeName", value: "n"}]'}`,
			defaulter: func(u *unstructured.Unstructured) {
				u.Object["spec"].(map[string]any)["hostname"] = ""
			},
			wantSpec: map[string]any{"nodeName": "n", "containers": []any{map[string]any{"name": "web", "image": "nginx", "resources": map[string]any{}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var policy admissionregistrationv1.MutatingAdmissionPolicy
			require.NoError(t, yaml.UnmarshalStrict([]byte(`
metadata: {name: p}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    namespaceSelector: {}
    objectSelector: {}
    matchPolicy: Equivalent
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:`+tc.mutations), &policy))
			var binding admissionregistrationv1.MutatingAdmissionPolicyBinding
			binding.Name, binding.Spec.PolicyName = "p", "p"
			d, err := mutation.NewDispatcher([]*admissionregistrationv1.MutatingAdmissionPolicy{&policy},
				[]*admissionregistrationv1.MutatingAdmissionPolicyBinding{&binding}, mutation.Options{Defaulter: tc.defaulter})
			require.NoError(t, err)
			pod := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "Pod",
				"metadata": map[string]any{"name": "web", "namespace": "default"},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx"}}},
			}}
			res, err := d.Admit(context.Background(), &mutation.Request{
				Operation: admissionv1.Create,
				Kind:      schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
				Resource:  schema.GroupVersionResource{Version: "v1", Resource: "pods"},
				Name:      "web", Namespace: "default", Object: pod,
			})
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantSpec, res.Object.Object["spec"])
		})
	}
}
