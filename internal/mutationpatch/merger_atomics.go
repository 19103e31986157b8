package mutationpatch

import (
	"slices"
	"strconv"
)

// atomicsOf is findAtomics over the compiled schema, for a patch the Merger
// has validated (so its values are of JSON's Go types): the same paths, in
// the same order, without structured-merge-diff's value wrappers.
func atomicsOf(n *mergeNode, v any, path []byte, atomics []string) []string {
	if n.bad {
		return atomics
	}
	switch v := v.(type) {
	case map[string]any:
		if !n.hasMap {
			return atomics
		}
		if n.mapAtomic {
			atomics = append(atomics, string(path))
		}
		var buf [16]string
		names := buf[:0]
		for k := range v {
			if _, ok := n.fields[k]; ok {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		for _, k := range names {
			atomics = atomicsOf(n.fields[k], v[k], append(append(path, '.'), k...), atomics)
		}
	case []any:
		if !n.hasList {
			return atomics
		}
		if n.listAtomic {
			atomics = append(atomics, string(path))
		}
		for i, item := range v {
			p := append(append(path, '['), strconv.Itoa(i)...)
			atomics = atomicsOf(n.listElem, item, append(p, ']'), atomics)
		}
	}
	return atomics
}
