package mutation_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// NewRequest makes the request of a typed object in one line; the mutated
// object reads back into the Go type.
func ExampleNewRequest() {
	var policy admissionregistrationv1.MutatingAdmissionPolicy
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: pull-always}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    namespaceSelector: {}
    objectSelector: {}
    matchPolicy: Equivalent
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{containers: object.spec.containers.map(c,
          Object.spec.containers{name: c.name, imagePullPolicy: "Always"})}}
`), &policy); err != nil {
		panic(err)
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "pull-always"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "pull-always"},
	}
	d, err := mutation.NewDispatcher([]*admissionregistrationv1.MutatingAdmissionPolicy{&policy},
		[]*admissionregistrationv1.MutatingAdmissionPolicyBinding{binding}, mutation.Options{})
	if err != nil {
		panic(err)
	}

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
	}
	req, err := mutation.NewRequest(admissionv1.Create, corev1.SchemeGroupVersion.WithResource("pods"), pod, nil)
	if err != nil {
		panic(err)
	}
	res, err := d.Admit(context.Background(), req)
	if err != nil {
		panic(err)
	}
	var mutated corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(res.Object.Object, &mutated); err != nil {
		panic(err)
	}
	fmt.Println(req.Kind, req.Namespace+"/"+req.Name)
	fmt.Println(mutated.Spec.Containers[0].Image, mutated.Spec.Containers[0].ImagePullPolicy)
	// Output:
	// /v1, Kind=Pod default/web
	// nginx Always
}
