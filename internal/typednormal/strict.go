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
		for k := range m {
			if _, known := n.names[k]; !known || k == "-" {
				return false
			}
		}
		return n.knownStructFields(m, depth)
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

// knownStructFields is knownFields for the fields of struct plan n (and
// its inlined structs) read from m.
func (n *node) knownStructFields(m map[string]any, depth int) bool {
	for i := range n.fields {
		f := &n.fields[i]
		if f.name == "" {
			if !f.node.knownStructFields(m, depth+1) {
				return false
			}
			continue
		}
		if e, ok := m[f.name]; ok && e != nil && !f.node.knownFields(e, depth+1) {
			return false
		}
	}
	return true
}
