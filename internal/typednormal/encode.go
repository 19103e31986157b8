package typednormal

import (
	"math"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/jsonstring"
)

// AppendJSON appends to dst the JSON encoding/json writes for object,
// unstructured content of kind gvk, held in the kind's Go type with its
// apiVersion and kind set to those of setGVK:
//
//	typed, _ := scheme.New(gvk)
//	runtime.DefaultUnstructuredConverter.FromUnstructured(object, typed)
//	typed.GetObjectKind().SetGroupVersionKind(setGVK)
//	json.Marshal(typed)
//
// — kube-apiserver's encoding of a built-in object it holds. false means
// not handled: the caller must do that itself (it may fail, or give what
// the plan is not certain of), and dst is returned as it was.
//
// The object is normalized as Normalize does (the converter's output of the
// typed object, which leaves out exactly the fields encoding/json's
// omitempty and omitzero leave out, as the converter applies the same
// rules), then written following the plan: a struct's fields in the Go
// type's order, map keys sorted, strings escaped as encoding/json escapes
// them, floats formatted as it formats float64 or float32, the special
// types as their MarshalJSON writes them (their converted form as JSON;
// for RawExtension and FieldsV1 the input's JSON, which the converter
// stores and MarshalJSON writes back: -0.0 stays -0). It declines a struct whose names encoding/json resolves its
// own way (duplicates, inlined pointers), a tag option the converter does
// not follow (",string", a field named "-"), and a type with a MarshalJSON
// or MarshalText of its own that is not one of the special types.
func (n *Normalizer) AppendJSON(dst []byte, gvk schema.GroupVersionKind, object map[string]any, setGVK schema.GroupVersionKind) ([]byte, bool) {
	kp := n.kindPlan(gvk)
	if kp == nil || kp.root == nil || object == nil {
		return dst, false
	}
	out := make(map[string]any, kp.root.sizeHint(object))
	if !kp.root.fillStruct(out, object, 0, false) {
		return dst, false
	}
	if kp.setGVK {
		apiVersion, kind := setGVK.ToAPIVersionAndKind()
		setOrDelete(out, "apiVersion", apiVersion)
		setOrDelete(out, "kind", kind)
	}
	b := dst
	if size := int(kp.encodedSize.Load()); cap(b)-len(b) < size {
		// One allocation where growing would take several.
		b = make([]byte, len(dst), len(dst)+size+size/8)
		copy(b, dst)
	}
	b, ok := appendStruct(b, kp.root, out, object, 0)
	if !ok {
		return dst, false
	}
	kp.encodedSize.Store(int64(len(b) - len(dst)))
	return b, true
}

// appendStruct writes struct plan n of converted content m, converted
// from in.
func appendStruct(b []byte, n *node, m, in map[string]any, depth int) ([]byte, bool) {
	b, _, ok := appendFields(append(b, '{'), n, m, in, true, depth)
	if !ok {
		return b, false
	}
	return append(b, '}'), true
}

