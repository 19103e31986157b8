package conformance

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/admission"
	policyconfig "k8s.io/apiserver/pkg/admission/plugin/policy/config"
	webhookconfig "k8s.io/apiserver/pkg/admission/plugin/webhook/config"
	apiserverapi "k8s.io/apiserver/pkg/apis/apiserver"
	apiserverapiv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	apiserverapiv1alpha1 "k8s.io/apiserver/pkg/apis/apiserver/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/conformance/internal/kubeoracle"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// kubePluginConfig reads a plugin's configuration with kube-apiserver's
// plugin code (nil data: no configuration) and reduces it to what
// gatehouse returns.
func kubePluginConfig(plugin admissionmanifest.Plugin, r io.Reader) (*admissionmanifest.PluginConfiguration, error) {
	switch plugin {
	case admissionmanifest.ValidatingAdmissionWebhook, admissionmanifest.MutatingAdmissionWebhook:
		c, err := webhookconfig.LoadConfig(r)
		if err != nil {
			return nil, err
		}
		return &admissionmanifest.PluginConfiguration{Plugin: plugin, KubeConfigFile: c.KubeConfigFile, StaticManifestsDir: c.StaticManifestsDir}, nil
	case admissionmanifest.ValidatingAdmissionPolicy:
		c, err := policyconfig.LoadValidatingConfig(r)
		if err != nil {
			return nil, err
		}
		return &admissionmanifest.PluginConfiguration{Plugin: plugin, StaticManifestsDir: c.StaticManifestsDir}, nil
	default:
		c, err := policyconfig.LoadMutatingConfig(r)
		if err != nil {
			return nil, err
		}
		return &admissionmanifest.PluginConfiguration{Plugin: plugin, StaticManifestsDir: c.StaticManifestsDir}, nil
	}
}

// pluginConfigCorpus returns plugin configuration documents: every kind of
// the plugins, other kinds and versions, every kind of kubeConfigFile and
// staticManifestsDir (absolute, relative, missing, a file, a directory),
// strict-decoding faults, YAML and JSON.
func pluginConfigCorpus(t testing.TB, root string) [][]byte {
	dir := filepath.Join(root, "manifests")
	file := filepath.Join(root, "file.yaml")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	var docs [][]byte
	kinds := []struct{ apiVersion, kind string }{
		{"apiserver.config.k8s.io/v1", "WebhookAdmissionConfiguration"},
		{"apiserver.config.k8s.io/v1", "ValidatingAdmissionPolicyConfiguration"},
		{"apiserver.config.k8s.io/v1", "MutatingAdmissionPolicyConfiguration"},
		{"apiserver.config.k8s.io/v1", "AdmissionConfiguration"},
		{"apiserver.config.k8s.io/v1alpha1", "WebhookAdmissionConfiguration"},
		{"apiserver.config.k8s.io/v1alpha1", "WebhookAdmission"},
		{"apiserver.config.k8s.io/v1", "WebhookAdmission"},
		{"apiserver.config.k8s.io/v1", "webhookAdmissionConfiguration"},
		{"v1", "WebhookAdmissionConfiguration"},
		{"", "WebhookAdmissionConfiguration"},
		{"apiserver.config.k8s.io/v1", ""},
	}
	kubeConfigs := []any{nil, "", "/etc/kubernetes/webhook.kubeconfig", "relative/kubeconfig"}
	dirs := []any{nil, "", dir, dir + "/", file, filepath.Join(root, "missing"), "relative/dir", "/"}
	for _, k := range kinds {
		for _, kc := range kubeConfigs {
			for _, d := range dirs {
				obj := map[string]any{}
				if k.apiVersion != "" {
					obj["apiVersion"] = k.apiVersion
				}
				if k.kind != "" {
					obj["kind"] = k.kind
				}
				if kc != nil {
					obj["kubeConfigFile"] = kc
				}
				if d != nil {
					obj["staticManifestsDir"] = d
				}
				y, err := yaml.Marshal(obj)
				require.NoError(t, err)
				j, err := yaml.YAMLToJSON(y)
				require.NoError(t, err)
				docs = append(docs, y, j)
			}
		}
		base := fmt.Sprintf("apiVersion: %s\nkind: %s\n", k.apiVersion, k.kind)
		docs = append(docs,
			[]byte(base+"staticManifestsDir: "+dir+"\nextra: 1\n"),
			[]byte(base+"staticManifestsDir: "+dir+"\nstaticManifestsDir: "+dir+"\n"),
			[]byte(base+"staticManifestsDir: 5\n"),
			[]byte(base+"StaticManifestsDir: "+dir+"\n"),
			[]byte(base+"staticManifestsDir: [\n"),
			[]byte(base+"kubeConfigFile: 1\n"),
			[]byte(base+"kubeConfigFile: /k\nstaticOrder: StaticLast\n"),
			[]byte(base+"kubeConfigFile: /k\nkubeConfigFile: /j\n"),
		)
	}
	return append(docs, []byte{}, []byte("\n"), []byte("# nothing\n"), []byte("{}"), []byte("[]"), []byte("null"))
}

