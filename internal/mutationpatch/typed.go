package mutationpatch

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/gatehouse-dev/gatehouse/internal/builtintypes"
	"github.com/gatehouse-dev/gatehouse/internal/typednormal"
)

// typedKinds is what kube-apiserver's scheme does with the objects of its
// built-in (typed) kinds: it makes the Go type of a kind, converts
// unstructured content to it and back, and decodes JSON strictly into it.
// After each mutation of a built-in kind kube-apiserver holds the object as
// its Go type, so what the next mutation sees is the result of that round
// trip: empty omitempty fields dropped (kubernetes#129309), struct fields
// without omitempty added, quantities and times in canonical form.
type typedKinds struct {
	scheme *runtime.Scheme
	// strict is kube-apiserver's JSON serializer for JSON Patch documents:
	// not pretty, strict.
	strict *json.Serializer
	// normal is roundTrip's fast path.
	normal *typednormal.Normalizer
}

// builtinTypes returns the scheme of the built-in kinds of k8s.io/api
// v0.37.2, the Go types kube-apiserver admits, built once: the built-in
// group versions client-go's scheme registers.
var builtinTypes = sync.OnceValues(func() (*typedKinds, error) {
	s, err := builtintypes.Scheme()
	if err != nil {
		return nil, err
	}
	return &typedKinds{
		scheme: s,
		strict: json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{Strict: true}),
		normal: typednormal.New(s),
	}, nil
})

// isTyped tells whether objects of gvk are held as a Go type.
func (t *typedKinds) isTyped(gvk schema.GroupVersionKind) bool {
	return t.scheme.Recognizes(gvk)
}

// roundTrip converts obj, unstructured content of the built-in kind gvk, to
// its Go type and back, as kube-apiserver's dispatcher converts the result of
// an ApplyConfiguration to the Go type (ObjectConvertor.ConvertToVersion)
// and its CEL activation back to unstructured content for the next mutation.
// The Normalizer gives the same without reflection when it can; otherwise
// (and for every error) the conversions themselves run.
func (t *typedKinds) roundTrip(gvk schema.GroupVersionKind, obj map[string]any) (map[string]any, error) {
	if out, ok := t.normal.Normalize(gvk, obj); ok {
		return out, nil
	}
	return t.exactRoundTrip(gvk, obj)
}

// exactRoundTrip is roundTrip through the Go type itself.
func (t *typedKinds) exactRoundTrip(gvk schema.GroupVersionKind, obj map[string]any) (map[string]any, error) {
	typed, err := t.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return nil, fmt.Errorf("unable to convert unstructured object to %v: %v", gvk, err)
	}
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	return runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
}

// Normalize returns object, unstructured content of kind gvk, as
// kube-apiserver holds it: for a built-in kind, converted to its Go type and
// back (what its CEL sees as object); otherwise object itself.
func Normalize(object map[string]any, gvk schema.GroupVersionKind, builtin bool) (map[string]any, error) {
	if !builtin {
		return object, nil
	}
	tk, err := builtinTypes()
	if err != nil {
		return nil, err
	}
	if !tk.isTyped(gvk) {
		return object, nil
	}
	return tk.roundTrip(gvk, object)
}

// NormalizeShared is Normalize for a caller that modifies neither object
// nor the result: the result shares with object whatever is already as
// kube-apiserver holds it (typednormal.Normalizer.NormalizeShared), and is
// object itself (unchanged) when all of it is.
func NormalizeShared(object map[string]any, gvk schema.GroupVersionKind) (out map[string]any, unchanged bool, err error) {
	tk, err := builtinTypes()
	if err != nil {
		return nil, false, err
	}
	if !tk.isTyped(gvk) {
		return object, true, nil
	}
	if out, unchanged, ok := tk.normal.NormalizeShared(gvk, object); ok {
		return out, unchanged, nil
	}
	out, err = tk.exactRoundTrip(gvk, object)
	return out, false, err
}

// IsBuiltin tells whether objects of gvk are built-in: kube-apiserver holds
// them as their Go type (and Normalize round-trips them through it).
func IsBuiltin(gvk schema.GroupVersionKind) bool {
	tk, err := builtinTypes()
	return err == nil && tk.isTyped(gvk)
}
