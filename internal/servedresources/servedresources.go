// Package servedresources is the table of the resources and subresources
// kube-apiserver 1.37 serves: their kinds, scope, default enablement and
// storage prefix, generated from k8s.io/kubernetes v1.37.2 and checked
// against it (conformance/kubernetes TestServedResourcesTable). The policy
// checks (internal/policycheck) and the equivalent resources (package
// resources) read it.
package servedresources

import (
	_ "embed"
	"strings"
	"sync"
)

// servedTable lists every resource and subresource kube-apiserver 1.37
// serves with every API enabled, whether it serves it by default and its
// storage prefix, generated from k8s.io/kubernetes v1.37.2's
// discovery documents (conformance/kubernetes TestServedResourcesTable
// checks it is exactly those).
//
//go:embed served_resources.tsv
var servedTable string

// Served is one resource or subresource a server serves.
type Served struct {
	Group, Version, Resource, Subresource string
	// Kind is the kind of the objects of the (sub)resource.
	KindGroup, KindVersion, Kind string
	Namespaced                   bool
	// Default tells whether kube-apiserver serves it with its default API
	// enablement (no --runtime-config).
	Default bool
	// Storage is the key kube-apiserver's EquivalentResourceRegistry groups
	// equivalent resources by: the storage prefix of the group resource
	// (shared by cohabitating resources, core and events.k8s.io events).
	Storage string
}

// servedResources parses the embedded table once.
var servedResources = sync.OnceValue(func() []Served {
	var out []Served
	for _, line := range strings.Split(servedTable, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 10 {
			continue
		}
		out = append(out, Served{Group: f[0], Version: f[1], Resource: f[2], Subresource: f[3], KindGroup: f[4], KindVersion: f[5], Kind: f[6], Namespaced: f[7] == "true", Default: f[8] == "true", Storage: f[9]})
	}
	return out
})

// Builtin returns the resources and subresources kube-apiserver 1.37
// serves with every API enabled. The slice is shared: do not change it.
func Builtin() []Served { return servedResources() }
