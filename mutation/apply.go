package mutation

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// applyPatch applies one mutation's patch to object, an object of kind gvk,
// as kube-apiserver's patchers do, and returns the new object; object is
// not modified. A kind without schema is kube-apiserver's 503 status error,
// whatever the patch type; a failed JSON Patch `test` returns object
// itself.
func applyPatch(p patch, object map[string]any, gvk schema.GroupVersionKind, schemas *Schemas) (map[string]any, error) {
	sch, err := schemas.Lookup(gvk)
	if err != nil {
		if errors.Is(err, ErrNoSchema) {
			return nil, noSchemaError(gvk)
		}
		return nil, err
	}
	if p.jsonPatch != nil {
		return applyJSONPatch(p.jsonPatch, object, sch, schemas)
	}
	out, err := applyConfiguration(p.applyConfiguration, object, sch)
	if err != nil {
		return nil, fmt.Errorf("error applying patch: %w", err)
	}
	return out, nil
}

// noSchemaError is kube-apiserver's error for a kind its type converters do
// not know.
func noSchemaError(gvk schema.GroupVersionKind) error {
	return apierrors.NewServiceUnavailable(fmt.Sprintf("Resource kind %s not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", gvk))
}

// applyConfiguration merges an ApplyConfiguration patch into object with
// structured-merge-diff, as kube-apiserver's ApplyStructuredMergeDiff does:
// the patch takes the object's apiVersion and kind, is typed strictly,
// must not set any atomic list, map or struct, and is merged into the
// object (typed allowing duplicates). Nothing is ever removed.
func applyConfiguration(patchObject, object map[string]any, sch *Schema) (map[string]any, error) {
	withKind := make(map[string]any, len(patchObject)+2)
	for k, v := range patchObject {
		withKind[k] = v
	}
	// The patch is of the object's own apiVersion and kind, whatever the
	// expression wrote (kube-apiserver sets them, then checks that they are
	// the object's, which they are).
	withKind["apiVersion"], withKind["kind"] = stringOf(object["apiVersion"]), stringOf(object["kind"])
	patchTyped, err := sch.FromUnstructured(withKind)
	if err != nil {
		return nil, fmt.Errorf("failed to convert patch object to typed object: %w", err)
	}
	if atomics := findAtomics(nil, patchTyped.Schema(), patchTyped.TypeRef(), patchTyped.AsValue()); len(atomics) > 0 {
		return nil, fmt.Errorf("invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: %v", strings.Join(atomics, ", "))
	}
	liveTyped, err := sch.FromUnstructured(object, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert original object to typed object: %w", err)
	}
	merged, err := liveTyped.Merge(patchTyped)
	if err != nil {
		return nil, fmt.Errorf("failed to merge patch: %w", err)
	}
	out, ok := merged.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert typed object to object: unexpected type %T", merged.AsValue().Unstructured())
	}
	return out, nil
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// findAtomics returns the paths of the atomic lists, maps and structs in a
// patch, walking only declared struct fields and list items, as
// kube-apiserver's validatePatch does. kube-apiserver visits a map's keys in
// Go's map order; gatehouse in sorted order, so that a patch with several
// atomics always gets the same message.
func findAtomics(path []fieldpath.PathElement, s *smdschema.Schema, tr smdschema.TypeRef, v value.Value) []string {
	a, ok := s.Resolve(tr)
	if !ok {
		return nil
	}
	var atomics []string
	if v.IsMap() && a.Map != nil {
		if a.Map.ElementRelationship == smdschema.Atomic {
			atomics = append(atomics, pathString(path))
		}
		m := v.AsMap()
		var keys []string
		m.Iterate(func(key string, _ value.Value) bool {
			keys = append(keys, key)
			return true
		})
		slices.Sort(keys)
		for _, key := range keys {
			sf, ok := a.Map.FindField(key)
			if !ok {
				continue
			}
			val, _ := m.Get(key)
			k := key
			atomics = append(atomics, findAtomics(append(path[:len(path):len(path)], fieldpath.PathElement{FieldName: &k}), s, sf.Type, val)...)
		}
	}
	if v.IsList() && a.List != nil {
		if a.List.ElementRelationship == smdschema.Atomic {
			atomics = append(atomics, pathString(path))
		}
		list := v.AsList()
		for i := 0; i < list.Length(); i++ {
			idx := i
			atomics = append(atomics, findAtomics(append(path[:len(path):len(path)], fieldpath.PathElement{Index: &idx}), s, a.List.ElementType, list.At(i))...)
		}
	}
	return atomics
}

func pathString(path []fieldpath.PathElement) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString(p.String())
	}
	return b.String()
}
