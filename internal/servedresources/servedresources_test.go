package servedresources

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// serving is how a version serves a (sub)resource: not at all, only when
// --runtime-config enables it, or by default.
type serving string

const (
	absent serving = "absent"
	off    serving = "off"
	on     serving = "on"
)

func servingOf(rows []Served, group, version, resource, sub string) serving {
	i := slices.IndexFunc(rows, func(s Served) bool {
		return s.Group == group && s.Version == version && s.Resource == resource && s.Subresource == sub
	})
	switch {
	case i < 0:
		return absent
	case rows[i].Default:
		return on
	}
	return off
}

// TestForVersions checks, at each supported version, (sub)resources that
// the generated tables (from each version's k8s.io/kubernetes) serve
// differently.
func TestForVersions(t *testing.T) {
	require.Equal(t, []kube.Version{kube.V1_35, kube.V1_36, kube.V1_37, kube.V1_38}, kube.SupportedVersions())
	for _, tc := range []struct {
		group, version, resource, sub string
		// at 1.35, 1.36, 1.37, 1.38.
		want [4]serving
	}{
		// GA in 1.36; its v1beta1 was off by default in 1.35.
		{"admissionregistration.k8s.io", "v1", "mutatingadmissionpolicies", "", [4]serving{absent, on, on, on}},
		{"admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicies", "", [4]serving{off, off, off, off}},
		// GA in 1.37, a beta off by default before.
		{"certificates.k8s.io", "v1", "podcertificaterequests", "", [4]serving{absent, absent, on, on}},
		{"certificates.k8s.io", "v1", "clustertrustbundles", "", [4]serving{absent, absent, on, on}},
		{"certificates.k8s.io", "v1alpha1", "clustertrustbundles", "", [4]serving{off, off, absent, absent}},
		{"resource.k8s.io", "v1", "devicetaintrules", "status", [4]serving{absent, absent, on, on}},
		{"resource.k8s.io", "v1beta2", "devicetaintrules", "", [4]serving{absent, off, off, off}},
		{"storagemigration.k8s.io", "v1", "storageversionmigrations", "", [4]serving{absent, absent, on, on}},
		// A subresource new in 1.37.
		{"storage.k8s.io", "v1", "csinodes", "status", [4]serving{absent, absent, on, on}},
		// Removed: networking.k8s.io/v1beta1 in 1.37, resource.k8s.io/v1beta1
		// in 1.38, scheduling.k8s.io/v1alpha1 in 1.36.
		{"networking.k8s.io", "v1beta1", "servicecidrs", "", [4]serving{off, off, absent, absent}},
		{"resource.k8s.io", "v1beta1", "resourceclaims", "", [4]serving{off, off, off, absent}},
		{"scheduling.k8s.io", "v1alpha1", "workloads", "", [4]serving{off, absent, absent, absent}},
		// New in 1.37's lifecycle.k8s.io and in 1.38's beta.
		{"lifecycle.k8s.io", "v1alpha1", "evictionrequests", "", [4]serving{absent, absent, off, off}},
		{"scheduling.k8s.io", "v1beta1", "compositepodgroups", "", [4]serving{absent, absent, absent, off}},
		// The same at every version.
		{"apps", "v1", "deployments", "scale", [4]serving{on, on, on, on}},
	} {
		for i, v := range kube.SupportedVersions() {
			target, err := kube.TargetFor(v)
			require.NoError(t, err)
			assert.Equal(t, tc.want[i], servingOf(For(target), tc.group, tc.version, tc.resource, tc.sub), "%s/%s %s %s at %s", tc.group, tc.version, tc.resource, tc.sub, v)
		}
	}
}

// TestTables checks every supported version has a table, parsed, sorted
// and with the columns set; that Builtin is the newest release's; and that
// the feature gates do not change it.
func TestTables(t *testing.T) {
	for _, v := range kube.SupportedVersions() {
		rows := ForVersion(v)
		require.Greater(t, len(rows), 100, v.String())
		assert.True(t, slices.IsSortedFunc(rows, func(a, b Served) int {
			return compareRows(a, b)
		}), v.String())
		for _, r := range rows {
			assert.NotEmpty(t, r.Version, "%+v", r)
			assert.NotEmpty(t, r.Resource, "%+v", r)
			assert.NotEmpty(t, r.Kind, "%+v", r)
			assert.NotEmpty(t, r.Storage, "%+v", r)
		}
	}
	assert.Nil(t, ForVersion(kube.Version{}))
	assert.Equal(t, ForVersion(kube.LatestVersion()), Builtin())
	target, err := kube.ParseTarget("1.35")
	require.NoError(t, err)
	gated, err := target.WithFeatureGates("AllAlpha=true")
	require.NoError(t, err)
	assert.Equal(t, For(target), For(gated))
	// Each version's slice is built once.
	assert.Same(t, &ForVersion(kube.V1_36)[0], &ForVersion(kube.V1_36)[0])
}

// compareRows orders rows as the generator sorts the table's lines.
func compareRows(a, b Served) int {
	key := func(s Served) string {
		return s.Group + "\t" + s.Version + "\t" + s.Resource + "\t" + s.Subresource + "\t"
	}
	switch ka, kb := key(a), key(b); {
	case ka < kb:
		return -1
	case ka > kb:
		return 1
	}
	return 0
}
