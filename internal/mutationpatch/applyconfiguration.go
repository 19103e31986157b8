package mutationpatch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Typer types unstructured content with a kind's schema (mutation.Schema).
type Typer interface {
	FromUnstructured(obj map[string]any, opts ...typed.ValidationOptions) (*typed.TypedValue, error)
}

// ApplyConfiguration merges an ApplyConfiguration into object, of kind gvk,
// as kube-apiserver's patch.ApplyStructuredMergeDiff does with the kind's
// schema s; then, for a built-in kind, it converts the result through the
// kind's Go type as kube-apiserver's dispatcher does. ac and object are not
// modified; the result may share unchanged content with object.
func ApplyConfiguration(ac, object map[string]any, gvk schema.GroupVersionKind, s Typer, builtin bool) (map[string]any, error) {
	// The patch's apiVersion and kind are forced to the object's; the
	// caller's map is not modified.
	p := make(map[string]any, len(ac)+2)
	for k, v := range ac {
		p[k] = v
	}
	apiVersion := gvk.GroupVersion().String()
	p["apiVersion"], p["kind"] = apiVersion, gvk.Kind
	if ov, ok := object["apiVersion"].(string); !ok || ov != apiVersion || object["kind"] != any(gvk.Kind) {
		ok, _ := object["kind"].(string)
		return nil, fmt.Errorf("error applying patch: patch (%v) and original object (%v) are not of the same gvk", gvk, schema.FromAPIVersionAndKind(ov, ok))
	}
	merged, err := mergeApplyConfiguration(p, object, s)
	if err != nil {
		return nil, fmt.Errorf("error applying patch: %w", err)
	}
	if !builtin {
		return merged, nil
	}
	tk, err := builtinTypes()
	if err != nil {
		return nil, err
	}
	if !tk.isTyped(gvk) {
		return merged, nil
	}
	return tk.roundTrip(gvk, merged)
}

// mergeApplyConfiguration is patch.ApplyStructuredMergeDiff's work: the
// patch typed strictly, checked for atomics, merged into the live object
// typed with duplicates allowed.
//
// When s has a Merger (mergerSource) that handles the values, its result is
// returned, without structured-merge-diff's typing and merge.
func mergeApplyConfiguration(p, object map[string]any, s Typer) (map[string]any, error) {
	if ms, ok := s.(mergerSource); ok {
		if m := ms.merger(); m != nil {
			if out, ok := m.merge(p, object); ok {
				var path [128]byte
				if atomics := atomicsOf(m.compiled(), p, path[:0], nil); len(atomics) > 0 {
					return nil, atomicsError(atomics)
				}
				return out, nil
			}
		}
	}
	return mergeExact(p, object, s)
}

// mergeExact is mergeApplyConfiguration with structured-merge-diff itself.
func mergeExact(p, object map[string]any, s Typer) (map[string]any, error) {
	pt, err := s.FromUnstructured(p)
	if err != nil {
		return nil, fmt.Errorf("failed to convert patch object to typed object: %w", err)
	}
	if atomics := findAtomics(pt.Schema(), pt.TypeRef(), pt.AsValue(), nil, nil); len(atomics) > 0 {
		return nil, atomicsError(atomics)
	}
	lt, err := s.FromUnstructured(object, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert original object to typed object: %w", err)
	}
	mt, err := lt.Merge(pt)
	if err != nil {
		return nil, fmt.Errorf("failed to merge patch: %w", err)
	}
	out, ok := mt.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert typed object to object: failed to convert value to unstructured for type %T", mt.AsValue().Unstructured())
	}
	return out, nil
}

// atomicsError is kube-apiserver's error for a patch that sets atomics.
func atomicsError(atomics []string) error {
	return fmt.Errorf("invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: %s", strings.Join(atomics, ", "))
}

// findAtomics appends to atomics the path of every node of v (at path) whose
// map or list the schema declares atomic, walking only declared struct
// fields and list items, as kube-apiserver's validatePatch does. Paths are
// written as structured-merge-diff writes them (".spec.selector",
// ".spec.containers[0].args"). v is the patch as structured-merge-diff sees
// it, whatever Go types hold it. kube-apiserver lists the fields of a map in
// Go's random map order; here they are visited in sorted order.
func findAtomics(s *smdschema.Schema, tr smdschema.TypeRef, v value.Value, path []byte, atomics []string) []string {
	a, ok := s.Resolve(tr)
	if !ok {
		return atomics
	}
	if v.IsMap() && a.Map != nil {
		if a.Map.ElementRelationship == smdschema.Atomic {
			atomics = append(atomics, string(path))
		}
		// The values Iterate passes are only valid during the call.
		m := v.AsMap()
		var names []string
		m.Iterate(func(k string, _ value.Value) bool {
			if _, ok := a.Map.FindField(k); ok {
				names = append(names, k)
			}
			return true
		})
		slices.Sort(names)
		for _, k := range names {
			f, _ := a.Map.FindField(k)
			fv, _ := m.Get(k)
			atomics = findAtomics(s, f.Type, fv, append(append(path, '.'), k...), atomics)
		}
	}
	if v.IsList() && a.List != nil {
		if a.List.ElementRelationship == smdschema.Atomic {
			atomics = append(atomics, string(path))
		}
		l := v.AsList()
		for i := range l.Length() {
			p := append(append(path, '['), strconv.Itoa(i)...)
			atomics = findAtomics(s, a.List.ElementType, l.At(i), append(p, ']'), atomics)
		}
	}
	return atomics
}
