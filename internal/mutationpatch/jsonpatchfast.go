package mutationpatch

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/typednormal"
)

// fastJSONPatch is JSONPatch without JSON: the operations applied to a copy
// of object made only along the paths they touch (the rest shared until the
// result is built, which shares nothing with object), when
// every operation is an add, replace, remove or test, with
// json-patch v4.13.0's semantics (quirks included: a replace of a missing
// key adds it, an add at index -1 appends, negative indices count from the
// end, what precedes a path's first "/" is ignored). The values are decoded
// as the exact path's strict decoding of the patched document decodes
// them; the result is then a built-in kind's, normalized as its strict
// decoding into the Go type gives it (typednormal's NormalizeStrict), or
// the unstructured content itself, whose JSON round trip the exact path
// makes and which is checked to be the identity.
//
// false means not handled: wherever the outcome is not certain — an
// operation that fails (the exact path's error), an operation it does not
// implement, a value or an object whose JSON would decode otherwise — the
// caller runs the exact path. It never fails itself.
func (t *typedKinds) fastJSONPatch(ops []byte, object map[string]any, gvk schema.GroupVersionKind, builtin bool) (map[string]any, bool) {
	if object == nil {
		return nil, false
	}
	typed := builtin && t.isTyped(gvk)
	p, ok := decodeOps(ops)
	if !ok {
		return nil, false
	}
	if !typed && !jsonStable(object, 0) {
		// The exact path's round trip through JSON would change it.
		return nil, false
	}
	a := patcher{root: object, typed: typed}
	mutated := false
	for _, op := range p {
		switch kind := op.kind; kind {
		case "test":
			if mutated && a.altered {
				// json-patch compares the texts of the values it
				// added, and tells a null value from an absent one:
				// followed only when they are the texts of the
				// values and no null was set.
				return nil, false
			}
			pass, ok := a.test(op)
			if !ok {
				return nil, false
			}
			if !pass {
				// The exact path leaves the object as it is, once
				// its JSON is written.
				if typed && !typednormal.Marshalable(object) {
					return nil, false
				}
				return object, true
			}
		case "add", "replace", "remove":
			if !a.mutate(kind, op) {
				return nil, false
			}
			mutated = true
		default:
			return nil, false
		}
	}
	if typed {
		return t.normal.NormalizeStrict(gvk, a.root)
	}
	if !decodesUnstructured(a.root) {
		return nil, false
	}
	// The result shares nothing with object, as the exact path's: callers
	// modify it (a webhook's Defaulter) and tell an unchanged object by
	// its identity.
	return a.unshare(a.root).(map[string]any), true
}

// unshare returns v with every map and slice the patcher does not own
// copied: a result that shares nothing with the object patched. The
// patcher's own containers (which hold the changes) are kept.
func (a *patcher) unshare(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if !a.isOwned(x) {
			return deepCopyJSON(x)
		}
		for k, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				x[k] = a.unshare(e)
			}
		}
	case []any:
		if !a.isOwned(x) {
			return deepCopyJSON(x)
		}
		for i, e := range x {
			x[i] = a.unshare(e)
		}
	}
	return v
}

// deepCopyJSON copies v, unstructured content of JSON's types.
func deepCopyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopyJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopyJSON(e)
		}
		return s
	}
	return v
}

// patcher applies operations to root copy-on-write.
type patcher struct {
	root map[string]any
	// typed: the result is decoded into a built-in kind's Go type.
	typed bool
	// owned are the maps and slices made by this patch (first elements
	// of slices), which it may modify in place.
	owned []unsafe.Pointer
	// altered tells a value was set whose JSON text is not the one
	// encoding/json writes for it, or a null value was set explicitly
	// (json-patch holds it as a node, not as nil).
	altered bool
}

// cloneMap is a shallow copy of m, with room for one more key.
func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// identity is what tells the patcher's own containers: a map's pointer, a
// non-empty slice's first element's; nil otherwise.
func identity(c any) unsafe.Pointer {
	switch x := c.(type) {
	case map[string]any:
		return reflect.ValueOf(x).UnsafePointer()
	case []any:
		if len(x) > 0 {
			return unsafe.Pointer(&x[0])
		}
	}
	return nil
}

// isOwned tells c is a map or a slice the patcher made.
func (a *patcher) isOwned(c any) bool {
	id := identity(c)
	return id != nil && slices.Contains(a.owned, id)
}

// own returns c, a map or a slice, or a copy of it the patcher owns.
func (a *patcher) own(c any) any {
	if a.isOwned(c) {
		return c
	}
	switch x := c.(type) {
	case map[string]any:
		m := cloneMap(x)
		a.owned = append(a.owned, identity(m))
		return m
	case []any:
		s := slices.Clone(x)
		if len(s) > 0 {
			a.owned = append(a.owned, identity(s))
		}
		return s
	}
	return c
}

