package admissionwebhook

import (
	stdjson "encoding/json"
	"testing"

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
