package admissionmanifest

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// A plugin's staticManifestsDir per version: 1.35 does not know the field
// (ignored), 1.36 refuses it while its alpha gate is off, 1.37 takes it
// (k8s.io/apiserver v0.36.6 pkg/admission/plugin/manifest).
func TestStaticManifestsDirPerVersion(t *testing.T) {
	files := FilesOf(fstest.MapFS{"etc/static/x.yaml": {Data: []byte("")}})
	data := []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: ValidatingAdmissionPolicyConfiguration\nstaticManifestsDir: /etc/static\n")
	for _, tt := range []struct {
		version, gates string
		dir, err       string
	}{
		{"1.35", "", "", ""},
		{"1.36", "", "", "staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled"},
		{"1.36", "ManifestBasedAdmissionControlConfig=true", "/etc/static", ""},
		{"1.37", "", "/etc/static", ""},
		{"1.37", "ManifestBasedAdmissionControlConfig=false", "", "staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled"},
	} {
		target, err := kube.ParseTarget(tt.version)
		require.NoError(t, err)
		target, err = target.WithFeatureGates(tt.gates)
		require.NoError(t, err)
		cfg, err := DecodePluginConfiguration(ValidatingAdmissionPolicy, data, ConfigOptions{Files: files, Kube: target})
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, "%s %s", tt.version, tt.gates)
			continue
		}
		require.NoError(t, err, "%s %s", tt.version, tt.gates)
		assert.Equal(t, tt.dir, cfg.StaticManifestsDir, "%s %s", tt.version, tt.gates)
	}
}

// The REST API's treatment of static names per version: none before 1.36,
// a warning while the manifest feature is off (1.36), reserved while it is
// on (1.37, or 1.36 with its gate).
func TestStaticNamesPerVersion(t *testing.T) {
	for _, c := range []struct {
		version, gates string
		want           StaticNamePolicy
	}{
		{"1.35", "", StaticNamesAllowed},
		{"1.36", "", StaticNamesWarned},
		{"1.36", "ManifestBasedAdmissionControlConfig=true", StaticNamesReserved},
		{"1.37", "", StaticNamesReserved},
		{"1.37", "ManifestBasedAdmissionControlConfig=false", StaticNamesWarned},
		{"1.38", "", StaticNamesReserved},
	} {
		target, err := kube.ParseTarget(c.version)
		require.NoError(t, err)
		target, err = target.WithFeatureGates(c.gates)
		require.NoError(t, err)
		assert.Equal(t, c.want, StaticNamesFor(target), "%s %s", c.version, c.gates)
	}
	assert.Equal(t, StaticNamesReserved, StaticNamesFor(kube.Target{}), "the zero Target is 1.37")
}