// appendFields writes the fields of struct plan n present in m, the
// converter's output, which holds exactly the fields encoding/json writes
// (absent: left out by omitempty or omitzero), converted from in; first
// tells no field was written before.
func appendFields(b []byte, n *node, m, in map[string]any, first bool, depth int) ([]byte, bool, bool) {
	if n.kind != structKind || n.dupNames || n.inlinePointer || n.marshals || depth > maxDepth {
		return b, first, false
	}
	for i := range n.fields {
		f := &n.fields[i]
		if f.name == "" {
			var ok bool
			if b, first, ok = appendFields(b, f.node, m, in, first, depth+1); !ok {
				return b, first, false
			}
			continue
		}
		if f.jsonDiffers {
			return b, first, false
		}
		v, present := m[f.name]
		if !present {
			continue
		}
		if f.skip {
			return b, first, false
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonstring.Append(b, f.name)
		b = append(b, ':')
		var ok bool
		if b, ok = appendValue(b, f.node, v, in[f.name], depth+1); !ok {
			return b, first, false
		}
	}
	return b, first, true
}

// appendValue writes v, the converter's output for a value of plan n
// converted from in, as encoding/json writes the typed value.
func appendValue(b []byte, n *node, v, in any, depth int) ([]byte, bool) {
	if n.marshals || depth > maxDepth {
		return b, false
	}
	switch n.kind {
	case stringKind, quantityKind, durationKind:
		s, ok := v.(string)
		if !ok {
			return b, false
		}
		return jsonstring.Append(b, s), true
	case boolKind:
		x, ok := v.(bool)
		if !ok {
			return b, false
		}
		return strconv.AppendBool(b, x), true
	case intKind:
		x, ok := v.(int64)
		if !ok {
			return b, false
		}
		return strconv.AppendInt(b, x, 10), true
	case floatKind:
		x, ok := v.(float64)
		if !ok {
			return b, false
		}
		bits := 64
		if n.float32 {
			bits = 32
		}
		return appendFloat(b, x, bits)
	case bytesKind, timeKind, microTimeKind:
		// base64, RFC 3339: a string; null for nil (the zero time).
		switch x := v.(type) {
		case nil:
			return append(b, "null"...), true
		case string:
			return jsonstring.Append(b, x), true
		}
		return b, false
	case intOrStringKind:
		switch x := v.(type) {
		case int64:
			return strconv.AppendInt(b, x, 10), true
		case string:
			return jsonstring.Append(b, x), true
		}
		return b, false
	case pointerKind:
		if v == nil {
			return append(b, "null"...), true
		}
		return appendValue(b, n.elem, v, in, depth+1)
	case sliceKind:
		switch x := v.(type) {
		case nil:
			return append(b, "null"...), true
		case []any:
			if x == nil {
				return append(b, "null"...), true
			}
			ins, _ := in.([]any)
			if len(ins) != len(x) {
				return b, false
			}
			b = append(b, '[')
			for i, e := range x {
				if i > 0 {
					b = append(b, ',')
				}
				var ok bool
				if b, ok = appendValue(b, n.elem, e, ins[i], depth+1); !ok {
					return b, false
				}
			}
			return append(b, ']'), true
		}
		return b, false
	case mapKind:
		switch x := v.(type) {
		case nil:
			return append(b, "null"...), true
		case map[string]any:
			if x == nil {
				return append(b, "null"...), true
			}
			inm, _ := in.(map[string]any)
			return appendMap(b, x, depth, func(b []byte, k string, e any) ([]byte, bool) {
				return appendValue(b, n.elem, e, inm[k], depth+1)
			})
		}
		return b, false
	case structKind:
		x, ok := v.(map[string]any)
		if !ok || x == nil {
			return b, false
		}
		inm, _ := in.(map[string]any)
		return appendStruct(b, n, x, inm, depth+1)
	case rawJSONKind, fieldsV1Kind:
		// MarshalJSON writes the JSON the converter stored, json.Marshal
		// of the input (which encoding/json compacts, unchanged): in's
		// JSON, not v's (-0 is 0 in v). The plan checked in is JSON
		// content, of valid UTF-8; null (or absent) is the zero value,
		// null too.
		return appendJSONValue(b, in, depth+1)
	}
	return b, false
}

// appendMap writes the entries of m in the order of their keys, as
// encoding/json does, each value with elem.
func appendMap(b []byte, m map[string]any, depth int, elem func(b []byte, k string, v any) ([]byte, bool)) ([]byte, bool) {
	if depth > maxDepth {
		return b, false
	}
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonstring.Append(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = elem(b, k, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendJSONValue writes v, JSON content as the converter decodes it
// (nil, string, bool, int64, float64, map[string]any, []any), as
// encoding/json does.
func appendJSONValue(b []byte, v any, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return b, false
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return jsonstring.Append(b, x), true
	case bool:
		return strconv.AppendBool(b, x), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case float64:
		return appendFloat(b, x, 64)
	case []any:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSONValue(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		return appendMap(b, x, depth, func(b []byte, _ string, e any) ([]byte, bool) {
			return appendJSONValue(b, e, depth+1)
		})
	}
	return b, false
}

// appendFloat writes f as encoding/json's floatEncoder of size bits does;
// false for NaN and the infinities, which it fails on.
func appendFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	if bits == 32 && float64(float32(f)) != f {
		// Not a float32's value: the plan's output is one.
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