// TestAdmissionPluginConfigurationMatchesKubeAPIServer decodes every
// corpus document as each plugin's configuration, with kube-apiserver's
// plugin code (k8s.io/apiserver's webhook config.LoadConfig and policy
// config.LoadValidatingConfig / LoadMutatingConfig, feature gate at its
// 1.37 default) and with DecodePluginConfiguration: the same error text
// or the same configuration.
func TestAdmissionPluginConfigurationMatchesKubeAPIServer(t *testing.T) {
	root := t.TempDir()
	docs := pluginConfigCorpus(t, root)
	var cases, ok int
	for _, data := range append(docs, nil) {
		for _, p := range admissionmanifest.Plugins() {
			var r io.Reader
			if data != nil {
				r = bytes.NewReader(data)
			}
			want, wantErr := kubePluginConfig(p, r)
			got, gotErr := admissionmanifest.DecodePluginConfiguration(p, data, admissionmanifest.ConfigOptions{})
			cases++
			if wantErr == nil {
				ok++
			}
			assert.Equal(t, errText(wantErr), errText(gotErr), "%s: %q", p, data)
			assert.Equal(t, want, got, "%s: %q", p, data)
		}
	}
	t.Logf("%d documents × 4 plugins = %d cases, %d accepted", len(docs)+1, cases, ok)
}

