package typednormal

import "k8s.io/apimachinery/pkg/runtime/schema"

// NormalizeStrict is NormalizeDecoded for JSON decoded strictly, as
// kube-apiserver's strict JSON serializer decodes a patched document
// (sigs.k8s.io/json's UnmarshalStrict: field names matched case-sensitively,
// unknown and duplicate fields errors). It declines, in addition to what
// NormalizeDecoded declines, wherever object has a key that no field of the
// struct it is read into names exactly — an unknown field, a name in
// another case, the key "-" — at any depth, since strict decoding fails
// there. Duplicate fields cannot arise from unstructured content. false
// means not handled, as for Normalize.
func (n *Normalizer) NormalizeStrict(gvk schema.GroupVersionKind, object map[string]any) (map[string]any, bool) {
	kp := n.kindPlan(gvk)
	if kp == nil || kp.root == nil || !kp.root.knownFields(object, 0) {
		return nil, false
	}
	return n.NormalizeDecoded(gvk, object)
}

// knownFields tells whether every key of every struct read from v, held
// in a value of plan n, names a field of that struct exactly. A value of
// the wrong type is left to the walk of NormalizeDecoded, which declines
// it.
func (n *node) knownFields(v any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch n.kind {
	case structKind:
		m, ok := v.(map[string]any)
		if !ok {
			return true
		}
		for k, e := range m {
			if _, known := n.names[k]; !known || k == "-" {
				return false
			}
			// Only maps and slices hold structs.
			switch e.(type) {
			case map[string]any, []any:
				if f := n.fieldNamed(k); f != nil && !f.knownFields(e, depth+1) {
					return false
				}
			}
		}
		return true
	case pointerKind:
		return n.elem.knownFields(v, depth)
	case sliceKind:
		s, _ := v.([]any)
		for _, e := range s {
			if !n.elem.knownFields(e, depth+1) {
				return false
			}
		}
	case mapKind:
		m, _ := v.(map[string]any)
		for _, e := range m {
			if !n.elem.knownFields(e, depth+1) {
				return false
			}
		}
	}
	return true
}

// fieldNamed returns the plan of the field of struct plan n (or of its
// inlined structs) named name; nil if none.
func (n *node) fieldNamed(name string) *node {
	for i := range n.fields {
		f := &n.fields[i]
		if f.name == "" {
			if found := f.node.fieldNamed(name); found != nil {
				return found
			}
			continue
		}
		if f.name == name {
			return f.node
		}
	}
	return nil
}