// splitPath splits a JSON pointer as json-patch does: what precedes the
// first "/" ignored, the parents' keys and the last key unescaped.
func splitPath(path string) (parents []string, key string, ok bool) {
	split := strings.Split(path, "/")
	if len(split) < 2 {
		return nil, "", false
	}
	parents = split[1 : len(split)-1]
	for i, p := range parents {
		parents[i] = unescapePointer(p)
	}
	return parents, unescapePointer(split[len(split)-1]), true
}

// container returns v if it is a map or a slice json-patch descends into:
// not null (a nil map or slice is null in JSON).
func container(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, x != nil
	case []any:
		return x, x != nil
	}
	return nil, false
}

// child returns the container at key in c, as json-patch's findObject
// finds it; false where json-patch fails.
func (a *patcher) child(c any, key string) (any, bool) {
	switch x := c.(type) {
	case map[string]any:
		if a.typed && !validKeys(x) {
			return nil, false
		}
		v, ok := x[key]
		if !ok {
			return nil, false
		}
		return container(v)
	case []any:
		i, ok := getIndex(key, len(x))
		if !ok {
			return nil, false
		}
		return container(x[i])
	}
	return nil, false
}

// getIndex is json-patch's index of key in an array of n elements for
// get, replace and remove: strconv.Atoi's, negative from the end.
func getIndex(key string, n int) (int, bool) {
	i, err := strconv.Atoi(key)
	if err != nil || i >= n {
		return 0, false
	}
	if i < 0 {
		if i < -n {
			return 0, false
		}
		i += n
	}
	return i, true
}

// addIndex is json-patch's index of key for an add into an array of n
// elements: "-" or an index up to n, negative from the end of the array
// with one more element (so -1 appends).
func addIndex(key string, n int) (int, bool) {
	if key == "-" {
		return n, true
	}
	i, err := strconv.Atoi(key)
	if err != nil || i >= n+1 {
		return 0, false
	}
	if i < 0 {
		if i < -(n + 1) {
			return 0, false
		}
		i += n + 1
	}
	return i, true
}

// mutate applies an add, replace or remove operation; false if it fails
// or is not handled.
func (a *patcher) mutate(kind string, op patchOp) bool {
	parents, key, ok := splitPath(op.path)
	if !ok {
		return false
	}
	var value any
	if kind != "remove" {
		if op.hasValue && op.value == nil {
			a.altered = true
		}
		if op.value != nil {
			if value, ok = (valueDecoder{canonical: a.typed, altered: &a.altered}).decode(op.value); !ok {
				return false
			}
		}
	}
	root, ok := a.apply(a.root, parents, func(c any) (any, bool) {
		return a.leaf(kind, c, key, value)
	})
	if !ok {
		return false
	}
	a.root = root.(map[string]any)
	return true
}

// apply descends c along parents and applies leaf to the container found;
// it returns c, or the copy of it holding the change.
func (a *patcher) apply(c any, parents []string, leaf func(any) (any, bool)) (any, bool) {
	if len(parents) == 0 {
		return leaf(c)
	}
	next, ok := a.child(c, parents[0])
	if !ok {
		return nil, false
	}
	changed, ok := a.apply(next, parents[1:], leaf)
	if !ok {
		return nil, false
	}
	c = a.own(c)
	switch x := c.(type) {
	case map[string]any:
		x[parents[0]] = changed
	case []any:
		i, _ := getIndex(parents[0], len(x))
		x[i] = changed
	}
	return c, true
}

// leaf applies an operation to the key of container c.
func (a *patcher) leaf(kind string, c any, key string, value any) (any, bool) {
	switch x := c.(type) {
	case map[string]any:
		if a.typed && !validKeys(x) {
			return nil, false
		}
		old, exists := x[key]
		if exists && !a.droppable(old) {
			return nil, false
		}
		if kind == "remove" && !exists {
			return nil, false
		}
		m := a.own(x).(map[string]any)
		if kind == "remove" {
			delete(m, key)
		} else {
			// replace, like add, sets a missing key.
			m[key] = value
		}
		return m, true
	case []any:
		switch kind {
		case "add":
			i, ok := addIndex(key, len(x))
			if !ok {
				return nil, false
			}
			s := make([]any, len(x)+1)
			copy(s, x[:i])
			s[i] = value
			copy(s[i+1:], x[i:])
			a.owned = append(a.owned, identity(s))
			return s, true
		case "replace":
			i, ok := getIndex(key, len(x))
			if !ok || !a.droppable(x[i]) {
				return nil, false
			}
			s := a.own(x).([]any)
			s[i] = value
			return s, true
		case "remove":
			i, ok := getIndex(key, len(x))
			if !ok || !a.droppable(x[i]) {
				return nil, false
			}
			s := make([]any, 0, len(x)-1)
			s = append(append(s, x[:i]...), x[i+1:]...)
			if len(s) > 0 {
				a.owned = append(a.owned, identity(s))
			}
			return s, true
		}
	}
	return nil, false
}

