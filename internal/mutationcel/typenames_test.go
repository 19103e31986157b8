package mutationcel

import (
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typeNamesTree builds a tree of Objects, lists and maps from data: each
// byte chooses a node (an Object named after its path or not, a list, a
// map, a string), so that the fast check and the listing of errors can be
// compared on shapes no table lists.
func typeNamesTree(data []byte, name string, depth int) (ref.Val, []byte) {
	if len(data) == 0 || depth > 6 {
		return types.String("leaf"), data
	}
	b, data := data[0], data[1:]
	switch b % 5 {
	case 0, 1: // an Object, named after its path (1) or not (0 with odd high bits)
		typ := name
		if b%5 == 0 && b&0x80 != 0 {
			typ = name + "x"
		}
		fields := map[string]ref.Val{}
		n := int(b>>4) % 3
		for i := range n {
			k := string(rune('a' + i))
			var v ref.Val
			v, data = typeNamesTree(data, name+"."+k, depth+1)
			fields[k] = v
		}
		return &objectVal{typ: types.NewObjectType(typ), fields: fields}, data
	case 2: // a list of nodes under the same name
		var elems []ref.Val
		for i := 0; i < int(b>>5)%3; i++ {
			var v ref.Val
			v, data = typeNamesTree(data, name, depth+1)
			elems = append(elems, v)
		}
		return types.NewRefValList(types.DefaultTypeAdapter, elems), data
	case 3: // a map of nodes under the same name
		m := map[ref.Val]ref.Val{}
		for i := 0; i < int(b>>5)%3; i++ {
			var v ref.Val
			v, data = typeNamesTree(data, name, depth+1)
			m[types.String(string(rune('k'+i)))] = v
		}
		return types.NewRefValMap(types.DefaultTypeAdapter, m), data
	default:
		return types.String("leaf"), data
	}
}

// FuzzTypeNamesMatch checks the fast type name check against the listing
// of errors it stands in front of: it finds a mismatch exactly when the
// listing has one.
func FuzzTypeNamesMatch(f *testing.F) {
	for _, seed := range [][]byte{{}, {1}, {0x81}, {0x11, 1, 1}, {0x21, 0x80, 1, 0x20, 1}, {0x11, 0x22, 1, 0x41}, {0x11, 0x23, 0x80}, {0x21, 2, 0x80}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root := &objectVal{typ: types.NewObjectType("Object"), fields: map[string]ref.Val{}}
		for i := 0; len(data) > 0 && i < 4; i++ {
			k := string(rune('p' + i))
			var v ref.Val
			v, data = typeNamesTree(data, "Object."+k, 0)
			root.fields[k] = v
		}
		errs := typeNameErrors(root, []string{"Object"})
		require.Equal(t, len(errs) == 0, typeNamesMatch(root, "Object", ""), "errors: %v", errs)
	})
}

func TestTypeNamesMatch(t *testing.T) {
	obj := func(name string, fields map[string]ref.Val) *objectVal {
		return &objectVal{typ: types.NewObjectType(name), fields: fields}
	}
	list := func(vs ...ref.Val) ref.Val { return types.NewRefValList(types.DefaultTypeAdapter, vs) }
	for _, tc := range []struct {
		name string
		v    *objectVal
		err  string
	}{
		{"root only", obj("Object", nil), ""},
		{"nested", obj("Object", map[string]ref.Val{"spec": obj("Object.spec", map[string]ref.Val{"x": obj("Object.spec.x", nil)})}), ""},
		{"through a list", obj("Object", map[string]ref.Val{"spec": list(obj("Object.spec", nil), types.String("s"))}), ""},
		{"a name of the same length", obj("Object", map[string]ref.Val{"spec": obj("Object.spex", nil)}),
			`unexpected type name "Object.spex", expected "Object.spec", which matches field name path from root Object type`},
		{"a prefix that is not the parent", obj("Object", map[string]ref.Val{"a": obj("Object", map[string]ref.Val{"b": obj("Objecx.a.b", nil)})}),
			"unexpected type name \"Object\", expected \"Object.a\", which matches field name path from root Object type\n" +
				`unexpected type name "Objecx.a.b", expected "Object.a.b", which matches field name path from root Object type`},
		{"no dot", obj("Object", map[string]ref.Val{"spec": obj("Objectxspec", nil)}),
			`unexpected type name "Objectxspec", expected "Object.spec", which matches field name path from root Object type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkTypeNames(tc.v)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tc.err)
		})
	}
}
