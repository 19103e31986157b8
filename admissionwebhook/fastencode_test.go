package admissionwebhook

import (
	"bytes"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// encodingCase is a request whose review is encoded both ways.
type encodingCase struct {
	name, namespace, subResource, username, group, extraKey, extraValue, value string
	v1beta1, dryRun, old, shared, options, custom, nilExtra                    bool
}

// review builds the review of c as a call builds it.
func (c encodingCase) review(t *testing.T, w *wire) (runtime.Object, bool) {
	t.Helper()
	kind := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	resource := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	object := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": c.name, "namespace": c.namespace, "labels": map[string]any{"app": c.value}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": c.value}}},
	}
	if c.custom {
		kind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
		resource = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
		object = map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": c.name},
			"spec":     map[string]any{"x": c.value, "n": int64(3), "f": 1.5, "<b>": true},
		}
	}
	extra := map[string]authenticationv1.ExtraValue{c.extraKey: {c.extraValue}, "z": {"1", "2"}}
	if c.nilExtra {
		extra = map[string]authenticationv1.ExtraValue{c.extraKey: nil}
	}
	r := &Request{
		Operation: admissionv1.Create, Kind: kind, Resource: resource, SubResource: c.subResource,
		Name: c.name, Namespace: c.namespace, DryRun: c.dryRun,
		UserInfo: authenticationv1.UserInfo{Username: c.username, Groups: []string{c.group, "system:authenticated"}, Extra: extra},
		Object:   &unstructured.Unstructured{Object: object},
	}
	inv := &invocation{kind: kind, resource: resource, object: object}
	if c.old {
		r.Operation = admissionv1.Update
		r.OldObject = &unstructured.Unstructured{Object: runtime.DeepCopyJSON(object)}
		inv.old = r.OldObject.Object
	}
	if c.options {
		r.Options = &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}, FieldManager: c.value}
	}
	if c.shared {
		inv.encoded = &encodedObjects{}
	}
	versions := []string{"v1"}
	if c.v1beta1 {
		versions = []string{"v1beta1"}
	}
	review, _, err := w.review(versions, "0b7a6c61-0000-4000-8000-000000000001", r, inv)
	return review, err == nil
}

// checkFastEncoding encodes c's review both ways: when the fast path takes
// it, the bytes are the codec's. It reports whether the fast path took it.
func checkFastEncoding(t *testing.T, w *wire, c encodingCase) bool {
	t.Helper()
	review, ok := c.review(t, w)
	if !ok {
		return false
	}
	fast, ok := fastEncodeReview(review)
	if !ok {
		return false
	}
	exact, err := w.encodeExact(review)
	if err != nil {
		t.Fatalf("%+v: the fast path encoded\n%s\nthe codec failed: %v", c, fast, err)
	}
	if !bytes.Equal(fast, exact) {
		t.Fatalf("%+v: the fast path encoded\n%s\nthe codec\n%s", c, fast, exact)
	}
	return true
}

var plainEncoding = encodingCase{name: "p", namespace: "default", username: "alice", group: "dev", extraKey: "scopes", extraValue: "a", value: "nginx"}

func TestFastEncodeReview(t *testing.T) {
	w, err := newWire()
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(*encodingCase)) encodingCase {
		c := plainEncoding
		f(&c)
		return c
	}
	tests := []struct {
		name string
		c    encodingCase
		fast bool
	}{
		{"pod, shared encoding", with(func(c *encodingCase) { c.shared = true }), true},
		{"pod, own encoding", plainEncoding, true},
		{"update with the old object, dry run", with(func(c *encodingCase) { c.old, c.dryRun = true, true }), true},
		{"v1beta1", with(func(c *encodingCase) { c.v1beta1 = true }), true},
		{"options", with(func(c *encodingCase) { c.options = true }), true},
		{"custom resource", with(func(c *encodingCase) { c.custom, c.shared = true, true }), true},
		{"subresource, empty namespace", with(func(c *encodingCase) { c.subResource, c.namespace = "status", "" }), true},
		{"a null extra value", with(func(c *encodingCase) { c.nilExtra = true }), true},
		{"unicode", with(func(c *encodingCase) { c.username = "élodie 日本" }), true},
		{"escapes in the object", with(func(c *encodingCase) { c.value = "a<b>&\"c\"\u2028" }), true},

		{"a quote", with(func(c *encodingCase) { c.username = `a"b` }), false},
		{"HTML characters", with(func(c *encodingCase) { c.group = "<dev>" }), false},
		{"an ampersand in a key", with(func(c *encodingCase) { c.extraKey = "a&b" }), false},
		{"a control character", with(func(c *encodingCase) { c.extraValue = "a\nb" }), false},
		{"invalid UTF-8", with(func(c *encodingCase) { c.username = "\xff" }), false},
		{"line separator", with(func(c *encodingCase) { c.username = "a\u2028b" }), false},
		{"a name to escape", with(func(c *encodingCase) { c.name = `p\` }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkFastEncoding(t, w, tt.c); got != tt.fast {
				t.Errorf("fast path taken: %v, want %v", got, tt.fast)
			}
		})
	}
	if _, ok := fastEncodeReview(&admissionv1.AdmissionReview{Request: &admissionv1.AdmissionRequest{}, Response: &admissionv1.AdmissionResponse{}}); ok {
		t.Error("encoded a review with a response")
	}
	if _, ok := fastEncodeReview(&admissionv1.AdmissionReview{Request: &admissionv1.AdmissionRequest{Object: runtime.RawExtension{Raw: []byte("a: b")}}}); ok {
		t.Error("encoded a review with a raw object not in JSON")
	}
}

// FuzzAdmissionReviewEncoding: whatever review the fast path encodes, it
// encodes to the codec's bytes.
func FuzzAdmissionReviewEncoding(f *testing.F) {
	w, err := newWire()
	if err != nil {
		f.Fatal(err)
	}
	add := func(c encodingCase) {
		f.Add(c.name, c.namespace, c.subResource, c.username, c.group, c.extraKey, c.extraValue, c.value,
			c.v1beta1, c.dryRun, c.old, c.shared, c.options, c.custom, c.nilExtra)
	}
	add(plainEncoding)
	add(encodingCase{name: "web-1", namespace: "kube-system", subResource: "status", username: "system:serviceaccount:kube-system:x", group: "system:serviceaccounts",
		extraKey: "authentication.kubernetes.io/pod-name", extraValue: "x-1", value: "registry.k8s.io/pause:3.10", v1beta1: true, dryRun: true, old: true, shared: true, options: true})
	add(encodingCase{name: "w", username: "日本", group: "é", extraKey: "", extraValue: "", value: "<&>\u2028", custom: true, nilExtra: true})
	add(encodingCase{name: `a"b`, username: "a\\b", group: "\x00", extraKey: "\xff", value: "\ud7ff"})
	f.Fuzz(func(t *testing.T, name, namespace, subResource, username, group, extraKey, extraValue, value string, v1beta1, dryRun, old, shared, options, custom, nilExtra bool) {
		checkFastEncoding(t, w, encodingCase{name, namespace, subResource, username, group, extraKey, extraValue, value, v1beta1, dryRun, old, shared, options, custom, nilExtra})
	})
}
