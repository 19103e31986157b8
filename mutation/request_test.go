package mutation

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// TestNewRequest: requests from typed and unstructured objects, and a
// policy that mutates the typed ones.
func TestNewRequest(t *testing.T) {
	pods := corev1.SchemeGroupVersion.WithResource("pods")
	deployments := appsv1.SchemeGroupVersion.WithResource("deployments")
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	typedPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "dev"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	deployment := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "prod"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)}}
	widget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "dev"}}}

	p := newPolicy("label", []string{`Object{metadata: Object.metadata{labels: {"seen": "yes"}}}`}, func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		r := &p.Spec.MatchConstraints.ResourceRules[0].Rule
		r.APIGroups, r.Resources = []string{"", "apps"}, []string{"pods", "deployments"}
	})
	d, err := NewDispatcher(policies{p}, bindings{newBinding("b", "label")}, Options{})
	require.NoError(t, err)

	for _, tc := range []struct {
		name        string
		op          admissionv1.Operation
		resource    schema.GroupVersionResource
		obj, oldObj runtime.Object
		want        Request // the fields NewRequest sets, objects aside
		// into is the Go type the mutated object is read back into; nil:
		// the request is not run.
		into runtime.Object
		err  string
	}{{
		name: "typed Pod", op: admissionv1.Create, resource: pods, obj: typedPod,
		want: Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: pods, Name: "web", Namespace: "dev", Normalized: true},
		into: &corev1.Pod{},
	}, {
		name: "typed Deployment", op: admissionv1.Update, resource: deployments, obj: deployment, oldObj: deployment,
		want: Request{Operation: admissionv1.Update, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: deployments, Name: "api", Namespace: "prod", Normalized: true},
		into: &appsv1.Deployment{},
	}, {
		name: "nil old object", op: admissionv1.Create, resource: deployments, obj: deployment, oldObj: (*appsv1.Deployment)(nil),
		want: Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: deployments, Name: "api", Namespace: "prod", Normalized: true},
		into: &appsv1.Deployment{},
	}, {
		name: "unstructured custom resource", op: admissionv1.Create, resource: widgets, obj: widget,
		want: Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Resource: widgets, Name: "w", Namespace: "dev"},
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
			assert.Equal(t, tc.oldObj == nil || tc.name == "nil old object", req.OldObject == nil)
			if tc.into == nil {
				return
			}
			res, err := d.Admit(context.Background(), req)
			require.NoError(t, err)
			assert.True(t, res.Changed)
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(res.Object.Object, tc.into))
			m, ok := tc.into.(metav1.Object)
			require.True(t, ok)
			assert.Equal(t, map[string]string{"seen": "yes"}, m.GetLabels())
			assert.Equal(t, req.Name, m.GetName())
		})
	}
	assert.Empty(t, typedPod.Labels, "the typed object is not modified")
}
