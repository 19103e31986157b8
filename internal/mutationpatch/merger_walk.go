package mutationpatch

// The Merger's walk gives what structured-merge-diff v6 gives for
//
//	pt, _ := s.FromUnstructured(patch)                        // strict
//	lt, _ := s.FromUnstructured(object, typed.AllowDuplicates)
//	mt, _ := lt.Merge(pt)
//	mt.AsValue().Unstructured()
//
// when all three succeed and the values are ones it handles; otherwise it
// reports not handled (ok false), and the caller runs structured-merge-diff
// itself for its result or its error. Its rules, those of typed.mergingWalker
// with ruleKeepRHS:
//
//   - A value on one side only is the result, once validated: the merge
//     rebuilds it with equal content.
//   - Two maps of a granular map type merge key by key (a declared field's
//     type, or the map's element type); both empty, or an atomic map type,
//     take the patch's map.
//   - Two lists of an atomic list type, or both empty, take the patch's
//     list; associative lists merge item by item in the order of
//     mergingWalker.visitListItems; other non-empty lists are not handled
//     (structured-merge-diff cannot index them and drops them silently).
//   - Scalars take the patch's value; values of different kinds (in the
//     deduced type) take the patch's value.
//   - A null in the patch over a non-empty granular map or list keeps the
//     object's value, and otherwise gives null (for a type of several kinds,
//     only a map is kept); a null in the object takes the patch's value.
//   - Values of Go types other than those of JSON decoding (map[string]any,
//     []any, string, bool, int64, float64, nil), float keys of associative
//     lists and sets, null or composite keys, duplicates (in the object too),
//     unknown fields and every value the schema rejects are not handled.

// mergeValues merges r (the patch's) into l (the object's), both present
// (either may be nil, JSON's null), of type n.
func mergeValues(n *mergeNode, l, r any) (any, bool) {
	if n.bad {
		return nil, false
	}
	if r == nil {
		return mergeNull(n, l)
	}
	if l == nil {
		if !validValue(n, r) {
			return nil, false
		}
		return r, true
	}
	switch rv := r.(type) {
	case map[string]any:
		lv, ok := l.(map[string]any)
		if !ok {
			return differentKinds(n, l, r)
		}
		if !n.hasMap {
			return nil, false
		}
		if n.mapAtomic || (len(lv) == 0 && len(rv) == 0) {
			if !validValue(n, l) || !validValue(n, r) {
				return nil, false
			}
			return r, true
		}
		return mergeMaps(n, lv, rv)
	case []any:
		lv, ok := l.([]any)
		if !ok {
			return differentKinds(n, l, r)
		}
		if !n.hasList {
			return nil, false
		}
		if n.listAtomic || (len(lv) == 0 && len(rv) == 0) {
			if !validValue(n, l) || !validValue(n, r) {
				return nil, false
			}
			return r, true
		}
		if !n.listAssoc {
			return nil, false
		}
		return mergeLists(n, lv, rv)
	case string, bool, int64, float64:
		switch l.(type) {
		case string, bool, int64, float64:
		default:
			return differentKinds(n, l, r)
		}
		if !validValue(n, l) || !validValue(n, r) {
			return nil, false
		}
		return r, true
	}
	return nil, false
}

// differentKinds merges values of different kinds (a map and a list, a
// scalar and a map...), which only a type with several kinds (the deduced
// type) accepts: mergingWalker.merge walks the object's value aside, and the
// patch's value is the result.
func differentKinds(n *mergeNode, l, r any) (any, bool) {
	if !validValue(n, l) || !validValue(n, r) {
		return nil, false
	}
	return r, true
}

// mergeNull merges a null of the patch into l. For a type of several kinds
// (the deduced type), mergingWalker.merge handles the null with the whole
// atom, whose map part comes first: a non-empty map of the object stays,
// anything else becomes null.
func mergeNull(n *mergeNode, l any) (any, bool) {
	if l == nil {
		return nil, true
	}
	if !validValue(n, l) {
		return nil, false
	}
	if n.kinds() > 1 {
		if lv, ok := l.(map[string]any); ok && !n.mapAtomic && len(lv) > 0 {
			return l, true
		}
		return nil, true
	}
	switch lv := l.(type) {
	case map[string]any:
		if n.mapAtomic || len(lv) == 0 {
			return nil, true
		}
		return l, true
	case []any:
		if n.listAtomic || len(lv) == 0 {
			return nil, true
		}
		return l, true
	}
	return nil, true
}

// mergeMaps merges two maps of a granular map type.
func mergeMaps(n *mergeNode, l, r map[string]any) (any, bool) {
	extra := 0
	for k := range r {
		if _, ok := l[k]; !ok {
			extra++
		}
	}
	out := make(map[string]any, len(l)+extra)
	for k, lv := range l {
		f := n.field(k)
		if f == nil {
			return nil, false
		}
		if rv, ok := r[k]; ok {
			v, ok := mergeValues(f, lv, rv)
			if !ok {
				return nil, false
			}
			out[k] = v
			continue
		}
		if !validValue(f, lv) {
			return nil, false
		}
		out[k] = lv
	}
	if extra > 0 {
		for k, rv := range r {
			if _, ok := l[k]; ok {
				continue
			}
			f := n.field(k)
			if f == nil || !validValue(f, rv) {
				return nil, false
			}
			out[k] = rv
		}
	}
	return out, true
}

// validValue tells whether structured-merge-diff's validation accepts v as
// a value of type n, and the Merger handles it: no duplicate items in
// associative lists, no float or composite keys.
func validValue(n *mergeNode, v any) bool {
	if n.bad {
		return false
	}
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return n.scalar == stringScalar || n.scalar == untypedScalar
	case bool:
		return n.scalar == booleanScalar || n.scalar == untypedScalar
	case int64, float64:
		return n.scalar == numericScalar || n.scalar == untypedScalar
	case map[string]any:
		if !n.hasMap {
			return false
		}
		for k, fv := range v {
			f := n.field(k)
			if f == nil || !validValue(f, fv) {
				return false
			}
		}
		return true
	case []any:
		if !n.hasList {
			return false
		}
		if n.listAtomic {
			for _, item := range v {
				if !validValue(n.listElem, item) {
					return false
				}
			}
			return true
		}
		if !n.listAssoc {
			// Valid, but the merge cannot index the items of a list that is
			// neither atomic nor associative.
			return len(v) == 0
		}
		var buf [smallList]listKey
		if _, ok := indexList(n, v, buf[:]); !ok {
			return false
		}
		for _, item := range v {
			if !validValue(n.listElem, item) {
				return false
			}
		}
		return true
	}
	return false
}
