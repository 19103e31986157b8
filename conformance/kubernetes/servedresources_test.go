package kubernetes

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/gatehouse-dev/gatehouse/conformance/kubernetes/oracle/servedtable"
)

var updateServed = flag.Bool("update-served", false, "rewrite the main module's table of served resources from k8s.io/kubernetes' discovery documents")

// servedDir holds the main module's tables of the resources kube-apiserver
// serves, one per version (internal/servedresources, read by the rule
// checks of gatehouse lint and package resources' BuiltInFor).
const servedDir = "../../internal/servedresources"

// TestServedResourcesTable checks that the main module's table for 1.37 is
// exactly what kube-apiserver v1.37.2 serves with every API enabled, by
// the generator the other versions' tables share (package servedtable of
// ./oracle, whose test checks 1.35's, 1.36's and 1.38's with their
// modfiles). go test -run TestServedResourcesTable -update-served rewrites
// it.
//
// servedtable answers for the default enablement and the storage prefixes
// as k8s.io/apiserver's ResourceConfig and DefaultStorageFactory do,
// without linking them (their package links etcd's client, which the
// oracle module's builds do not have): this module links them, and checks
// that their answers are servedtable's for every group version of
// DefaultAPIResourceConfigSource and every resource of the table.
func TestServedResourcesTable(t *testing.T) {
	servedtable.Check(t, servedDir, *updateServed)

	src, err := servedtable.Built()
	require.NoError(t, err)
	d, err := servedtable.ReadDefaults(src)
	require.NoError(t, err)
	rc := serverstorage.NewResourceConfig()
	for gv, on := range d.Versions {
		if on {
			rc.EnableVersions(gv)
		} else {
			rc.DisableVersions(gv)
		}
	}
	sf := serverstorage.NewDefaultStorageFactory(storagebackend.Config{}, "", legacyscheme.Codecs, serverstorage.NewDefaultResourceEncodingConfig(legacyscheme.Scheme), rc, d.Prefixes)
	for _, set := range d.Cohabitating {
		sf.AddCohabitatingResources(set...)
	}
	table, err := os.ReadFile(filepath.Join(servedDir, servedtable.FileName(src.Minor)))
	require.NoError(t, err)
	var rows int
	for _, line := range strings.Split(string(table), "\n") {
		f := strings.Split(line, "\t")
		if strings.HasPrefix(line, "#") || len(f) != 10 {
			continue
		}
		rows++
		gv := schema.GroupVersion{Group: f[0], Version: f[1]}
		gr := schema.GroupResource{Group: f[0], Resource: f[2]}
		require.Equal(t, sf.ResourcePrefix(gr), d.ResourcePrefix(gr), "%v", gr)
		if enabled, listed := d.Enabled(gv); listed {
			require.Equal(t, rc.ResourceEnabled(gv.WithResource(f[2])), enabled, "%v", gv)
		}
	}
	require.Greater(t, rows, 100)
	// The cohabitating groups: a resource of a group with no version
	// enabled (extensions) is stored as its cohabitant.
	for _, set := range d.Cohabitating {
		for _, gr := range set {
			require.Equal(t, sf.ResourcePrefix(gr), d.ResourcePrefix(gr), "%v", gr)
		}
	}
}
