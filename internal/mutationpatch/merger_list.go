package mutationpatch

// listKey is the identity of an item of an associative list, what
// structured-merge-diff's path element of the item compares: the values of
// the key fields (given, or their defaults) for a list with keys, the item
// itself for a set. present tells which key fields an item has: an item
// without a key field (and no default) is another item than one with it.
// Values are strings, booleans or int64s, which compare with == as
// structured-merge-diff compares them.
type listKey struct {
	v       [maxListKeys]any
	present uint8
}

// smallList is the length up to which list items are found by a linear
// scan rather than a map.
const smallList = 16

// listIndex finds items of an associative list by key.
type listIndex struct {
	keys []listKey
	m    map[listKey]int
}

// find returns the index of the item of key k, or -1.
func (x *listIndex) find(k listKey) int {
	if x.m != nil {
		if i, ok := x.m[k]; ok {
			return i
		}
		return -1
	}
	for i, xk := range x.keys {
		if xk == k {
			return i
		}
	}
	return -1
}

// indexList returns the keys of the items of an associative list of type n,
// or not ok if an item has no key structured-merge-diff accepts, a key the
// Merger does not compare, or two items have one key (an error in a patch,
// allowed in the object, where the Merger leaves it to the exact path).
// buf, if long enough, holds the keys.
func indexList(n *mergeNode, items []any, buf []listKey) (listIndex, bool) {
	x := listIndex{keys: buf[:0]}
	if len(items) > len(buf) {
		x.keys = make([]listKey, 0, len(items))
	}
	if len(items) > smallList {
		x.m = make(map[listKey]int, len(items))
	}
	for i, item := range items {
		k, ok := itemKey(n, item)
		if !ok || x.find(k) >= 0 {
			return listIndex{}, false
		}
		x.keys = append(x.keys, k)
		if x.m != nil {
			x.m[k] = i
		}
	}
	return x, true
}

// itemKey returns the key of an item of an associative list of type n.
func itemKey(n *mergeNode, item any) (listKey, bool) {
	var k listKey
	if len(n.keys) == 0 {
		// A set: its items are scalars.
		if !comparableScalar(item) {
			return k, false
		}
		k.v[0], k.present = item, 1
		return k, true
	}
	if n.keysBad {
		return k, false
	}
	m, ok := item.(map[string]any)
	if !ok {
		return k, false
	}
	for i, name := range n.keys {
		if v, ok := m[name]; ok {
			if !comparableScalar(v) {
				return k, false
			}
			k.v[i], k.present = v, k.present|1<<i
		} else if d := n.keyDefaults[i]; d != nil {
			k.v[i], k.present = d, k.present|1<<i
		}
	}
	return k, k.present != 0
}

// comparableScalar tells whether v is a key value the Merger compares:
// floats (which structured-merge-diff compares with integers) and nulls,
// maps and lists are left to the exact path.
func comparableScalar(v any) bool {
	switch v.(type) {
	case string, bool, int64:
		return true
	}
	return false
}

// mergeLists merges two associative lists, not both empty, in the order
// structured-merge-diff's mergingWalker.visitListItems gives: the object's
// items in place, the patch's items merged where they are and new ones after
// the object's items they follow in the patch.
func mergeLists(n *mergeNode, l, r []any) (any, bool) {
	var rBuf, lBuf [smallList]listKey
	rx, ok := indexList(n, r, rBuf[:])
	if !ok {
		return nil, false
	}
	lx, ok := indexList(n, l, lBuf[:])
	if !ok {
		return nil, false
	}
	// shared: the indices in r of the items both lists have, in r's order.
	var sharedBuf [smallList]int
	shared := sharedBuf[:0]
	for i, k := range rx.keys {
		if lx.find(k) >= 0 {
			shared = append(shared, i)
		}
	}
	next := 0 // shared[next] is the next shared item expected, if any.
	var mergedBuf [smallList]bool
	var merged []bool
	if len(r) > smallList {
		merged = make([]bool, len(r))
	} else {
		merged = mergedBuf[:len(r)]
	}
	out := make([]any, 0, max(len(l), len(r)))
	lLen, rLen := len(l), len(r)
	for lI, rI := 0, 0; lI < lLen || rI < rLen; {
		if lI < lLen && rI < rLen {
			lk := lx.keys[lI]
			if lk == rx.keys[rI] {
				merged[rI] = true
				v, ok := mergeValues(n.listElem, l[lI], r[rI])
				if !ok {
					return nil, false
				}
				out = append(out, v)
				lI++
				rI++
				next++
				continue
			}
			if ri := rx.find(lk); ri >= 0 && next < len(shared) && rx.keys[shared[next]] != lk {
				// An item of both lists, not the one expected next.
				lI++
				continue
			}
		}
		if lI < lLen {
			ri := rx.find(lx.keys[lI])
			if ri < 0 {
				if !validValue(n.listElem, l[lI]) {
					return nil, false
				}
				out = append(out, l[lI])
				lI++
				continue
			} else if merged[ri] {
				lI++
			}
		}
		if rI < rLen {
			merged[rI] = true
			var v any
			if li := lx.find(rx.keys[rI]); li >= 0 {
				v, ok = mergeValues(n.listElem, l[li], r[rI])
			} else {
				v, ok = r[rI], validValue(n.listElem, r[rI])
			}
			if !ok {
				return nil, false
			}
			out = append(out, v)
			if next < len(shared) && shared[next] == rI {
				next++
			}
			rI++
		}
	}
	return out, true
}
