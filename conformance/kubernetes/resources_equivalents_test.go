package kubernetes

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/gatehouse-dev/gatehouse/conformance/kubernetes/oracle/servedtable"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/resources"
)

// TestBuiltInEquivalentsOrder checks the one thing resources.BuiltIn adds
// to the served-resources table (whose rows, default enablement and storage
// prefixes TestServedResourcesTable checks): the order of the equivalent
// versions of a group's resource, which kube-apiserver registers as it
// installs the group's versions, in the priority order of its scheme
// (legacyscheme.Scheme.PrioritizedVersionsForGroup).
func TestBuiltInEquivalentsOrder(t *testing.T) {
	// This module links k8s.io/kubernetes v1.37.2: its scheme's priorities
	// are 1.37's.
	reg := resources.BuiltInFor(kube.Target{}) // kube.LatestVersion, 1.37
	require.Equal(t, kube.V1_37, kube.LatestVersion())
	data, err := os.ReadFile(filepath.Join(servedDir, servedtable.FileName("1.37")))
	require.NoError(t, err)
	checked := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if strings.HasPrefix(line, "#") || len(f) < 4 || f[3] != "" {
			continue
		}
		gv := schema.GroupVersion{Group: f[0], Version: f[1]}
		var sameGroup []string
		for _, e := range reg.EquivalentResourcesFor(gv.WithResource(f[2]), "") {
			if e.Group == gv.Group {
				sameGroup = append(sameGroup, e.Version)
			}
		}
		if len(sameGroup) < 2 {
			continue
		}
		var want []string
		for _, p := range legacyscheme.Scheme.PrioritizedVersionsForGroup(gv.Group) {
			if slices.Contains(sameGroup, p.Version) {
				want = append(want, p.Version)
			}
		}
		require.Equal(t, want, sameGroup, "%v", gv.WithResource(f[2]))
		checked++
	}
	require.Positive(t, checked)
	// Core events first: kube-apiserver installs the legacy API before the
	// groups.
	require.Equal(t, []schema.GroupVersionResource{{Version: "v1", Resource: "events"}, {Group: "events.k8s.io", Version: "v1", Resource: "events"}},
		reg.EquivalentResourcesFor(schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}, ""))
}
