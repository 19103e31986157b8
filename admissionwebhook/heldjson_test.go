package admissionwebhook

import (
	stdjson "encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestFastHeldJSON: the objects fastHeldJSON writes, it writes as
// json.Marshal writes the held object (with the apiVersion and kind its
// content names, in the Go type of the kind it is held as); the others it
// leaves to the held object, whose errors are kube-apiserver's.
func TestFastHeldJSON(t *testing.T) {
	w, err := newWire()
	if err != nil {
		t.Fatal(err)
	}
	pods := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	deployments := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	widgets := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	pod := func(spec map[string]any) map[string]any {
		return map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "p", "labels": map[string]any{"b": "<2>", "a": "1&"}, "unknown": true},
			"spec":     spec,
		}
	}
	tests := []struct {
		name       string
		object     map[string]any
		kind, as   schema.GroupVersionKind
		fast       bool
		exactFails bool
	}{
		{"pod", pod(map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx\u2028", "resources": map[string]any{"limits": map[string]any{"cpu": "1000m"}}}}}), pods, pods, true, false},
		{"pod, a whole float as an integer", pod(map[string]any{"containers": []any{}, "priority": 2.0}), pods, pods, true, false},
		{"held as another kind", map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": map[string]any{"replicas": int64(2)}}, deployments, deployments, true, false},
		{"no apiVersion", map[string]any{"kind": "Pod"}, pods, pods, true, false},
		{"a type mismatch", pod(map[string]any{"containers": "no"}), pods, pods, false, true},
		{"a fraction in an integer", pod(map[string]any{"priority": 1.5}), pods, pods, false, true},
		{"a custom resource", map[string]any{"apiVersion": "example.com/v1", "kind": "Widget"}, widgets, widgets, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fast, ok := w.fastHeldJSON(tt.object, tt.kind, tt.as)
			if ok != tt.fast {
				t.Fatalf("fast path taken: %v, want %v", ok, tt.fast)
			}
			obj, err := w.held(tt.object, tt.kind, tt.as)
			if (err != nil) != tt.exactFails {
				t.Fatalf("held: %v, want failing %v", err, tt.exactFails)
			}
			if !ok || err != nil {
				return
			}
			exact, err := stdjson.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			if string(fast) != string(exact) {
				t.Errorf("fast:  %s\nexact: %s", fast, exact)
			}
			doc, err := w.encodeObject(tt.object, tt.kind, tt.as)
			if err != nil || string(doc) != string(exact) {
				t.Errorf("encodeObject: %s, %v", doc, err)
			}
		})
	}
}

// TestReviewRawAsObject: the codec writes a review's object given as the
// JSON json.Marshal writes for it (heldRaw's Raw) as it writes the object,
// escapes and invalid UTF-8 included, in both versions.
func TestReviewRawAsObject(t *testing.T) {
	w, err := newWire()
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "a<b>&\u2028", Labels: map[string]string{"z": "1", "a": "\xff"}},
	}
	raw, err := stdjson.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	reviews := func(object runtime.RawExtension) []runtime.Object {
		// A quote in the UID: the codec, not fastEncodeReview.
		return []runtime.Object{
			&admissionv1.AdmissionReview{Request: &admissionv1.AdmissionRequest{UID: `q"`, Object: object}},
			&admissionv1beta1.AdmissionReview{Request: &admissionv1beta1.AdmissionRequest{UID: `q"`, Object: object}},
		}
	}
	asObject, asRaw := reviews(runtime.RawExtension{Object: pod}), reviews(runtime.RawExtension{Raw: raw})
	for i := range asObject {
		want, err := w.encodeExact(asObject[i])
		if err != nil {
			t.Fatal(err)
		}
		got, err := w.encodeExact(asRaw[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("the object as Raw JSON:\n%s\nas an Object:\n%s", got, want)
		}
	}
}
