package mutation

import (
	"errors"
	"fmt"
	"sync"

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

	mu  sync.RWMutex
	crd map[schema.GroupVersionKind]*Schema

	// mergers holds the Merger of each built-in kind looked up (by its
	// *smdschema.Schema, which the builtin set keeps per kind).
	mergers sync.Map
}

// BuiltIn returns the schemas of every built-in kind of Kubernetes 1.37 (the
// kinds client-go v0.37.2's applyconfigurations.NewTypeConverter knows, from
// its embedded schema), and no custom resource. Nothing is decoded before a
// kind is first looked up; then only the types that kind reaches are.
func BuiltIn() *Schemas {
	return &Schemas{builtin: builtinschema.New(), crd: map[schema.GroupVersionKind]*Schema{}}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	for gvk := range s.crd {
		if gvk.Group == crd.Spec.Group && gvk.Kind == crd.Spec.Names.Kind {
			delete(s.crd, gvk)
		}
	}
	for gvk, t := range added {
		s.crd[gvk] = t
	}
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
	s.mu.RLock()
	t := s.crd[gvk]
	s.mu.RUnlock()
	if t != nil {
		return t, nil
	}
	pt, ok, err := s.builtin.Lookup(builtinschema.GVK{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind})
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w for %s", ErrNoSchema, gvk)
	}
	return &Schema{pt: pt, typedKind: true, fastMerger: s.mergerOf(pt)}, nil
}

// mergerOf returns the Merger of the built-in type pt, made on first use.
func (s *Schemas) mergerOf(pt typed.ParseableType) *mutationpatch.Merger {
	if m, ok := s.mergers.Load(pt.Schema); ok {
		return m.(*mutationpatch.Merger)
	}
	m, _ := s.mergers.LoadOrStore(pt.Schema, mutationpatch.NewMerger(pt.Schema, pt.TypeRef))
	return m.(*mutationpatch.Merger)
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
