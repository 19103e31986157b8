package typednormal

import (
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Normalizer normalizes the objects of the kinds of a scheme, each kind's
// plan built at its first use. It is safe for concurrent use.
type Normalizer struct {
	scheme *runtime.Scheme
	// kinds maps a schema.GroupVersionKind the scheme recognizes to its
	// *kindPlan: bounded by the scheme's kinds, as a kind it does not
	// recognize is never stored (requests name any kind they like).
	kinds sync.Map

	mu sync.Mutex // guards planner
	// planner keeps the plan of each Go type planned: bounded by the Go
	// types the scheme's kinds reach.
	planner planner
}

// kindPlan is the plan of a kind: its Go type's, and the apiVersion and
// kind the round trip sets. root is nil if the kind is not handled.
type kindPlan struct {
	root *node
	// setGVK tells the kind's Go type keeps its apiVersion and kind
	// (TypeMeta); some (WatchEvent) have none.
	setGVK           bool
	apiVersion, kind string
	// encodedSize is the length of the JSON AppendJSON last wrote for the
	// kind, the capacity it allocates when dst has too little.
	encodedSize atomic.Int64
}

// New returns a Normalizer of the kinds of scheme, which must not be
// modified afterwards.
func New(scheme *runtime.Scheme) *Normalizer {
	return &Normalizer{scheme: scheme, planner: planner{types: map[reflect.Type]*node{}}}
}

// Normalize returns object, unstructured content of kind gvk, as the round
// trip through the kind's Go type gives it:
//
//	typed, _ := scheme.New(gvk)
//	runtime.DefaultUnstructuredConverter.FromUnstructured(object, typed)
//	typed.GetObjectKind().SetGroupVersionKind(gvk)
//	runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
//
// false means not handled: the caller must do that round trip itself (it
// may fail, or give what the plan is not certain of). object is not
// modified, and the result shares no map or slice with it.
func (n *Normalizer) Normalize(gvk schema.GroupVersionKind, object map[string]any) (map[string]any, bool) {
	kp := n.kindPlan(gvk)
	if kp == nil || kp.root == nil {
		return nil, false
	}
	out := make(map[string]any, kp.root.sizeHint(object))
	if !kp.root.fillStruct(out, object, 0, false) {
		return nil, false
	}
	if kp.setGVK {
		// SetGroupVersionKind sets TypeMeta, whose fields are omitempty.
		setOrDelete(out, "apiVersion", kp.apiVersion)
		setOrDelete(out, "kind", kp.kind)
	}
	return out, true
}

// NormalizeDecoded returns what decoding the JSON of object (encoding/json)
// into the Go type of gvk with a JSON serializer that is not strict, then
// ToUnstructured, gives — kube-apiserver's mutating webhook dispatcher's
// work on a patched object — when object names gvk as its apiVersion and
// kind. The two differ from Normalize's round trip on a few inputs, where
// it declines: a null metav1.Duration (which fails to decode), strings
// that are not UTF-8 (which JSON replaces), float32 and unsigned fields,
// names encoding/json resolves its own way, unknown fields that do not
// encode. false means not handled, as for Normalize.
func (n *Normalizer) NormalizeDecoded(gvk schema.GroupVersionKind, object map[string]any) (map[string]any, bool) {
	kp := n.kindPlan(gvk)
	if kp == nil || kp.root == nil || !kp.setGVK || kp.apiVersion == "" || kp.kind == "" {
		return nil, false
	}
	if apiVersion, _ := object["apiVersion"].(string); apiVersion != kp.apiVersion {
		return nil, false
	}
	if kind, _ := object["kind"].(string); kind != kp.kind {
		return nil, false
	}
	for k := range object {
		// The serializer reads apiVersion and kind with encoding/json,
		// whose names match keys whatever their case.
		if k != "apiVersion" && k != "kind" && (strings.EqualFold(k, "apiVersion") || strings.EqualFold(k, "kind")) {
			return nil, false
		}
	}
	out := make(map[string]any, kp.root.sizeHint(object))
	if !kp.root.fillStruct(out, object, 0, true) {
		return nil, false
	}
	return out, true
}

func setOrDelete(m map[string]any, key, value string) {
	if value == "" {
		delete(m, key)
		return
	}
	m[key] = value
}

// kindPlan returns the plan of gvk, built once; nil if the scheme does not
// recognize gvk.
func (n *Normalizer) kindPlan(gvk schema.GroupVersionKind) *kindPlan {
	if kp, ok := n.kinds.Load(gvk); ok {
		return kp.(*kindPlan)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if kp, ok := n.kinds.Load(gvk); ok {
		return kp.(*kindPlan)
	}
	obj, err := n.scheme.New(gvk)
	if err != nil {
		return nil
	}
	kp := &kindPlan{}
	if t := reflect.TypeOf(obj); t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		root := n.planner.plan(t.Elem())
		switch {
		case root.kind != structKind:
		case n.typeMetaRoot(root):
			kp.root, kp.setGVK = root, true
			kp.apiVersion, kp.kind = gvk.ToAPIVersionAndKind()
		case obj.GetObjectKind() == schema.EmptyObjectKind:
			// Setting the GVK does nothing.
			kp.root = root
		}
	}
	n.kinds.Store(gvk, kp)
	return kp
}

// typeMetaRoot tells root inlines metav1.TypeMeta and no other field of it
// is named apiVersion or kind, so setting the GVK writes those two keys.
func (n *Normalizer) typeMetaRoot(root *node) bool {
	typeMeta := n.planner.plan(reflect.TypeFor[metav1.TypeMeta]())
	found := false
	for _, f := range root.fields {
		switch {
		case f.name == "" && f.node == typeMeta:
			found = true
		case f.name == "" && hasField(f.node, "apiVersion", "kind"):
			return false
		case f.name == "apiVersion" || f.name == "kind":
			return false
		}
	}
	return found
}

// hasField tells whether struct plan s writes one of names.
func hasField(s *node, names ...string) bool {
	for _, f := range s.fields {
		if f.name == "" {
			if hasField(f.node, names...) {
				return true
			}
			continue
		}
		for _, name := range names {
			if f.name == name {
				return true
			}
		}
	}
	return false
}
