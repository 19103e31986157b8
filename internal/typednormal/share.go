package typednormal

import (
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NormalizeShared is Normalize for a caller that never modifies the result
// nor object afterwards: every map and slice of object that is already as
// the round trip gives it is shared with the result rather than copied, and
// an object already normal is returned itself, without allocating. Most
// objects a caller holds are mostly normal (a typed object's unstructured
// content is entirely), so the work is a walk of the object and copies
// along the paths that change. unchanged tells out is object.
func (n *Normalizer) NormalizeShared(gvk schema.GroupVersionKind, object map[string]any) (out map[string]any, unchanged, ok bool) {
	kp := n.kindPlan(gvk)
	if kp == nil || kp.root == nil {
		return nil, false, false
	}
	out, same, ok := kp.root.shareStruct(object, 0)
	if !ok {
		return nil, false, false
	}
	if kp.setGVK {
		// SetGroupVersionKind sets TypeMeta, whose fields are omitempty.
		for _, kv := range [2][2]string{{"apiVersion", kp.apiVersion}, {"kind", kp.kind}} {
			cur, present := out[kv[0]]
			if s, isString := cur.(string); (kv[1] == "" && !present) || (present && isString && s == kv[1]) {
				continue
			}
			if same {
				out, same = copyMap(object, len(object)+2), false
			}
			setOrDelete(out, kv[0], kv[1])
		}
	}
	return out, same, true
}

func copyMap(m map[string]any, size int) map[string]any {
	out := make(map[string]any, size)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// cow is the output of a struct being built copy-on-write: out is nil as
// long as every field read so far is as the round trip writes it, and then
// the input's known fields, updated as the walk goes on.
type cow struct {
	n   *node
	in  map[string]any
	out map[string]any
}

// diverge makes the output a map of its own.
func (c *cow) diverge() {
	if c.out != nil {
		return
	}
	c.out = make(map[string]any, c.n.sizeHint(c.in))
	for k, v := range c.in {
		if _, ok := c.n.byName[k]; ok {
			c.out[k] = v
		}
	}
}

// shareStruct is fill for a struct plan, sharing: out is in itself when
// same. It declines (not ok) wherever fill does. It walks the input's keys
// and the fields written when absent, not every field of the plan: an
// object holds few of its type's fields.
func (n *node) shareStruct(in map[string]any, depth int) (out map[string]any, same, ok bool) {
	if n.dupNames || depth > maxDepth {
		// A name written twice: the fields' order decides, which the
		// copy-on-write bookkeeping does not follow.
		out = make(map[string]any, n.sizeHint(in))
		if !n.fill(out, in, depth, false) {
			return nil, false, false
		}
		return out, false, true
	}
	for _, f := range n.zeroUnknown {
		if in[f.name] == nil {
			return nil, false, false // as fill: the zero output is unknown
		}
	}
	c := cow{n: n, in: in}
	if in == nil {
		c.diverge() // a nil map becomes {}
	}
	for k, v := range in {
		f, known := n.byName[k]
		if !known {
			c.diverge() // drops the unknown keys
			continue
		}
		if !c.field(f, v, depth) {
			return nil, false, false
		}
	}
	for _, f := range n.emits {
		if _, present := in[f.name]; !present {
			c.diverge()
			c.out[f.name] = copyZero(f.zero, f.zeroScalar)
		}
	}
	if c.out == nil {
		return in, true, true
	}
	return c.out, false, true
}

// field is fill's work for one field present in the input, into c.
func (c *cow) field(f *field, v any, depth int) bool {
	if v == nil {
		if !f.zeroOK {
			return false
		}
		switch {
		case f.zeroEmit && f.zeroScalar && f.zero == nil:
			// null stays null.
		case f.zeroEmit:
			c.diverge()
			c.out[f.name] = copyZero(f.zero, f.zeroScalar)
		default:
			c.diverge()
			delete(c.out, f.name)
		}
		return true
	}
	if f.skip {
		return false
	}
	o, empty, same, ok := f.node.shareConvert(v, depth+1)
	if !ok {
		return false
	}
	if (f.omitEmpty && empty) || (f.omitZero && o == nil) {
		c.diverge()
		delete(c.out, f.name)
		return true
	}
	if !same {
		c.diverge()
		c.out[f.name] = o
	}
	return true
}

// shareConvert is convert, sharing: same tells out is v itself.
func (n *node) shareConvert(v any, depth int) (out any, empty, same, ok bool) {
	switch n.kind {
	case pointerKind:
		o, _, same, ok := n.elem.shareConvert(v, depth)
		return o, false, same, ok
	case sliceKind:
		x, isSlice := v.([]any)
		if !isSlice || x == nil || depth > maxDepth {
			o, empty, ok := n.convert(v, depth, false)
			return o, empty, false, ok
		}
		s, same, ok := shareSlice(x, func(e any) (any, bool, bool) { return n.elem.shareElem(e, depth+1) })
		if !ok {
			return nil, false, false, false
		}
		if same {
			return v, len(x) == 0, true, true
		}
		return s, len(s) == 0, false, true
	case mapKind:
		x, isMap := v.(map[string]any)
		if !isMap || x == nil || depth > maxDepth {
			o, empty, ok := n.convert(v, depth, false)
			return o, empty, false, ok
		}
		m, same, ok := shareMap(x, func(e any) (any, bool, bool) { return n.elem.shareElem(e, depth+1) })
		if !ok {
			return nil, false, false, false
		}
		if same {
			return v, len(x) == 0, true, true
		}
		return m, len(m) == 0, false, true
	case structKind:
		x, isMap := v.(map[string]any)
		if !isMap {
			return nil, false, false, false
		}
		o, same, ok := n.shareStruct(x, depth)
		if !ok {
			return nil, false, false, false
		}
		if same {
			return v, false, true, true
		}
		return o, false, false, true
	case rawJSONKind:
		o, same, ok := shareJSONValue(v, depth)
		return o, false, same, ok
	case fieldsV1Kind:
		if _, isMap := v.(map[string]any); !isMap {
			return nil, false, false, false
		}
		o, same, ok := shareJSONValue(v, depth)
		return o, false, same, ok
	}
	// Scalars: the output is a string, bool or number, which compares.
	o, empty, ok := n.convert(v, depth, false)
	if !ok {
		return nil, false, false, false
	}
	if isComparable(v) && o == v {
		return v, empty, true, true
	}
	return o, empty, false, true
}

// isComparable tells v, an unstructured value, compares with ==.
func isComparable(v any) bool {
	switch v.(type) {
	case string, bool, int64, float64:
		return true
	}
	return false
}

// shareElem is the output of e, an element of a slice or map of plan n's
// type, sharing: a null element holds the zero value.
func (n *node) shareElem(e any, depth int) (out any, same, ok bool) {
	if e == nil {
		if !n.zeroOK {
			return nil, false, false
		}
		return copyZero(n.zero, n.zeroScalar), n.zeroScalar && n.zero == nil, true
	}
	o, _, same, ok := n.shareConvert(e, depth)
	return o, same, ok
}

// shareSlice is x with each element as elem gives it, copy-on-write: x
// itself (same) while elem changes none.
func shareSlice(x []any, elem func(any) (any, bool, bool)) (out []any, same, ok bool) {
	var s []any // nil while every element is the same
	for i, e := range x {
		o, same, ok := elem(e)
		if !ok {
			return nil, false, false
		}
		if !same && s == nil {
			s = make([]any, len(x))
			copy(s, x[:i])
		}
		if s != nil {
			s[i] = o
		}
	}
	if s == nil {
		return x, true, true
	}
	return s, false, true
}

// shareMap is shareSlice for a map's values.
func shareMap(x map[string]any, elem func(any) (any, bool, bool)) (out map[string]any, same, ok bool) {
	var m map[string]any // nil while every value is the same
	for k, e := range x {
		o, same, ok := elem(e)
		if !ok {
			return nil, false, false
		}
		if !same && m == nil {
			m = copyMap(x, len(x))
		}
		if m != nil {
			m[k] = o
		}
	}
	if m == nil {
		return x, true, true
	}
	return m, false, true
}

// shareJSONValue is jsonValue, sharing.
func shareJSONValue(v any, depth int) (any, bool, bool) {
	if depth > maxDepth {
		return nil, false, false
	}
	elem := func(e any) (any, bool, bool) { return shareJSONValue(e, depth+1) }
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return nil, false, true
		}
		for k := range x {
			if !utf8.ValidString(k) {
				return nil, false, false
			}
		}
		m, same, ok := shareMap(x, elem)
		if !ok {
			return nil, false, false
		}
		if same {
			return v, true, true
		}
		return m, false, true
	case []any:
		if x == nil {
			return nil, false, true
		}
		s, same, ok := shareSlice(x, elem)
		if !ok {
			return nil, false, false
		}
		if same {
			return v, true, true
		}
		return s, false, true
	}
	o, ok := jsonValue(v, depth)
	if !ok {
		return nil, false, false
	}
	if v != nil && isComparable(v) && o == v {
		return v, true, true
	}
	return o, v == nil && o == nil, true
}
