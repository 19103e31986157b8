package policycheck

import (
	"fmt"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/builtintypes"
	"github.com/gatehouse-dev/gatehouse/internal/crdschema"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// Kinds are the resources a cluster serves and the schemas of their kinds:
// the built-in resources kube-apiserver serves at a version (with every API
// enabled) and the CRDs added. The schemas of the built-in kinds are those
// of the Go types gatehouse links (k8s.io/api v0.37) at every version. The
// zero value is not usable; use NewKinds or NewKindsFor. Once its CRDs are
// added, it is safe for concurrent use: the schemas of built-in kinds are
// built on first use, under a lock, and never changed after.
type Kinds struct {
	version kube.Version
	// builtinServed is the table of version.
	builtinServed []Served
	crdServed     []Served
	// served is the built-in resources and crdServed, built by AddCRD.
	served   []Served
	crdNodes map[schema.GroupVersionKind]*Node
	mu       sync.Mutex
	// builtin keeps the schema of each built-in kind looked up: bounded by
	// the scheme's kinds, as an unknown kind is never stored.
	builtin map[schema.GroupVersionKind]*Node
}

// NewKinds returns the built-in kinds of kube.LatestVersion and no CRD:
// NewKindsFor(kube.Target{}).
func NewKinds() *Kinds { return NewKindsFor(kube.Target{}) }

// NewKindsFor returns the built-in kinds of kube-apiserver as t and no CRD.
func NewKindsFor(t kube.Target) *Kinds {
	return &Kinds{version: t.Version(), builtinServed: BuiltinServed(t), crdNodes: map[schema.GroupVersionKind]*Node{}, builtin: map[schema.GroupVersionKind]*Node{}}
}

// Version is the version of kube-apiserver whose built-in resources k
// holds.
func (k *Kinds) Version() kube.Version { return k.version }

// AddCRD adds the served versions of a CustomResourceDefinition
// (apiextensions.k8s.io/v1, YAML or JSON): its resources, its status and
// scale subresources, and its schemas.
func (k *Kinds) AddCRD(data []byte) error {
	crd, err := crdschema.Decode(data)
	if err != nil {
		return fmt.Errorf("decoding the CRD: %w", err)
	}
	s := crd
	if s.Spec.Names.Plural == "" {
		return fmt.Errorf("CRD %s.%s: spec.names.plural is required", crd.Spec.Names.Kind, crd.Spec.Group)
	}
	namespaced := s.Spec.Scope != "Cluster"
	defer func() { k.served = append(append([]Served(nil), k.builtinServed...), k.crdServed...) }()
	for _, v := range s.Spec.Versions {
		if !v.Served {
			continue
		}
		add := func(sub, kg, kv, kind string) {
			k.crdServed = append(k.crdServed, Served{Group: s.Spec.Group, Version: v.Name, Resource: s.Spec.Names.Plural, Subresource: sub, KindGroup: kg, KindVersion: kv, Kind: kind, Namespaced: namespaced})
		}
		add("", s.Spec.Group, v.Name, s.Spec.Names.Kind)
		if v.Subresources.Status != nil {
			add("status", s.Spec.Group, v.Name, s.Spec.Names.Kind)
		}
		if v.Subresources.Scale != nil {
			add("scale", "autoscaling", "v1", "Scale")
		}
		var props *crdschema.Props
		if v.Schema != nil {
			props = v.Schema.OpenAPIV3Schema
		}
		k.crdNodes[schema.GroupVersionKind{Group: s.Spec.Group, Version: v.Name, Kind: s.Spec.Names.Kind}] = CRDNode(props)
	}
	return nil
}

// Served returns the built-in resources and those of the CRDs. The slice
// is shared: do not change it.
func (k *Kinds) Served() []Served {
	if len(k.crdServed) == 0 {
		return k.builtinServed
	}
	return k.served
}

// Node returns the schema of a kind; ok is false for a kind neither built
// in nor added.
func (k *Kinds) Node(gvk schema.GroupVersionKind) (*Node, bool) {
	if n, ok := k.crdNodes[gvk]; ok {
		return n, true
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if n, ok := k.builtin[gvk]; ok {
		return n, true
	}
	scheme, err := builtintypes.Scheme()
	if err != nil {
		return nil, false
	}
	t, ok := scheme.AllKnownTypes()[gvk]
	if !ok {
		return nil, false
	}
	n := GoNode(t)
	markMetadata(n)
	markDefaulted(n, gvk)
	k.builtin[gvk] = n
	return n, true
}

// objectMetaNode is the schema of metadata, with name and namespace taken
// as present (see markMetadata).
var objectMetaNode = sync.OnceValue(func() *Node {
	n := GoNode(reflect.TypeFor[metav1.ObjectMeta]())
	markMetadataFields(n)
	return n
})

// markMetadata marks apiVersion, kind, metadata.name and
// metadata.namespace of a kind's schema present: kube-apiserver sets
// apiVersion and kind of every object it admits; kube-apiserver sets the namespace of a namespaced object
// from the request, and an object without a name is rare (generateName);
// a policy reading them unguarded is not reported.
func markMetadata(n *Node) {
	for _, name := range []string{"apiVersion", "kind"} {
		if f, ok := n.Fields[name]; ok {
			n.Fields[name] = &Field{Node: f.Node, Present: true}
		}
	}
	if f, ok := n.Lookup("metadata"); ok {
		cp := *f.Node
		cp.Fields = map[string]*Field{}
		for name, f := range f.Node.Fields {
			cp.Fields[name] = f
		}
		markMetadataFields(&cp)
		n.Fields["metadata"] = &Field{Node: &cp, Present: f.Present}
	}
}

func markMetadataFields(n *Node) {
	for _, name := range []string{"name", "namespace"} {
		if f, ok := n.Fields[name]; ok {
			n.Fields[name] = &Field{Node: f.Node, Present: true}
		}
	}
}

// IsBuiltin tells whether a kind is a built-in one (not a CRD's): its
// objects are held through a Go type.
func (k *Kinds) IsBuiltin(gvk schema.GroupVersionKind) bool {
	if _, ok := k.crdNodes[gvk]; ok {
		return false
	}
	scheme, err := builtintypes.Scheme()
	if err != nil {
		return false
	}
	_, ok := scheme.AllKnownTypes()[gvk]
	return ok
}
