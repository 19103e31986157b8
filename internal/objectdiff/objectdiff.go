// Package objectdiff compares unstructured objects, as the admission
// engines' traces report what a mutation or a webhook's patch changed.
package objectdiff

import (
	"fmt"
	"sort"
	"strconv"
)

// ChangedPaths returns the paths of the fields that differ between two
// unstructured values: map keys are followed, list elements compared by
// index (a list whose length changed reports its added or removed
// indexes).
func ChangedPaths(before, after any) []string {
	var out []string
	diffValues("", before, after, &out)
	sort.Strings(out)
	return out
}

func diffValues(path string, a, b any, out *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for k, av := range am {
			bv, ok := bm[k]
			if !ok {
				*out = append(*out, path+"."+k)
				continue
			}
			diffValues(path+"."+k, av, bv, out)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				*out = append(*out, path+"."+k)
			}
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok {
		n := max(len(al), len(bl))
		for i := range n {
			p := path + "[" + strconv.Itoa(i) + "]"
			if i >= len(al) || i >= len(bl) {
				*out = append(*out, p)
				continue
			}
			diffValues(p, al[i], bl[i], out)
		}
		return
	}
	if !Equal(a, b) {
		if path == "" {
			path = "."
		}
		*out = append(*out, path)
	}
}

// Equal compares unstructured values as apimachinery's Semantic.DeepEqual
// compares them: a nil map equals an empty one, so does a nil list (but not
// a null value); numbers are equal only with the same Go type and value.
func Equal(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return false
		}
		if len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !Equal(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok {
			return false
		}
		if len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !Equal(av[i], bv[i]) {
				return false
			}
		}
		return true
	case string:
		bv, ok := b.(string)
		return ok && av == bv
	case int64:
		bv, ok := b.(int64)
		return ok && av == bv
	case float64:
		bv, ok := b.(float64)
		return ok && av == bv
	case bool:
		bv, ok := b.(bool)
		return ok && av == bv
	case nil:
		return b == nil
	}
	return fmt.Sprintf("%T %#v", a, a) == fmt.Sprintf("%T %#v", b, b)
}
