package mutation_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

func ExampleDispatcher() {
	var policy admissionregistrationv1.MutatingAdmissionPolicy
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: add-team-label}
spec:
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  matchConstraints:
    namespaceSelector: {}
    objectSelector: {}
    matchPolicy: Equivalent
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"team": request.userInfo.username}}}'
`), &policy); err != nil {
		panic(err)
	}
	var binding admissionregistrationv1.MutatingAdmissionPolicyBinding
	binding.Name = "add-team-label"
	binding.Spec.PolicyName = "add-team-label"

	d, err := mutation.NewDispatcher(
		[]*admissionregistrationv1.MutatingAdmissionPolicy{&policy},
		[]*admissionregistrationv1.MutatingAdmissionPolicyBinding{&binding},
		mutation.Options{})
	if err != nil {
		panic(err)
	}

	pod := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx"}}},
	}}
	req := &mutation.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name:      "web", Namespace: "default",
		Object:       pod,
		Reinvocation: &mutation.ReinvocationContext{},
	}
	req.UserInfo.Username = "alice"

	res, trace, err := d.Explain(context.Background(), req)
	if err != nil {
		panic(err)
	}
	fmt.Println("changed:", res.Changed, "labels:", res.Object.GetLabels())
	fmt.Print(trace)
	fmt.Println("reinvoke:", req.Reinvocation.ShouldReinvoke())
	// Output:
	// changed: true labels: map[team:alice]
	// policy add-team-label: matched /v1, Resource=pods
	//   binding add-team-label: matched
	//     mutation 0: changed .metadata.labels
	// reinvoke: true
}
