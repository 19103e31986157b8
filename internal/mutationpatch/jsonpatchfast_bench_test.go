package mutationpatch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkJSONPatch applies the sidecar patch (a label for the custom
// resource) with JSONPatch and with the exact path alone: to a Pod held as
// its Go type (mutating policies), to a Pod as unstructured content
// (webhooks), and to a custom resource.
func BenchmarkJSONPatch(b *testing.B) {
	tk, err := builtinTypes()
	require.NoError(b, err)
	sidecar := []byte(fuzzSeedPatches[0])
	label := []byte(`[{"op":"add","path":"/metadata/labels","value":{"env":"test"}},{"op":"replace","path":"/spec/size","value":3}]`)
	pod, err := Normalize(decodeObject(b, testPod), podGVK, true)
	require.NoError(b, err)
	for _, bm := range []struct {
		name    string
		ops     []byte
		obj     map[string]any
		builtin bool
	}{
		{"kind=Pod/typed", sidecar, pod, true},
		{"kind=Pod/unstructured", sidecar, pod, false},
		{"kind=Widget", label, decodeObject(b, testWidget), false},
	} {
		gvk := podGVK
		if !bm.builtin && bm.obj["kind"] == "Widget" {
			gvk = widgetGVK
		}
		b.Run(bm.name+"/path=fast", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := JSONPatch(bm.ops, bm.obj, gvk, bm.builtin); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bm.name+"/path=exact", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tk.exactJSONPatch(bm.ops, bm.obj, gvk, bm.builtin); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
