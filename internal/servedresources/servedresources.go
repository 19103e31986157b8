// Package servedresources holds the tables of the resources and
// subresources kube-apiserver serves, one per version gatehouse answers for
// (kube.SupportedVersions): their kinds, scope, default enablement and
// storage prefix, generated from each version's k8s.io/kubernetes (1.35.4,
// 1.36.3, 1.37.2, 1.38.0-beta.0) and checked against it
// (TestServedResourcesTable of conformance/kubernetes/oracle/servedtable
// with each modfile, and of conformance/kubernetes for 1.37). The policy
// checks (internal/policycheck), the equivalent resources (package
// resources) and gatehouse's scopes read it.
//
// Adding a version is its table: served_resources_<version>.tsv, written by
// the oracle module's test with the version's modfile and -update-served.
package servedresources

import (
	"embed"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// tables lists, per version, every resource and subresource kube-apiserver
// serves with every API enabled, whether it serves it by default and its
// storage prefix, generated from that version's discovery documents
// (api/discovery of k8s.io/kubernetes).
//
//go:embed served_resources_*.tsv
var tables embed.FS

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

// fileName is the table of version v.
func fileName(v kube.Version) string { return "served_resources_" + v.String() + ".tsv" }

// byVersion parses each supported version's table once, when first asked.
var byVersion = func() map[kube.Version]func() []Served {
	m := map[kube.Version]func() []Served{}
	for _, v := range kube.SupportedVersions() {
		m[v] = sync.OnceValue(func() []Served {
			data, err := tables.ReadFile(fileName(v))
			if err != nil {
				panic("servedresources: no table for Kubernetes " + v.String())
			}
			return parse(string(data))
		})
	}
	return m
}()

func parse(table string) []Served {
	var out []Served
	for _, line := range strings.Split(table, "\n") {
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
}

// For returns the resources and subresources kube-apiserver as t serves
// with every API enabled (Served.Default tells those it serves by
// default), in the order of its table (sorted by group, version, resource,
// subresource). t's feature gates do not change it: kube-apiserver's
// discovery with every API enabled does not depend on them. The slice is
// shared: do not change it.
func For(t kube.Target) []Served { return ForVersion(t.Version()) }

// ForVersion is For of version v with its default gates; nil for a version
// gatehouse does not answer for.
func ForVersion(v kube.Version) []Served {
	if f, ok := byVersion[v]; ok {
		return f()
	}
	return nil
}

// Builtin returns what kube-apiserver serves at kube.LatestVersion (a zero
// kube.Target's version): For(kube.Target{}).
func Builtin() []Served { return For(kube.Target{}) }