// droppable tells the exact path writes v, a value the patch drops, to
// JSON: for unstructured content the whole object was checked.
func (a *patcher) droppable(v any) bool {
	return !a.typed || typednormal.Marshalable(v)
}

// test applies a test operation to the object as it is: pass tells it
// passes; false if it fails with an error or is not handled.
func (a *patcher) test(op patchOp) (pass, ok bool) {
	if op.path == "" {
		return false, false
	}
	parents, key, ok := splitPath(op.path)
	if !ok {
		return false, false
	}
	var c any = a.root
	for _, p := range parents {
		if c, ok = a.child(c, p); !ok {
			return false, false
		}
	}
	var val any
	switch x := c.(type) {
	case map[string]any:
		if a.typed && !validKeys(x) {
			return false, false
		}
		val = x[key]
	case []any:
		i, ok := getIndex(key, len(x))
		if !ok {
			return false, false
		}
		val = x[i]
	}
	if isNull(val) {
		return !op.hasValue || op.value == nil, true
	}
	if op.value == nil {
		return false, true
	}
	want, ok := (valueDecoder{raw: true}).decode(op.value)
	if !ok {
		return false, false
	}
	return testEqual(val, want, 0)
}

// isNull tells v is JSON's null: nil, or a nil map or slice.
func isNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return x == nil
	case []any:
		return x == nil
	}
	return false
}

// testEqual is json-patch's comparison of a value of the document, d (not
// null), with the test operation's, w (scalars as their JSON texts):
// objects and arrays by their members, scalars by the texts of their JSON
// (so 1 is not 1.0, nor "<" "\u003c"). false, false where it is not
// handled (json-patch panics on a null in an array).
func testEqual(d, w any, depth int) (equal, ok bool) {
	if depth > maxValueDepth {
		return false, false
	}
	switch x := d.(type) {
	case map[string]any:
		if !validKeys(x) {
			return false, false
		}
		wm, isMap := w.(map[string]any)
		if !isMap || len(wm) != len(x) {
			return false, true
		}
		for k, dv := range x {
			wv, present := wm[k]
			if !present {
				return false, true
			}
			if isNull(dv) != (wv == nil) {
				return false, true
			}
			if wv == nil {
				continue
			}
			if eq, ok := testEqual(dv, wv, depth+1); !ok || !eq {
				return eq, ok
			}
		}
		return true, true
	case []any:
		ws, isSlice := w.([]any)
		if !isSlice || len(ws) != len(x) {
			return false, true
		}
		for i, dv := range x {
			if isNull(dv) || ws[i] == nil {
				return false, false
			}
			if eq, ok := testEqual(dv, ws[i], depth+1); !ok || !eq {
				return eq, ok
			}
		}
		return true, true
	case string, bool, int64, float64:
		b, err := json.Marshal(x)
		if err != nil {
			return false, false
		}
		ws, isScalar := w.(rawScalar)
		return isScalar && string(ws) == string(b), true
	}
	return false, false
}

// validKeys tells JSON keeps the keys of m apart: they are UTF-8 (JSON
// replaces invalid bytes, which may make two keys one).
func validKeys(m map[string]any) bool {
	for k := range m {
		if !utf8.ValidString(k) {
			return false
		}
	}
	return true
}

// jsonStable tells the JSON of v decodes (as the exact path decodes
// unstructured content) to v itself: JSON's types only, maps and slices
// not nil, strings and keys UTF-8, floats neither whole in int64's range
// (which decode as int64) nor infinite or NaN.
func jsonStable(v any, depth int) bool {
	if depth > maxValueDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, int64:
		return true
	case string:
		return utf8.ValidString(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
		return x != math.Trunc(x) || x >= 1<<63 || x < -(1<<63)
	case map[string]any:
		if x == nil {
			return false
		}
		for k, e := range x {
			if !utf8.ValidString(k) || !jsonStable(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		if x == nil {
			return false
		}
		for _, e := range x {
			if !jsonStable(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// decodesUnstructured tells the strict decoding of the JSON of object into
// unstructured content succeeds as it does for the fast path: the
// serializer reads apiVersion and kind (encoding/json, names in any case)
// as strings, and requires a kind and an apiVersion that parses.
func decodesUnstructured(object map[string]any) bool {
	for k := range object {
		if k != "apiVersion" && k != "kind" && (strings.EqualFold(k, "apiVersion") || strings.EqualFold(k, "kind")) {
			return false
		}
	}
	kind, ok := object["kind"].(string)
	if !ok || kind == "" {
		return false
	}
	apiVersion, ok := object["apiVersion"].(string)
	if !ok {
		return false
	}
	_, err := schema.ParseGroupVersion(apiVersion)
	return err == nil
}
