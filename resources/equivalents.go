package resources

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/gatehouse-dev/gatehouse/internal/crdschema"
	"github.com/gatehouse-dev/gatehouse/internal/servedresources"
	"github.com/gatehouse-dev/gatehouse/kube"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// BuiltIn returns a new registry of the equivalent resources kube-apiserver
// registers with its default API enablement at kube.LatestVersion (a zero
// kube.Target's version): BuiltInFor(kube.Target{}).
func BuiltIn() runtime.EquivalentResourceRegistry { return BuiltInFor(kube.Target{}) }

// BuiltInFor returns a new registry of the equivalent resources
// kube-apiserver as t registers with its default API enablement: every
// resource and subresource of every default-enabled group version of t's
// version, with its kind, each resource equivalent to the resources sharing
// its storage (its versions, and core and events.k8s.io events). What is
// served, and by default, differs between versions (README.md, "Kubernetes
// version"); t's feature gates do not change it. Resources registered on it
// (its RegisterKindFor, RegisterCRD) are equivalent to the built-in ones
// only if they are a built-in group and resource.
func BuiltInFor(t kube.Target) runtime.EquivalentResourceRegistry {
	b := builtins[t.Version()]()
	// keys is read only; the registry calls it under its lock.
	reg := runtime.NewEquivalentResourceRegistryWithIdentity(func(gr schema.GroupResource) string { return b.keys[gr] })
	for _, r := range b.rows {
		reg.RegisterKindFor(schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}, r.Subresource,
			schema.GroupVersionKind{Group: r.KindGroup, Version: r.KindVersion, Kind: r.Kind})
	}
	return reg
}

// builtin is what a version's registries are built from: the
// default-enabled rows in kube-apiserver's order of registration and the
// storage key of each group resource.
type builtin struct {
	rows []servedresources.Served
	keys map[schema.GroupResource]string
}

// builtins holds each supported version's, built once.
var builtins = func() map[kube.Version]func() builtin {
	m := map[kube.Version]func() builtin{}
	for _, v := range kube.SupportedVersions() {
		m[v] = sync.OnceValue(func() builtin { return newBuiltin(servedresources.ForVersion(v)) })
	}
	return m
}()

func newBuiltin(served []servedresources.Served) builtin {
	rows := slices.DeleteFunc(slices.Clone(served), func(s servedresources.Served) bool { return !s.Default })
	// kube-apiserver installs the legacy group first, then the others; a
	// group's versions in the order of their priority, which for every
	// group with several default-enabled versions (autoscaling's v2 and v1)
	// is the kube-aware order (v2, v1, v1beta1, ...) at every supported
	// version (conformance/kubernetes/oracle/servedtable checks it against
	// each version's install packages, conformance/kubernetes against 1.37's
	// scheme).
	slices.SortStableFunc(rows, func(a, b servedresources.Served) int {
		// "" (the legacy group) first.
		if c := cmp.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		if c := version.CompareKubeAwareVersionStrings(b.Version, a.Version); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Subresource, b.Subresource))
	})
	keys := map[schema.GroupResource]string{}
	for _, r := range rows {
		// A key no GroupResource.String() of another resource can be.
		keys[schema.GroupResource{Group: r.Group, Resource: r.Resource}] = "storage:" + r.Storage
	}
	return builtin{rows: rows, keys: keys}
}

// RegisterCRD registers in r the resources of a CustomResourceDefinition
// (apiextensions.k8s.io/v1, one YAML or JSON document) as kube-apiserver's
// CRD handler registers them: for every version of spec.versions, served or
// not, the resource of spec.names.plural with spec.names.kind, its status
// subresource with the same kind and its scale subresource with
// autoscaling/v1 Scale, if the version has them. (kube-apiserver reads the
// names from status.acceptedNames, which equal spec.names once the CRD is
// established.)
func RegisterCRD(r runtime.EquivalentResourceRegistry, crd []byte) error {
	c, err := crdschema.Decode(crd)
	if err != nil {
		return fmt.Errorf("decoding the CRD: %w", err)
	}
	if c.Spec.Names.Plural == "" {
		return fmt.Errorf("CRD %s.%s: spec.names.plural is required", c.Spec.Names.Kind, c.Spec.Group)
	}
	for _, v := range c.Spec.Versions {
		gvr := schema.GroupVersionResource{Group: c.Spec.Group, Version: v.Name, Resource: c.Spec.Names.Plural}
		gvk := schema.GroupVersionKind{Group: c.Spec.Group, Version: v.Name, Kind: c.Spec.Names.Kind}
		r.RegisterKindFor(gvr, "", gvk)
		if v.Subresources.Status != nil {
			r.RegisterKindFor(gvr, "status", gvk)
		}
		if v.Subresources.Scale != nil {
			r.RegisterKindFor(gvr, "scale", schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"})
		}
	}
	return nil
}
