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
