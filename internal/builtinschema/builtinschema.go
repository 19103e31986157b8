// Package builtinschema holds the structured-merge-diff schemas of the
// built-in types of Kubernetes 1.37, embedded compactly (types.smdz, written
// by conformance/cmd/schemagen from client-go v0.37.2's applyconfigurations
// schema) and decoded lazily: the index on first use, and for each kind only
// the named types its type reaches, once.
package builtinschema

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/gatehouse-dev/gatehouse/internal/smdcodec"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

//go:embed types.smdz
var data []byte

// Data returns a copy of the embedded encoding.
func Data() []byte { return append([]byte(nil), data...) }

// GVK is a group, version and kind.
type GVK struct{ Group, Version, Kind string }

// Set is the lazily decoded embedded schema. The zero value is not usable;
// use New. A Set is safe for concurrent use.
type Set struct {
	open  sync.Once
	table *smdcodec.Table
	err   error

	// kinds holds each built-in kind looked up (GVK to *kind): it is
	// bounded by the built-in kinds of the embedded table (a GVK that is
	// not one is never stored). A sync.Map, so that the lookups of every
	// request, on every core, share no lock: its keys are written once.
	kinds sync.Map

	// named holds the closures of named types asked for (string to
	// *named), bounded by the named types of the embedded table.
	named sync.Map
}

type kind struct {
	once sync.Once
	pt   typed.ParseableType
	err  error
}

// New returns a Set over the embedded schema. Nothing is decoded yet.
func New() *Set { return &Set{} }

func (s *Set) tableOf() (*smdcodec.Table, error) {
	s.open.Do(func() { s.table, s.err = smdcodec.Open(data) })
	return s.table, s.err
}

// Lookup returns the type of gvk, decoding its closure on first use. ok is
// false when gvk is not a built-in kind.
func (s *Set) Lookup(gvk GVK) (pt typed.ParseableType, ok bool, err error) {
	t, err := s.tableOf()
	if err != nil {
		return typed.ParseableType{}, false, err
	}
	if _, ok := t.RootType(gvk.Group, gvk.Version, gvk.Kind); !ok {
		return typed.ParseableType{}, false, nil
	}
	v, ok := s.kinds.Load(gvk)
	if !ok {
		v, _ = s.kinds.LoadOrStore(gvk, &kind{})
	}
	k := v.(*kind)
	k.once.Do(func() {
		sch, name, err := t.RootClosure(gvk.Group, gvk.Version, gvk.Kind)
		if err != nil {
			k.err = fmt.Errorf("decoding the schema of %s/%s %s: %w", gvk.Group, gvk.Version, gvk.Kind, err)
			return
		}
		k.pt = typed.ParseableType{Schema: sch, TypeRef: schema.TypeRef{NamedType: &name}}
	})
	return k.pt, true, k.err
}

// Kinds returns every built-in kind.
func (s *Set) Kinds() ([]GVK, error) {
	t, err := s.tableOf()
	if err != nil {
		return nil, err
	}
	roots := t.Roots()
	out := make([]GVK, len(roots))
	for i, r := range roots {
		out[i] = GVK{r.Group, r.Version, r.Kind}
	}
	return out, nil
}