// TestAdmissionConfigurationMatchesKubeAPIServer reads AdmissionConfiguration
// files, with the plugins' configurations embedded or in files, with
// kube-apiserver's ReadAdmissionConfiguration (its configScheme) and
// ConfigFor, then the plugin's loader; and with ReadAdmissionConfiguration
// and PluginConfiguration.
func TestAdmissionConfigurationMatchesKubeAPIServer(t *testing.T) {
	configScheme := runtime.NewScheme()
	utilruntime.Must(apiserverapi.AddToScheme(configScheme))
	utilruntime.Must(apiserverapiv1alpha1.AddToScheme(configScheme))
	utilruntime.Must(apiserverapiv1.AddToScheme(configScheme))

	root := t.TempDir()
	docs := pluginConfigCorpus(t, root)
	names := []string{"ValidatingAdmissionWebhook", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy", "NamespaceLifecycle"}
	var files [][]byte
	for i, d := range docs {
		if len(d) == 0 || d[0] == '[' || string(d) == "null" {
			continue
		}
		pluginFile := filepath.Join(root, fmt.Sprintf("plugin-%d.yaml", i))
		require.NoError(t, os.WriteFile(pluginFile, d, 0o644))
		var embedded any
		if err := yaml.Unmarshal(d, &embedded); err != nil {
			embedded = nil
		}
		name := names[i%len(names)]
		apiVersion := []string{"apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1alpha1", "apiserver.k8s.io/v1alpha1"}[i%3]
		header := "apiVersion: " + apiVersion + "\nkind: AdmissionConfiguration\n"
		if m, ok := embedded.(map[string]any); ok {
			ac, err := yaml.Marshal(map[string]any{"apiVersion": apiVersion, "kind": "AdmissionConfiguration", "plugins": []any{
				map[string]any{"name": name, "configuration": m},
				map[string]any{"name": name, "path": "ignored-second-entry.yaml"},
			}})
			require.NoError(t, err)
			files = append(files, ac)
		}
		rel, err := filepath.Rel(root, pluginFile)
		require.NoError(t, err)
		files = append(files,
			[]byte(header+"plugins:\n- name: "+name+"\n  path: "+rel+"\n"),
			[]byte(header+"plugins:\n- name: "+name+"\n  path: "+pluginFile+"\n- name: Other\n"),
		)
	}
	files = append(files,
		[]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration: null\n"),
		[]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  extra: 1\n"),
		[]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: {}\n"),
		[]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n"),
		[]byte("apiVersion: apiserver.config.k8s.io/v2\nkind: AdmissionConfiguration\n"),
		[]byte("imagePolicy:\n  kubeConfigFile: /x\n"),
		[]byte("podNodeSelectorPluginConfig: {}\n"),
		[]byte("something: else\n"),
		[]byte(""),
	)
	var cases int
	for i, data := range files {
		path := filepath.Join(root, fmt.Sprintf("admission-%d.yaml", i))
		require.NoError(t, os.WriteFile(path, data, 0o644))
		provider, kubeErr := admission.ReadAdmissionConfiguration(names, path, configScheme)
		ours, ourErr := admissionmanifest.ReadAdmissionConfiguration(path, admissionmanifest.ConfigOptions{})
		cases++
		if !assert.Equal(t, errText(kubeErr), errText(ourErr), "%s", data) || kubeErr != nil {
			continue
		}
		for _, p := range admissionmanifest.Plugins() {
			r, err := provider.ConfigFor(string(p))
			require.NoError(t, err)
			want, wantErr := kubePluginConfig(p, r)
			got, gotErr := ours.PluginConfiguration(p)
			cases++
			assert.Equal(t, errText(wantErr), errText(gotErr), "%s: %s", p, data)
			assert.Equal(t, want, got, "%s: %s", p, data)
		}
	}
	t.Logf("%d files, %d cases", len(files), cases)
}

// TestAdmissionPluginConfigurationMatchesKubeAPIServerPerVersion reads the
// corpus as each plugin's configuration with each version's own plugin
// code (the oracle program: 1.35's webhook config.LoadConfig, not strict,
// v1alpha1 served, an empty kubeConfigFile refused, and its policy plugins
// that ignore their configuration; 1.36's strict loaders; 1.38's
// staticOrder, from its beta) and with DecodePluginConfiguration for that
// version.
func TestAdmissionPluginConfigurationMatchesKubeAPIServerPerVersion(t *testing.T) {
	oracles := startOraclesOf(t, kubeoracle.AllVersions())
	root := t.TempDir()
	docs := pluginConfigCorpus(t, root)
	for _, o := range oracles {
		t.Run(o.Version(), func(t *testing.T) {
			target := targetOf(t, o)
			var cases, accepted, differ int
			for _, data := range append(docs, nil) {
				for _, p := range admissionmanifest.Plugins() {
					a, err := o.Eval(protocol.Query{Op: protocol.OpPluginConfig, Plugin: string(p), Data: data, NoData: data == nil})
					require.NoError(t, err)
					require.Empty(t, a.Error)
					var want *admissionmanifest.PluginConfiguration
					if a.PluginConfig != nil {
						want = &admissionmanifest.PluginConfiguration{Plugin: p, KubeConfigFile: a.PluginConfig.KubeConfigFile,
							StaticManifestsDir: a.PluginConfig.StaticManifestsDir, StaticOrder: admissionmanifest.StaticOrder(a.PluginConfig.StaticOrder)}
						accepted++
					}
					got, gotErr := admissionmanifest.DecodePluginConfiguration(p, data, admissionmanifest.ConfigOptions{Kube: target})
					cases++
					ok := assert.Equal(t, a.ConfigError, errText(gotErr), "%s: %q", p, data)
					ok = assert.Equal(t, want, got, "%s: %q", p, data) && ok
					if !ok {
						if differ++; differ >= 10 {
							t.Fatalf("stopping after %d differences", differ)
						}
					}
				}
			}
			t.Logf("Kubernetes %s: %d cases, %d accepted", o.Version(), cases, accepted)
		})
	}
}
