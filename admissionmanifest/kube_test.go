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

// The webhook plugins' staticOrder per version: 1.35 does not know the
// field and decodes loosely (ignored), 1.36 and 1.37 decode strictly (an
// unknown field), 1.38 checks it (k8s.io/apiserver v0.38.0-beta.0
// pkg/admission/plugin/webhook/config/kubeconfig.go, then
// webhook/validating/plugin.go).
func TestWebhookStaticOrderPerVersion(t *testing.T) {
	files := FilesOf(fstest.MapFS{"etc/static/x.yaml": {Data: []byte("")}})
	const head = "apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\n"
	const dir = "staticManifestsDir: /etc/static\n"
	const kubeconfig = "kubeConfigFile: /etc/kubernetes/webhook.kubeconfig\n"
	for _, tt := range []struct {
		version, gates string
		plugin         Plugin
		body           string
		order          StaticOrder
		err            string
	}{
		// (1.35 also requires a kubeConfigFile, which gatehouse does not model.)
		{"1.35", "", MutatingAdmissionWebhook, kubeconfig + dir + "staticOrder: ByName\n", "", ""},
		{"1.35", "", MutatingAdmissionWebhook, kubeconfig + "staticOrder: Bogus\n", "", ""},
		{"1.36", "ManifestBasedAdmissionControlConfig=true", MutatingAdmissionWebhook, dir + "staticOrder: ByName\n", "",
			`strict decoding error: unknown field "staticOrder"`},
		{"1.37", "", MutatingAdmissionWebhook, dir + "staticOrder: StaticFirst\n", "",
			`strict decoding error: unknown field "staticOrder"`},
		{"1.37", "", ValidatingAdmissionWebhook, "staticOrder: StaticFirst\nextra: 1\n", "",
			`strict decoding error: unknown field "extra", unknown field "staticOrder"`},
		{"1.37", "", MutatingAdmissionWebhook, dir, "", ""},
		{"1.38", "", MutatingAdmissionWebhook, dir, "", ""},
		{"1.38", "", MutatingAdmissionWebhook, dir + "staticOrder: ByName\n", ByName, ""},
		{"1.38", "", MutatingAdmissionWebhook, dir + "staticOrder: StaticLast\n", StaticLast, ""},
		{"1.38", "", MutatingAdmissionWebhook, dir + "staticOrder: StaticFirst\n", StaticFirst, ""},
		{"1.38", "", MutatingAdmissionWebhook, dir + "staticOrder: byName\n", "",
			`staticOrder: Unsupported value: "byName": supported values: "ByName", "StaticFirst", "StaticLast"`},
		{"1.38", "", MutatingAdmissionWebhook, "staticOrder: StaticLast\n", "",
			`staticOrder: Invalid value: "StaticLast": may only be set when staticManifestsDir is set`},
		{"1.38", "", MutatingAdmissionWebhook, "staticOrder: Bogus\n", "",
			`staticOrder: Unsupported value: "Bogus": supported values: "ByName", "StaticFirst", "StaticLast"`},
		{"1.38", "ManifestBasedAdmissionControlConfig=false", MutatingAdmissionWebhook, "staticOrder: Bogus\n", "",
			"staticOrder: Forbidden: staticOrder requires the ManifestBasedAdmissionControlConfig feature gate to be enabled"},
		{"1.38", "ManifestBasedAdmissionControlConfig=false", MutatingAdmissionWebhook, dir + "staticOrder: ByName\n", "",
			"staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled"},
		{"1.38", "", MutatingAdmissionWebhook, "kubeConfigFile: k\nstaticOrder: Bogus\n", "",
			`kubeConfigFile: Invalid value: "k": must be an absolute file path`},
		{"1.38", "", ValidatingAdmissionWebhook, dir + "staticOrder: StaticFirst\n", StaticFirst, ""},
		{"1.38", "", ValidatingAdmissionWebhook, dir + "staticOrder: ByName\n", "",
			`staticOrder: Invalid value: "ByName": only "StaticFirst" is supported by ValidatingAdmissionWebhook`},
		{"1.38", "", ValidatingAdmissionWebhook, "staticOrder: StaticLast\n", "",
			`staticOrder: Invalid value: "StaticLast": may only be set when staticManifestsDir is set`},
	} {
		name := tt.version + " " + tt.gates + " " + string(tt.plugin) + " " + tt.body
		target, err := kube.ParseTarget(tt.version)
		require.NoError(t, err)
		target, err = target.WithFeatureGates(tt.gates)
		require.NoError(t, err)
		cfg, err := DecodePluginConfiguration(tt.plugin, []byte(head+tt.body), ConfigOptions{Files: files, Kube: target})
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, name)
			continue
		}
		require.NoError(t, err, name)
		assert.Equal(t, tt.order, cfg.StaticOrder, name)
	}
}
