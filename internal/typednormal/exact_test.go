package typednormal

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/gatehouse-dev/gatehouse/internal/builtintypes"
)

// world is the scheme of the built-in kinds, the Normalizer of the tests
// and the kinds sorted, built once for the package's tests.
type world struct {
	scheme *runtime.Scheme
	// decoder decodes JSON into the Go types, not strictly, as
	// admissionwebhook decodes a patched object.
	decoder *kjson.Serializer
	norm    *Normalizer
	kinds   []schema.GroupVersionKind
}

var testWorld = sync.OnceValues(func() (*world, error) {
	s, err := builtintypes.Scheme()
	if err != nil {
		return nil, err
	}
	var kinds []schema.GroupVersionKind
	for gvk := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		kinds = append(kinds, gvk)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	decoder := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{})
	return &world{scheme: s, decoder: decoder, norm: New(s), kinds: kinds}, nil
})

func newWorld(tb testing.TB) *world {
	tb.Helper()
	w, err := testWorld()
	require.NoError(tb, err)
	return w
}

// exact is the round trip the Normalizer stands for.
func (w *world) exact(gvk schema.GroupVersionKind, obj map[string]any) (out map[string]any, err error) {
	typed, err := w.typed(gvk, obj, gvk)
	if err != nil {
		return nil, err
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
}

// typed is obj converted to the Go type of gvk, its apiVersion and kind
// set to setGVK; a panic of the converter is an error.
func (w *world) typed(gvk schema.GroupVersionKind, obj map[string]any, setGVK schema.GroupVersionKind) (typed runtime.Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	typed, err = w.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return nil, err
	}
	typed.GetObjectKind().SetGroupVersionKind(setGVK)
	return typed, nil
}

// exactDecoded is what NormalizeDecoded stands for: the JSON of obj decoded
// into the Go type of gvk, and converted to unstructured content.
func (w *world) exactDecoded(gvk schema.GroupVersionKind, obj map[string]any) (out map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	doc, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	into, err := w.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	typed, _, err := w.decoder.Decode(doc, nil, into)
	if err != nil {
		return nil, err
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
}

// agreeDecoded checks NormalizeDecoded gives exactDecoded's result for obj
// (and for obj naming gvk), or declines; it returns whether the fast path
// handled obj naming gvk.
func (w *world) agreeDecoded(tb testing.TB, gvk schema.GroupVersionKind, obj map[string]any) bool {
	tb.Helper()
	named := make(map[string]any, len(obj)+2)
	for k, v := range obj {
		named[k] = v
	}
	named["apiVersion"], named["kind"] = gvk.ToAPIVersionAndKind()
	handled := false
	for i, o := range []map[string]any{obj, named} {
		before := fmt.Sprintf("%#v", o)
		fast, ok := w.norm.NormalizeDecoded(gvk, o)
		if fmt.Sprintf("%#v", o) != before {
			tb.Fatalf("%v: NormalizeDecoded modified its input", gvk)
		}
		if !ok {
			continue
		}
		handled = handled || i == 1
		want, err := w.exactDecoded(gvk, o)
		if err != nil {
			tb.Fatalf("%v: decoded handled %v, but decoding fails: %v", gvk, o, err)
		}
		if !reflect.DeepEqual(fast, want) {
			tb.Fatalf("%v: decoding %#v\nfast:  %#v\nexact: %#v", gvk, o, fast, want)
		}
	}
	return handled
}

// agree checks the Normalizer gives the exact round trip's result for obj,
// or declines; it returns whether the fast path handled obj.
func (w *world) agree(tb testing.TB, gvk schema.GroupVersionKind, obj map[string]any) bool {
	tb.Helper()
	before := fmt.Sprintf("%#v", obj)
	fast, handled := w.norm.Normalize(gvk, obj)
	if fmt.Sprintf("%#v", obj) != before {
		tb.Fatalf("%v: Normalize modified its input", gvk)
	}
	want, err := w.exact(gvk, obj)
	if !handled {
		return false
	}
	if err != nil {
		tb.Fatalf("%v: handled %v, but the round trip fails: %v", gvk, obj, err)
	}
	if !reflect.DeepEqual(fast, want) {
		tb.Fatalf("%v: for %#v\nfast:  %#v\nexact: %#v", gvk, obj, fast, want)
	}
	w.agreeShared(tb, gvk, obj, want)
	return true
}

// agreeShared checks NormalizeShared against the round trip's want: the
// same content, its input untouched, and an input already normal (want
// itself) returned as it is.
func (w *world) agreeShared(tb testing.TB, gvk schema.GroupVersionKind, obj, want map[string]any) {
	tb.Helper()
	before := fmt.Sprintf("%#v", obj)
	shared, _, handled := w.norm.NormalizeShared(gvk, obj)
	if fmt.Sprintf("%#v", obj) != before {
		tb.Fatalf("%v: NormalizeShared modified its input", gvk)
	}
	if !handled {
		tb.Fatalf("%v: Normalize handled %#v, NormalizeShared did not", gvk, obj)
	}
	if !reflect.DeepEqual(shared, want) {
		tb.Fatalf("%v: for %#v\nshared: %#v\nexact:  %#v", gvk, obj, shared, want)
	}
	again, unchanged, handled := w.norm.NormalizeShared(gvk, want)
	if !handled || !reflect.DeepEqual(again, want) {
		tb.Fatalf("%v: NormalizeShared of the normal %#v: %#v (handled %v)", gvk, want, again, handled)
	}
	if !unchanged || reflect.ValueOf(again).UnsafePointer() != reflect.ValueOf(want).UnsafePointer() {
		tb.Fatalf("%v: NormalizeShared copied the normal %#v", gvk, want)
	}
}
