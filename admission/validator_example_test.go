package admission_test

import (
	"context"
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admission"
)

// A PodSecurity plugin of one's own (contrib/podsecurity has kube's) runs at
// PodSecurity's place in the chain: its denial ends the request, its audit
// annotations join the request's.
func ExampleValidatorFunc() {
	noHostNetwork := admission.ValidatorFunc(func(_ context.Context, req *admission.Request) (admission.Verdict, error) {
		v := admission.Verdict{AuditAnnotations: map[string]string{"example.com/checked": "true"}}
		if host, _, _ := unstructured.NestedBool(req.Object.Object, "spec", "hostNetwork"); host {
			return v, apierrors.NewForbidden(req.Resource.GroupResource(), req.Name, errors.New("hostNetwork is not allowed"))
		}
		return v, nil
	})
	chain, err := admission.New(admission.Config{}, admission.Options{PodSecurity: noHostNetwork})
	if err != nil {
		panic(err)
	}
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "namespace": "ns"}, "spec": map[string]any{"hostNetwork": true}}}
	res, trace, err := chain.Explain(context.Background(), &admission.Request{Operation: admissionv1.Create, Name: "p", Namespace: "ns",
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Object: pod})
	fmt.Println(err)
	fmt.Println(trace.DeniedBy, res.AuditAnnotations)
	// Output:
	// pods "p" is forbidden: hostNetwork is not allowed
	// PodSecurity map[example.com/checked:true]
}
