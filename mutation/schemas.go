package mutation

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/gatehouse-dev/gatehouse/internal/builtinschema"
	"github.com/gatehouse-dev/gatehouse/internal/crdschema"
	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
	"k8s.io/apimachinery/pkg/runtime/schema"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// ErrNoSchema is returned (wrapped) by [Schemas.Lookup] for a kind it has no
// schema for.
var ErrNoSchema = errors.New("no schema")

// Schemas resolves an object's group, version and kind to its schema. It is
// safe for concurrent use; the zero value is not usable, use [BuiltIn].
type Schemas struct {
	builtin *builtinschema.Set

	// crd holds the schemas of the custom resources added, as a map that
	// AddCRD replaces whole (copy on write, under mu): every request looks
	// its kind up here, on every core, without a lock. Bounded by the
	// versions of the CRDs added (a CRD replaces its group and kind's).
	mu  sync.Mutex // serializes AddCRD
	crd atomic.Pointer[map[schema.GroupVersionKind]*Schema]

	// builtins holds the *Schema (with its Merger) of each built-in kind
	// looked up (schema.GroupVersionKind to *Schema), made on first use:
	// bounded by the built-in kinds of the embedded schema, as only those
	// are stored.
	builtins sync.Map
}

// BuiltIn returns the schemas of every built-in kind of Kubernetes 1.37 (the
// kinds client-go v0.37.2's applyconfigurations.NewTypeConverter knows, from
// its embedded schema), and no custom resource. Nothing is decoded before a
// kind is first looked up; then only the types that kind reaches are.
func BuiltIn() *Schemas {
	s := &Schemas{builtin: builtinschema.New()}
	s.crd.Store(&map[schema.GroupVersionKind]*Schema{})
	return s
}

// addSchemas puts schemas in force for their kinds, in place of those of
// the CRD of group and kind (if kind is not empty).
func (s *Schemas) addSchemas(group, kind string, added map[schema.GroupVersionKind]*Schema) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := maps.Clone(*s.crd.Load())
	for gvk := range next {
		if kind != "" && gvk.Group == group && gvk.Kind == kind {
			delete(next, gvk)
		}
	}
	maps.Copy(next, added)
	s.crd.Store(&next)
}

// AddCRD adds the schema of every version of a CustomResourceDefinition
// (apiextensions.k8s.io/v1, one YAML or JSON document), converted as
// kube-apiserver converts the OpenAPI v3 it publishes for the CRD (see
// "Custom resources" in the package documentation). A CRD replaces the schemas of
// a CRD of the same group and kind added before; it cannot replace a built-in
// kind. The CRD is expected to be one kube-apiserver accepted: a schema that
// is not structural is an error here.
func (s *Schemas) AddCRD(data []byte) error {
	crd, err := crdschema.Decode(data)
	if err != nil {
		return fmt.Errorf("decoding the CRD: %w", err)
	}
	versions, err := crdschema.Convert(crd)
	if err != nil {
		return fmt.Errorf("CRD %s.%s: %w", crd.Spec.Names.Kind, crd.Spec.Group, err)
	}
	shared, err := s.crdSupport()
	if err != nil {
		return err
	}
	added := map[schema.GroupVersionKind]*Schema{}
	for _, v := range versions {
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Version, Kind: crd.Spec.Names.Kind}
		if _, ok, _ := s.builtin.Lookup(builtinschema.GVK{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}); ok {
			return fmt.Errorf("CRD %s.%s: version %s is the built-in kind %s", crd.Spec.Names.Kind, crd.Spec.Group, v.Version, gvk)
		}
		types := make([]smdschema.TypeDef, 0, len(shared)+1)
		types = append(types, v.Root)
		types = append(types, shared...)
		name := v.Type
		pt := typed.ParseableType{Schema: &smdschema.Schema{Types: types}, TypeRef: smdschema.TypeRef{NamedType: &name}}
		added[gvk] = &Schema{pt: pt, fastMerger: mutationpatch.NewMerger(pt.Schema, pt.TypeRef)}
	}
	s.addSchemas(crd.Spec.Group, crd.Spec.Names.Kind, added)
	return nil
}

// crdSupport returns the named types every CRD's schema refers to: the
// closure of ObjectMeta and the untyped and deduced types.
func (s *Schemas) crdSupport() ([]smdschema.TypeDef, error) {
	seen := map[string]bool{}
	var out []smdschema.TypeDef
	for _, name := range []string{crdschema.ObjectMeta, crdschema.Untyped, crdschema.Deduced} {
		c, err := s.builtin.Named(name)
		if err != nil {
			return nil, err
		}
		for _, td := range c.Types {
			if !seen[td.Name] {
				seen[td.Name] = true
				out = append(out, td)
			}
		}
	}
	return out, nil
}

// Lookup returns the schema of gvk: a custom resource added with AddCRD or a
// built-in kind. For any other kind the error wraps [ErrNoSchema]; use
// [Deduced] to treat such objects without a schema.
func (s *Schemas) Lookup(gvk schema.GroupVersionKind) (*Schema, error) {
	if t := (*s.crd.Load())[gvk]; t != nil {
		return t, nil
	}
	if t, ok := s.builtins.Load(gvk); ok {
		return t.(*Schema), nil
	}
	pt, ok, err := s.builtin.Lookup(builtinschema.GVK{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind})
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w for %s", ErrNoSchema, gvk)
	}
	t, _ := s.builtins.LoadOrStore(gvk, &Schema{pt: pt, typedKind: true, fastMerger: mutationpatch.NewMerger(pt.Schema, pt.TypeRef)})
	return t.(*Schema), nil
}

// Schema is the schema of one kind.
type Schema struct {
	pt      typed.ParseableType
	deduced bool
	// typedKind is set for built-in kinds, which kube-apiserver handles as
	// Go types (a JSON Patch result is decoded strictly).
	typedKind bool
	// fastMerger merges ApplyConfigurations without structured-merge-diff
	// when it can; embedded so that ApplyConfiguration finds it (nil for
	// the deduced schema).
	*fastMerger
}

// fastMerger names the embedded Merger of a Schema.
type fastMerger = mutationpatch.Merger

var deduced = &Schema{pt: typed.DeducedParseableType, deduced: true}

// Deduced returns the schema kube-apiserver's deduced type converter uses for
// objects without a schema: every map granular and every list atomic. Merging
// with it replaces whole lists — a patch that sets one container of a list
// replaces all of them, where the kind's real schema (listType=map) would
// merge it by name. Use it only when the caller chooses so.
func Deduced() *Schema { return deduced }

// IsDeduced tells whether s is the schema of [Deduced].
func (s *Schema) IsDeduced() bool { return s.deduced }

// FromUnstructured returns obj (as decoded from JSON) typed with the schema,
// or the error structured-merge-diff reports. obj is not copied.
func (s *Schema) FromUnstructured(obj map[string]any, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return s.pt.FromUnstructured(obj, opts...)
}
