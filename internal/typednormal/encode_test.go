package typednormal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// exactJSON is what AppendJSON stands for: obj converted to the Go type of
// gvk, its apiVersion and kind set to setGVK, and marshaled.
func (w *world) exactJSON(gvk schema.GroupVersionKind, obj map[string]any, setGVK schema.GroupVersionKind) ([]byte, error) {
	typed, err := w.typed(gvk, obj, setGVK)
	if err != nil {
		return nil, err
	}
	return json.Marshal(typed)
}

// agreeJSON checks AppendJSON writes exactJSON's bytes for obj, with the
// GVK its content names set (as admissionwebhook holds an object), or
// declines; it returns whether the fast path handled obj.
func (w *world) agreeJSON(tb testing.TB, gvk schema.GroupVersionKind, obj map[string]any) bool {
	tb.Helper()
	setGVK := (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
	before := fmt.Sprintf("%#v", obj)
	prefix := []byte("prefix")
	fast, handled := w.norm.AppendJSON(prefix, gvk, obj, setGVK)
	if fmt.Sprintf("%#v", obj) != before {
		tb.Fatalf("%v: AppendJSON modified its input", gvk)
	}
	if !bytes.HasPrefix(fast, prefix) {
		tb.Fatalf("%v: AppendJSON dropped dst: %q", gvk, fast)
	}
	if !handled {
		if len(fast) != len(prefix) {
			tb.Fatalf("%v: declined, and appended %q", gvk, fast[len(prefix):])
		}
		return false
	}
	want, err := w.exactJSON(gvk, obj, setGVK)
	if err != nil {
		tb.Fatalf("%v: handled %#v, but the exact encoding fails: %v", gvk, obj, err)
	}
	if got := fast[len(prefix):]; !bytes.Equal(got, want) {
		tb.Fatalf("%v: for %#v\nfast:  %s\nexact: %s", gvk, obj, got, want)
	}
	return true
}

// FuzzEncodeTyped compares AppendJSON with the exact conversion and
// json.Marshal, byte for byte, on arbitrary JSON objects of every kind of
// the scheme, as FuzzNormalize does.
func FuzzEncodeTyped(f *testing.F) {
	w := newWorld(f)
	addSeeds(f, w)
	f.Add(uint16(0), uint32(0), []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a<b>&\u2028\u2029\u0001"}}`))
	f.Fuzz(func(t *testing.T, kindIndex uint16, pick uint32, doc []byte) {
		gvk, obj, ok := w.fuzzInput(kindIndex, pick, doc)
		if !ok {
			return
		}
		w.agreeJSON(t, gvk, obj)
	})
}

// TestEncodeCorpora encodes every built-in object of the test corpora, and
// its normalized form, with AppendJSON and the exact path. Every object
// the exact path encodes is expected handled: they are ordinary objects.
func TestEncodeCorpora(t *testing.T) {
	w := newWorld(t)
	objects := builtinCorpus(t, w)
	require.NotEmpty(t, objects)
	handled, declined := 0, 0
	for _, o := range objects {
		if w.agreeJSON(t, o.gvk, o.obj) {
			handled++
		} else if _, err := w.exactJSON(o.gvk, o.obj, o.gvk); err == nil {
			declined++
			t.Errorf("%s: %v declined, and the exact encoding succeeds", o.file, o.gvk)
		}
		if normalized, err := w.exact(o.gvk, o.obj); err == nil {
			assert.True(t, w.agreeJSON(t, o.gvk, normalized), "%s: %v normalized declined", o.file, o.gvk)
		}
	}
	t.Logf("%d objects: %d handled, %d declined where the exact path encodes", len(objects), handled, declined)
}

// TestAppendFloat compares the float writer with encoding/json on the
// edges of its formatting.
func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{
		0, math.Copysign(0, -1), 1, -1, 1.5, 0.1, 1e-6, 1e-7, 9.999999e-7, 1e20, 1e21, 1e21 - 65536,
		123456789.125, 1e300, 5e-324, math.MaxFloat64, float64(math.MaxFloat32), 1.0 / 3, 2e-9,
	} {
		want, err := json.Marshal(f)
		require.NoError(t, err)
		got, ok := appendFloat(nil, f, 64)
		assert.True(t, ok)
		assert.Equal(t, string(want), string(got), "%v", f)
		f32 := float32(f)
		if math.IsInf(float64(f32), 0) {
			continue
		}
		want, err = json.Marshal(f32)
		require.NoError(t, err)
		got, ok = appendFloat(nil, float64(f32), 32)
		assert.True(t, ok)
		assert.Equal(t, string(want), string(got), "float32 %v", f32)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, ok := appendFloat(nil, f, 64)
		assert.False(t, ok, "%v", f)
	}
	_, ok := appendFloat(nil, 0.1, 32)
	assert.False(t, ok, "0.1 is no float32")
}
