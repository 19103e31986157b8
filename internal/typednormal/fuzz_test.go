package typednormal

import (
	"encoding/json"
	"math"
	"os"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// perturbations are the values FuzzNormalize puts in place of a leaf of
// the object: the edges of the conversion (nulls, empties, numbers at the
// ranges of int32 and int64, whole and fractional floats, quantities,
// times, durations, base64, wrong types).
var perturbations = []any{
	nil, "", "x", true, false, int64(0), int64(1), int64(-1),
	int64(math.MaxInt32), int64(math.MaxInt32) + 1, int64(math.MinInt32) - 1,
	int64(math.MaxInt64), int64(math.MinInt64), float64(0), math.Copysign(0, -1),
	1.5, 2.0, 1e21, 1e300, -3.0, float64(1 << 53), float64(1<<53) + 2, float64(1 << 60),
	float64(1 << 63), -float64(1 << 63), 1e20,
	"1.5Gi", "100m", "1e3", " 2Ki ", "0.1", "-1", "25%", "http",
	"2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456+02:00", "0001-01-01T00:00:00Z",
	"90s", "aGVsbG8=", "not base64", "\xff", []any{}, []any{nil}, map[string]any{},
	map[string]any{"a": int64(1)}, []any{"a", int64(1)}, []any(nil), map[string]any(nil),
}

// FuzzNormalize compares the fast path with the exact round trip on
// arbitrary JSON objects of every kind of the scheme: kindIndex picks the
// kind (the document's own when it names a built-in kind and kindIndex is
// even), pick replaces one leaf of the object with a perturbation.
func FuzzNormalize(f *testing.F) {
	w := newWorld(f)
	addSeeds(f, w)
	f.Fuzz(func(t *testing.T, kindIndex uint16, pick uint32, doc []byte) {
		gvk, obj, ok := w.fuzzInput(kindIndex, pick, doc)
		if !ok {
			return
		}
		w.agree(t, gvk, obj)
		w.agreeDecoded(t, gvk, obj)
	})
}

// addSeeds adds the seeds of the fuzz targets on (kindIndex, pick, doc):
// the realistic objects, in their kind and others, perturbed or not, and
// edge cases.
func addSeeds(f *testing.F, w *world) {
	for i, o := range seedObjects(f, w) {
		doc, err := json.Marshal(o.obj)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint16(0), uint32(0), doc)
		f.Add(uint16(2*i+1), uint32(i*7919), doc)
		f.Add(uint16(0), uint32(i*104729+3), doc)
	}
	f.Add(uint16(1), uint32(0), []byte(`{}`))
	f.Add(uint16(3), uint32(5), []byte(`{"spec":{"replicas":2.0,"template":{"spec":{"containers":[null]}}}}`))
}

// fuzzInput is the kind and object of a fuzz input: doc decoded as JSON
// (false if it is not an object), in the kind kindIndex picks (the
// document's own when it names a built-in kind and kindIndex is even), one
// leaf replaced with a perturbation when pick is not 0.
func (w *world) fuzzInput(kindIndex uint16, pick uint32, doc []byte) (schema.GroupVersionKind, map[string]any, bool) {
	var obj map[string]any
	if utiljson.Unmarshal(doc, &obj) != nil {
		return schema.GroupVersionKind{}, nil, false
	}
	gvk := w.kinds[int(kindIndex/2)%len(w.kinds)]
	if kindIndex%2 == 0 {
		if own, ok := kindOf(obj); ok && w.scheme.Recognizes(own) {
			gvk = own
		}
	}
	if pick != 0 {
		perturb(obj, pick)
	}
	return gvk, obj, true
}

// seedObjects are the realistic objects of testdata and the corpora.
func seedObjects(tb testing.TB, w *world) []corpusObject {
	data, err := os.ReadFile("testdata/objects.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	var objects []corpusObject
	for _, obj := range decodeDocuments(data) {
		objects = appendBuiltin(objects, w, "testdata/objects.yaml", obj)
	}
	return append(objects, builtinCorpus(tb, w)...)
}

func kindOf(obj map[string]any) (schema.GroupVersionKind, bool) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || kind == "" {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(kind), true
}

// perturb replaces the value at one position of obj (chosen by the low
// bits of pick among the values in a depth-first walk in key order) with a
// perturbation (chosen by the high bits).
func perturb(obj map[string]any, pick uint32) {
	var slots []func(any)
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				slots = append(slots, func(n any) { x[k] = n })
				walk(x[k])
			}
		case []any:
			for i := range x {
				slots = append(slots, func(n any) { x[i] = n })
				walk(x[i])
			}
		}
	}
	walk(obj)
	if len(slots) == 0 {
		return
	}
	slots[int(pick&0xffff)%len(slots)](perturbations[int(pick>>16)%len(perturbations)])
}
