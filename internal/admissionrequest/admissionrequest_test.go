package admissionrequest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
)

// widget is a Go type that no scheme of gatehouse knows.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              int `json:"size"`
}

func (w *widget) DeepCopyObject() runtime.Object { c := *w; return &c }

func TestFromObjects(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	podKind := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "dev"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	oldPod := pod.DeepCopy()
	oldPod.Labels = map[string]string{"old": "yes"}
	deployment := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "prod"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](3)}}
	custom := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "dev"}, "spec": map[string]any{"size": int64(1)}}}

	for _, tc := range []struct {
		name        string
		resource    schema.GroupVersionResource
		obj, oldObj runtime.Object
		// want: the kind, name and namespace, Normalized, and what the
		// object's and old object's content must hold ("" fields: none).
		kind               schema.GroupVersionKind
		objName, namespace string
		normalized         bool
		object, old        map[string]any
		err                string
	}{{
		name: "typed Pod without TypeMeta: the scheme's kind", resource: pods, obj: pod,
		kind: podKind, objName: "web", namespace: "dev", normalized: true,
		object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "web", "namespace": "dev"},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx", "resources": map[string]any{}}}},
			"status":   map[string]any{}},
	}, {
		name: "typed Deployment with its TypeMeta", resource: deployments, obj: deployment,
		kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, objName: "api", namespace: "prod", normalized: true,
	}, {
		name: "update of typed Pods", resource: pods, obj: pod, oldObj: oldPod,
		kind: podKind, objName: "web", namespace: "dev", normalized: true,
	}, {
		name: "a nil pointer as old object is no old object", resource: pods, obj: pod, oldObj: (*corev1.Pod)(nil),
		kind: podKind, objName: "web", namespace: "dev", normalized: true,
	}, {
		name: "delete: the old object's kind and name", resource: pods, oldObj: oldPod,
		kind: podKind, objName: "web", namespace: "dev", normalized: true,
	}, {
		name: "unstructured custom resource taken as it is", resource: widgets, obj: custom,
		kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, objName: "w", namespace: "dev", normalized: false,
		object: custom.Object,
	}, {
		name: "one unstructured object: not normalized", resource: pods, obj: pod,
		oldObj: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web"}}},
		kind:   podKind, objName: "web", namespace: "dev", normalized: false,
	}, {
		name: "a namespace carries its own name", resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"},
		obj:  &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}},
		kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, objName: "team-a", namespace: "team-a", normalized: true,
	}, {
		name: "typed custom type with TypeMeta", resource: widgets,
		obj:  &widget{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"}, ObjectMeta: metav1.ObjectMeta{Name: "w"}, Size: 2},
		kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, objName: "w", normalized: true,
		object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "size": int64(2)},
	}, {
		name: "no kind known", resource: widgets, obj: &widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}},
		err: "object: cannot tell the kind of *admissionrequest.widget: its apiVersion and kind are not set and it is not the Go type of a built-in kind",
	}, {
		name: "unstructured without kind", resource: widgets, obj: &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "w"}}},
		err: `object: cannot tell the kind of the unstructured object: apiVersion "" and kind ""`,
	}, {
		name: "a TypeMeta the Go type is not", resource: pods,
		obj: &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}},
		err: "object: *v1.Pod is a v1 Pod, not the apps/v1 Deployment its apiVersion and kind say",
	}, {
		name: "objects of two kinds", resource: pods, obj: pod, oldObj: deployment,
		err: "the object is a v1 Pod and the old object a apps/v1 Deployment",
	}, {
		name: "no object", resource: pods, obj: nil, oldObj: (*corev1.Pod)(nil),
		err: "no object and no old object: the request's kind cannot be known",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromObjects(tc.resource, tc.obj, tc.oldObj)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.kind, got.Kind)
			assert.Equal(t, tc.objName, got.Name)
			assert.Equal(t, tc.namespace, got.Namespace)
			assert.Equal(t, tc.normalized, got.Normalized)
			if tc.object != nil {
				require.NotNil(t, got.Object)
				assert.Equal(t, tc.object, got.Object.Object)
			}
			if got.Normalized && mutationpatch.IsBuiltin(got.Kind) {
				// What kube-apiserver holds: the object through its Go type.
				for _, u := range []*unstructured.Unstructured{got.Object, got.OldObject} {
					if u != nil {
						normal, err := mutationpatch.Normalize(u.Object, got.Kind, true)
						require.NoError(t, err)
						assert.Equal(t, normal, u.Object)
					}
				}
			}
			if u, ok := tc.obj.(*unstructured.Unstructured); ok {
				assert.Same(t, u, got.Object, "an unstructured object is taken as it is")
			}
			if tc.obj == nil {
				assert.Nil(t, got.Object)
			}
			if tc.oldObj == nil || tc.name == "a nil pointer as old object is no old object" {
				assert.Nil(t, got.OldObject)
			} else {
				require.NotNil(t, got.OldObject)
				assert.Equal(t, tc.kind, got.OldObject.GroupVersionKind())
			}
		})
	}
	assert.Empty(t, pod.Kind, "the typed object is not modified")
}
