package mutationpatch

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

func TestDecodeOps(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		ops  []patchOp
		ok   bool
	}{
		{"null", `null`, nil, true},
		{"empty", ` [ ] `, nil, true},
		{"add", `[{"op":"add","path":"/a","value":{"b":[1, 2]}}]`, []patchOp{{kind: "add", path: "/a", value: []byte(`{"b":[1, 2]}`), hasValue: true}}, true},
		{"null value", `[{"value":null,"path":"/a","op":"replace"}]`, []patchOp{{kind: "replace", path: "/a", hasValue: true}}, true},
		{"no value", `[{"op":"remove","path":"/a"}]`, []patchOp{{kind: "remove", path: "/a"}}, true},
		{"escapes, last key wins", `[{"\u006fp":"ad\u0064","path":"/x","path":"/a~1b","value":-1.5e3}]`, []patchOp{{kind: "add", path: "/a~1b", value: []byte(`-1.5e3`), hasValue: true}}, true},
		{"op not a string", `[{"op":1,"path":"/a"}]`, nil, false},
		{"op null", `[{"op":null,"path":"/a"}]`, nil, false},
		{"no path", `[{"op":"add"}]`, nil, false},
		{"null operation", `[null]`, nil, false},
		{"not an array", `{"op":"add"}`, nil, false},
		{"invalid", `[{"op":"add","path":"/a",}]`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, ok := decodeOps([]byte(tt.doc))
			require.Equal(t, tt.ok, ok)
			if ok {
				require.Equal(t, tt.ops, ops)
			}
		})
	}
}

// FuzzDecodeOps checks decodeOps reads what json-patch's DecodePatch and
// its accessors read, or declines.
func FuzzDecodeOps(f *testing.F) {
	for _, p := range fuzzSeedPatches {
		f.Add([]byte(p))
	}
	f.Add([]byte(`[{"\u006fp":"ad\u0064","path":"/x","path":"/a~1b","value":-1.5e3},{"op":"test","path":"","value":null}]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		ops, ok := decodeOps(doc)
		if !ok {
			return
		}
		p, err := jsonpatch.DecodePatch(doc)
		require.NoError(t, err)
		require.Len(t, ops, len(p))
		for i, o := range p {
			require.Equal(t, o.Kind(), ops[i].kind)
			path, err := o.Path()
			require.NoError(t, err)
			require.Equal(t, path, ops[i].path)
			raw, has := o["value"]
			require.Equal(t, has, ops[i].hasValue)
			require.Equal(t, raw == nil, ops[i].value == nil)
			if raw != nil {
				require.True(t, bytes.Equal(*raw, ops[i].value), "%s %s", *raw, ops[i].value)
			}
		}
	})
}
