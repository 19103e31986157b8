package policycheck

import (
	_ "embed"
	"strings"
	"sync"
)

// servedTable lists every resource and subresource kube-apiserver 1.37
// serves with every API enabled, generated from k8s.io/kubernetes v1.37.2's
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
}

// servedResources parses the embedded table once.
var servedResources = sync.OnceValue(func() []Served {
	var out []Served
	for _, line := range strings.Split(servedTable, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			continue
		}
		out = append(out, Served{Group: f[0], Version: f[1], Resource: f[2], Subresource: f[3], KindGroup: f[4], KindVersion: f[5], Kind: f[6], Namespaced: f[7] == "true"})
	}
	return out
})

// BuiltinServed returns the resources and subresources kube-apiserver 1.37
// serves with every API enabled. The slice is shared: do not change it.
func BuiltinServed() []Served { return servedResources() }
