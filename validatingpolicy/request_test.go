package validatingpolicy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// TestNewRequest: requests from typed and unstructured objects, validated
// by a policy that reads them as kube-apiserver holds them.
func TestNewRequest(t *testing.T) {
	pods := corev1.SchemeGroupVersion.WithResource("pods")
	deployments := appsv1.SchemeGroupVersion.WithResource("deployments")
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	typedPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "dev"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:latest"}}}}
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "prod"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](9)}}
	widget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "dev"}, "spec": map[string]any{"size": int64(100)}}}

	d, err := NewDispatcher(policies{policy("p", validations(
		expr(`object == null || object.kind != "Pod" || !object.spec.containers.exists(c, c.image.endsWith(":latest"))`),
		expr(`object == null || object.kind != "Deployment" || object.spec.replicas <= 5`),
		expr(`object == null || object.kind != "Widget" || object.spec.size <= 10`),
		// kube-apiserver holds a typed Pod with its defaults' empty
		// fields: resources is an empty object, not absent.
		expr(`object == null || object.kind != "Pod" || has(object.spec.containers[0].resources)`),
	))}, bindings{binding("b", "p", deny)}, Options{})
	require.NoError(t, err)

	for _, tc := range []struct {
		name        string
		op          admissionv1.Operation
		resource    schema.GroupVersionResource
		obj, oldObj runtime.Object
		want        Request // the fields NewRequest sets, objects aside
		// denied is the denial's message; "" admits.
		denied string
		err    string
	}{{
		name: "typed Pod", op: admissionv1.Create, resource: pods, obj: typedPod,
		want:   Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: pods, Name: "web", Namespace: "dev", Normalized: true},
		denied: `pods "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object == null || object.kind != "Pod" || !object.spec.containers.exists(c, c.image.endsWith(":latest"))`,
	}, {
		name: "typed Deployment", op: admissionv1.Update, resource: deployments, obj: deployment, oldObj: deployment,
		want:   Request{Operation: admissionv1.Update, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: deployments, Name: "api", Namespace: "prod", Normalized: true},
		denied: `deployments.apps "api" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object == null || object.kind != "Deployment" || object.spec.replicas <= 5`,
	}, {
		name: "nil old object", op: admissionv1.Create, resource: deployments, obj: deployment, oldObj: (*appsv1.Deployment)(nil),
		want:   Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: deployments, Name: "api", Namespace: "prod", Normalized: true},
		denied: `deployments.apps "api" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object == null || object.kind != "Deployment" || object.spec.replicas <= 5`,
	}, {
		name: "delete of a typed Pod", op: admissionv1.Delete, resource: pods, oldObj: typedPod,
		want: Request{Operation: admissionv1.Delete, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: pods, Name: "web", Namespace: "dev", Normalized: true},
	}, {
		name: "unstructured custom resource", op: admissionv1.Create, resource: widgets, obj: widget,
		want:   Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Resource: widgets, Name: "w", Namespace: "dev"},
		denied: `widgets.example.com "w" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object == null || object.kind != "Widget" || object.spec.size <= 10`,
	}, {
		name: "no kind known", op: admissionv1.Create, resource: widgets, obj: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "w"}},
		err: "object: cannot tell the kind of *v1.PartialObjectMetadata: its apiVersion and kind are not set and it is not the Go type of a built-in kind",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := NewRequest(tc.op, tc.resource, tc.obj, tc.oldObj)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				assert.Nil(t, req)
				return
			}
			require.NoError(t, err)
			got := *req
			got.Object, got.OldObject = nil, nil
			assert.Equal(t, tc.want, got)
			if u, ok := tc.obj.(*unstructured.Unstructured); ok {
				assert.Same(t, u, req.Object)
			}
			assert.Equal(t, tc.obj == nil, req.Object == nil)
			assert.Equal(t, tc.oldObj == nil || tc.name == "nil old object", req.OldObject == nil)
			_, err = d.Validate(context.Background(), req)
			if tc.denied == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tc.denied)
			}
		})
	}
}
