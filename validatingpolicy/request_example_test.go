package validatingpolicy_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// NewRequest makes the request of a typed object in one line: its kind
// from the built-in scheme, its name and namespace from its metadata.
func ExampleNewRequest() {
	objs, err := validatingpolicy.Decode([]byte(replicaLimit))
	if err != nil {
		panic(err)
	}
	d, err := validatingpolicy.NewDispatcher(objs.Policies, objs.Bindings, validatingpolicy.Options{})
	if err != nil {
		panic(err)
	}
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "dev"},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](7)},
	}
	req, err := validatingpolicy.NewRequest(admissionv1.Create, appsv1.SchemeGroupVersion.WithResource("deployments"), deployment, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(req.Kind, req.Namespace, req.Name, req.Normalized)
	res, err := d.Validate(context.Background(), req)
	fmt.Println("error:", err)
	fmt.Println("warning:", res.Warnings[0])

	// An object whose kind cannot be known is refused.
	_, err = validatingpolicy.NewRequest(admissionv1.Create, appsv1.SchemeGroupVersion.WithResource("deployments"), &metav1.PartialObjectMetadata{}, nil)
	fmt.Println(err)
	// Output:
	// apps/v1, Kind=Deployment dev web true
	// error: <nil>
	// warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-warn': replicas must be at most 5, not 7
	// object: cannot tell the kind of *v1.PartialObjectMetadata: its apiVersion and kind are not set and it is not the Go type of a built-in kind
}
