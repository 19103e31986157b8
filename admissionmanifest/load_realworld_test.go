package admissionmanifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realworldVerdicts are kube-apiserver 1.37's verdicts on the published
// files of testdata/realworld (copied from the project's shared real-world
// corpus; conformance's TestAdmissionManifestRealWorldMatchesKubeAPIServer
// compares them with kube-apiserver's loaders), each file alone in the
// directory of the plugin it is written for. $F stands for the file's path.
var realworldVerdicts = map[string]struct {
	plugin Plugin
	want   string // the error, or "loads: " and the names
}{
	"knative__serving__configmap-validation-validatingwebhookconfiguration.yaml": {ValidatingAdmissionWebhook,
		`error loading $F: "config.webhook.serving.knative.dev" in file "$F" must have a name ending with ".static.k8s.io"`},
	"knative__serving__defaulting-mutatingwebhookconfiguration.yaml": {MutatingAdmissionWebhook,
		`error loading $F: "webhook.serving.knative.dev" in file "$F" must have a name ending with ".static.k8s.io"`},
	"kubernetes-sigs__cluster-api__webhook-manifests.yaml": {MutatingAdmissionWebhook,
		`error loading $F: "mutating-webhook-configuration" in file "$F" must have a name ending with ".static.k8s.io"`},
	"kubernetes__enhancements__kep-5793-static-webhook-no-suffix.yaml": {ValidatingAdmissionWebhook,
		`error loading $F: illegal base64 data at input byte 0`},
	"kubernetes__ingress-nginx__kind-deploy-validatingwebhookconfiguration.yaml": {ValidatingAdmissionWebhook,
		`error loading $F: "ingress-nginx-admission" in file "$F" must have a name ending with ".static.k8s.io"`},
	"kubernetes__website__static-deny-privileged-policy.yaml": {ValidatingAdmissionPolicy,
		`loads: example-deny-privileged.static.k8s.io example-deny-privileged-binding.static.k8s.io`},
	"kubernetes__website__static-list-format-policy.yaml": {ValidatingAdmissionPolicy,
		`loads: example-require-labels.static.k8s.io example-require-labels-binding.static.k8s.io`},
	"kubernetes__website__static-protect-admission-resources.yaml": {ValidatingAdmissionPolicy,
		`loads: example-protect-admission-resources.static.k8s.io example-protect-admission-resources-binding.static.k8s.io`},
	"kubernetes__website__static-validating-webhook.yaml": {ValidatingAdmissionWebhook,
		`error loading $F: illegal base64 data at input byte 0`},
	"kyverno__kyverno__chainsaw-only-pod-webhooks-assert.yaml": {ValidatingAdmissionWebhook,
		`error loading $F: ValidatingWebhookConfiguration "kyverno-resource-validating-webhook-cfg": [webhooks[0].name: Required value, webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[0].clientConfig: Required value: exactly one of url or service is required, webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]`},
	"open-policy-agent__gatekeeper__mutation-webhook.yaml": {MutatingAdmissionWebhook,
		`error loading $F: "gatekeeper-mutating-webhook-configuration" in file "$F" must have a name ending with ".static.k8s.io"`},
	"open-policy-agent__gatekeeper__webhook-manifests.yaml": {MutatingAdmissionWebhook,
		`error loading $F: "mutating-webhook-configuration" in file "$F" must have a name ending with ".static.k8s.io"`},
}

func TestRealWorldManifests(t *testing.T) {
	names, err := filepath.Glob("testdata/realworld/*.yaml")
	require.NoError(t, err)
	seen := 0
	for _, name := range names {
		base := filepath.Base(name)
		verdict, ok := realworldVerdicts[base]
		if !ok {
			continue // an AdmissionConfiguration: TestRealWorldAdmissionConfigurations
		}
		seen++
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		files := FilesOf(fstest.MapFS{"etc/manifests": {Mode: fs.ModeDir}, "etc/manifests/" + base: {Data: data}})
		path := "/etc/manifests/" + base
		m, err := Load(verdict.plugin, "/etc/manifests", LoadOptions{Files: files})
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = "loads: " + strings.Join(m.Names(), " ")
		}
		assert.Equal(t, strings.ReplaceAll(verdict.want, "$F", path), got, base)
	}
	assert.Equal(t, len(realworldVerdicts), seen)
}

// TestRealWorldAdmissionConfigurations: both published
// AdmissionConfigurations put a placeholder in kubeConfigFile, which
// kube-apiserver refuses; their policy plugins' directories are fine once
// they exist.
func TestRealWorldAdmissionConfigurations(t *testing.T) {
	dirs := fstest.MapFS{}
	for _, d := range []string{"validating", "mutating", "policies", "mutating-policies", "validating-webhooks", "mutating-webhooks", "validating-policies"} {
		dirs["etc/kubernetes/admission/"+d] = &fstest.MapFile{Mode: fs.ModeDir}
	}
	for _, base := range []string{"kubernetes__enhancements__kep-5793-admission-configuration.yaml", "kubernetes__website__static-admission-configuration.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata/realworld", base))
		require.NoError(t, err)
		ac, err := DecodeAdmissionConfiguration(data, "/etc/kubernetes", ConfigOptions{Files: FilesOf(dirs)})
		require.NoError(t, err, base)
		for _, p := range []Plugin{ValidatingAdmissionWebhook, MutatingAdmissionWebhook} {
			_, err := ac.PluginConfiguration(p)
			assert.EqualError(t, err, `kubeConfigFile: Invalid value: "<path-to-kubeconfig>": must be an absolute file path`, base)
		}
		for _, p := range []Plugin{ValidatingAdmissionPolicy, MutatingAdmissionPolicy} {
			cfg, err := ac.PluginConfiguration(p)
			require.NoError(t, err, base)
			assert.True(t, strings.HasPrefix(cfg.StaticManifestsDir, "/etc/kubernetes/admission/"))
		}
		// On a machine without the directories:
		ac, err = DecodeAdmissionConfiguration(data, "/etc/kubernetes", ConfigOptions{Files: FilesOf(fstest.MapFS{})})
		require.NoError(t, err)
		_, err = ac.PluginConfiguration(ValidatingAdmissionPolicy)
		assert.ErrorContains(t, err, `staticManifestsDir: Invalid value: "/etc/kubernetes/admission/`)
		assert.ErrorContains(t, err, `unable to read: `)
	}
}
