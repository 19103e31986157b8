package policycheck

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxSampleDepth bounds the nesting of a sample object.
const maxSampleDepth = 12

// Sample builds an object of a kind from its schema: apiVersion, kind, a
// name (and the namespace "default" when namespaced), and every field the
// schema says is always present, recursively (lists of objects get one
// item; strings are "sample", numbers 1, booleans false).
func Sample(n *Node, gvk schema.GroupVersionKind, namespaced bool) map[string]any {
	out, _ := sampleValue(n, 0).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	out["apiVersion"] = gvk.GroupVersion().String()
	out["kind"] = gvk.Kind
	meta := map[string]any{"name": "sample"}
	if namespaced {
		meta["namespace"] = "default"
	}
	out["metadata"] = meta
	return out
}

func sampleValue(n *Node, depth int) any {
	if n == nil || depth > maxSampleDepth {
		return nil
	}
	switch n.Type {
	case TypeObject:
		out := map[string]any{}
		for name, f := range n.Fields {
			if !f.Present {
				continue
			}
			if v := sampleValue(f.Node, depth+1); v != nil {
				out[name] = v
			}
		}
		return out
	case TypeList:
		if n.Elem != nil && n.Elem.Type == TypeObject {
			return []any{sampleValue(n.Elem, depth+1)}
		}
		return []any{}
	case TypeMap:
		return map[string]any{}
	case TypeString:
		return "sample"
	case TypeInt, TypeNumber:
		return int64(1)
	case TypeBool:
		return false
	}
	return nil
}

// ServedKind returns the resource of a kind's objects (not a subresource)
// and whether it is namespaced.
func (k *Kinds) ServedKind(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool, bool) {
	for _, s := range k.Served() {
		if s.Subresource == "" && s.KindGroup == gvk.Group && s.KindVersion == gvk.Version && s.Kind == gvk.Kind {
			return schema.GroupVersionResource{Group: s.Group, Version: s.Version, Resource: s.Resource}, s.Namespaced, true
		}
	}
	return schema.GroupVersionResource{}, false, false
}
