package admissionmanifest

import (
	"fmt"
	"path"
	"path/filepath"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// PluginConfiguration is the configuration of one of the four plugins, read
// from the plugin's entry of an AdmissionConfiguration:
// WebhookAdmissionConfiguration for the webhook plugins,
// ValidatingAdmissionPolicyConfiguration and
// MutatingAdmissionPolicyConfiguration for the policy plugins
// (apiserver.config.k8s.io/v1).
type PluginConfiguration struct {
	Plugin Plugin
	// KubeConfigFile is the kubeconfig file of the webhook plugins' calls
	// (never set for the policy plugins).
	KubeConfigFile string
	// StaticManifestsDir is the plugin's manifests directory; "" when the
	// plugin reads none.
	StaticManifestsDir string
}

// ConfigOptions configure the reading of configurations.
type ConfigOptions struct {
	// Files is the file system staticManifestsDir is checked on and plugin
	// configuration paths are read from; the zero value is the operating
	// system's.
	Files Files
}

// The apiserver.config.k8s.io/v1 kinds of the plugins' configurations.
const (
	configGroup                     = "apiserver.config.k8s.io"
	kindWebhookAdmission            = "WebhookAdmissionConfiguration"
	kindValidatingPolicyAdmission   = "ValidatingAdmissionPolicyConfiguration"
	kindMutatingPolicyAdmission     = "MutatingAdmissionPolicyConfiguration"
	kindAdmissionConfiguration      = "AdmissionConfiguration"
	legacyAdmissionConfigGroup      = "apiserver.k8s.io"
	validatingPolicyAdmissionGoType = "*policyconfig.ValidatingAdmissionPolicyConfiguration"
	mutatingPolicyAdmissionGoType   = "*policyconfig.MutatingAdmissionPolicyConfiguration"
)

// DecodePluginConfiguration reads a plugin's configuration as
// kube-apiserver 1.37 does (with ManifestBasedAdmissionControlConfig on,
// its default): strictly (unknown and duplicate fields are errors), then
// checks it, with kube-apiserver's errors:
//   - another kind: "unexpected type: *policyconfig.MutatingAdmissionPolicyConfiguration"
//     (a policy plugin given the other policy kind), or the decoder's "no
//     kind ... is registered" error;
//   - kubeConfigFile (webhook plugins), if set, must be absolute:
//     "kubeConfigFile: Invalid value: \"k\": must be an absolute file path";
//   - staticManifestsDir, if set, must be absolute ("must be an absolute
//     file path"), stat ("unable to read: <error>") and be a directory
//     ("must be a directory"), each a *field.Error on staticManifestsDir.
//
// Nil data means that the plugin has no configuration: an empty one, as in
// kube-apiserver. Empty but non-nil data is a decoding error.
func DecodePluginConfiguration(plugin Plugin, data []byte, opts ConfigOptions) (*PluginConfiguration, error) {
	if !plugin.known() {
		return nil, fmt.Errorf("unknown admission plugin %q", plugin)
	}
	cfg := &PluginConfiguration{Plugin: plugin}
	if data == nil {
		return cfg, nil
	}
	decoder := policyConfigDecoder
	if plugin.webhooks() {
		decoder = webhookConfigDecoder
	}
	obj, _, err := decoder().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	switch c := obj.(type) {
	case *webhookAdmissionV1:
		if c.KubeConfigFile != "" && !path.IsAbs(c.KubeConfigFile) {
			return nil, field.Invalid(field.NewPath("kubeConfigFile"), c.KubeConfigFile, "must be an absolute file path")
		}
		cfg.KubeConfigFile, cfg.StaticManifestsDir = c.KubeConfigFile, c.StaticManifestsDir
	case *policyAdmissionV1:
		if (plugin == ValidatingAdmissionPolicy) != (c.Kind == kindValidatingPolicyAdmission) {
			return nil, fmt.Errorf("unexpected type: %s", policyConfigGoType(c.Kind))
		}
		cfg.StaticManifestsDir = c.StaticManifestsDir
	}
	if err := ValidateStaticManifestsDir(cfg.StaticManifestsDir, opts.Files); err != nil {
		return nil, err
	}
	return cfg, nil
}

func policyConfigGoType(kind string) string {
	if kind == kindValidatingPolicyAdmission {
		return validatingPolicyAdmissionGoType
	}
	return mutatingPolicyAdmissionGoType
}

// ValidateStaticManifestsDir is kube-apiserver's check of a
// staticManifestsDir, with the feature gate on: "" is fine; otherwise it
// must be absolute (starting with "/"), stat, and be a directory. The error
// is a *field.Error on the path staticManifestsDir.
func ValidateStaticManifestsDir(dir string, files Files) error {
	if dir == "" {
		return nil
	}
	p := field.NewPath("staticManifestsDir")
	if !path.IsAbs(dir) {
		return field.Invalid(p, dir, "must be an absolute file path")
	}
	info, err := files.stat(dir)
	if err != nil {
		return field.Invalid(p, dir, fmt.Sprintf("unable to read: %v", err))
	}
	if !info.IsDir() {
		return field.Invalid(p, dir, "must be a directory")
	}
	return nil
}

// AdmissionConfiguration holds what an AdmissionConfiguration file
// configures for the four plugins.
type AdmissionConfiguration struct {
	// Plugins holds the configuration of each of the four plugins the file
	// names (its first entry for the plugin, as kube-apiserver reads it).
	Plugins map[Plugin]*PluginConfiguration
}

// ReadAdmissionConfiguration reads an AdmissionConfiguration file (the
// --admission-control-config-file of kube-apiserver;
// apiserver.config.k8s.io/v1 or v1alpha1, or apiserver.k8s.io/v1alpha1),
// strictly, and the configuration of each of the four plugins it names,
// embedded or from the plugin's path (relative to the file's directory),
// with DecodePluginConfiguration. The errors are kube-apiserver's, with one
// difference: a file of another kind of those groups is reported as not
// registered, where kube-apiserver names the Go type it decoded.
func ReadAdmissionConfiguration(file string, opts ConfigOptions) (*AdmissionConfiguration, error) {
	data, err := opts.Files.readFile(file)
	if err != nil {
		return nil, fmt.Errorf("unable to read admission control configuration from %q [%v]", file, err)
	}
	return DecodeAdmissionConfiguration(data, path.Dir(file), opts)
}

// DecodeAdmissionConfiguration is ReadAdmissionConfiguration on the content
// of a file; relative plugin paths are taken relative to baseDir.
func DecodeAdmissionConfiguration(data []byte, baseDir string, opts ConfigOptions) (*AdmissionConfiguration, error) {
	obj, _, err := admissionConfigDecoder().Decode(data, nil, nil)
	out := &AdmissionConfiguration{Plugins: map[Plugin]*PluginConfiguration{}}
	if err != nil {
		if !(runtime.IsMissingVersion(err) || runtime.IsMissingKind(err) || runtime.IsNotRegisteredError(err)) {
			return nil, err
		}
		// kube-apiserver tolerates the legacy ImagePolicyWebhook and
		// PodNodeSelector files, which configure none of the four plugins.
		var legacy map[string]any
		if yaml.Unmarshal(data, &legacy) != nil {
			return nil, err
		}
		_, imagePolicy := legacy["imagePolicy"]
		_, podNodeSelector := legacy["podNodeSelectorPluginConfig"]
		if !imagePolicy && !podNodeSelector {
			return nil, err
		}
		return out, nil
	}
	ac := obj.(*admissionConfigurationV1) // the only kind of its scheme
	for _, p := range ac.Plugins {
		plugin := Plugin(p.Name)
		if !plugin.known() || out.Plugins[plugin] != nil {
			continue
		}
		var cfgData []byte
		switch {
		case p.Configuration != nil:
			cfgData = p.Configuration.Raw
			if cfgData == nil {
				cfgData = []byte{}
			}
		case p.Path != "":
			file := p.Path
			if !filepath.IsAbs(file) {
				file = filepath.Join(baseDir, file)
			}
			if cfgData, err = opts.Files.readFile(file); err != nil {
				return nil, fmt.Errorf("couldn't open admission plugin configuration %s: %w", file, err)
			}
		}
		cfg, err := DecodePluginConfiguration(plugin, cfgData, opts)
		if err != nil {
			return nil, err
		}
		out.Plugins[plugin] = cfg
	}
	return out, nil
}

// The decoding types, with the JSON names of kube-apiserver's.

type webhookAdmissionV1 struct {
	metav1.TypeMeta    `json:",inline"`
	KubeConfigFile     string `json:"kubeConfigFile"`
	StaticManifestsDir string `json:"staticManifestsDir,omitempty"`
}

func (w *webhookAdmissionV1) DeepCopyObject() runtime.Object { c := *w; return &c }

type policyAdmissionV1 struct {
	metav1.TypeMeta    `json:",inline"`
	StaticManifestsDir string `json:"staticManifestsDir,omitempty"`
}

func (p *policyAdmissionV1) DeepCopyObject() runtime.Object { c := *p; return &c }

type admissionConfigurationV1 struct {
	metav1.TypeMeta `json:",inline"`
	Plugins         []admissionPluginConfigurationV1 `json:"plugins"`
}

type admissionPluginConfigurationV1 struct {
	Name          string           `json:"name"`
	Path          string           `json:"path"`
	Configuration *runtime.Unknown `json:"configuration"`
}

func (a *admissionConfigurationV1) DeepCopyObject() runtime.Object {
	c := *a
	c.Plugins = append([]admissionPluginConfigurationV1(nil), a.Plugins...)
	return &c
}

// The decoders of kube-apiserver's three schemes: the webhook plugins'
// (WebhookAdmissionConfiguration), the policy plugins' (both policy kinds),
// and the AdmissionConfiguration's. Each is built once and never changed.
var (
	webhookConfigDecoder = sync.OnceValue(func() runtime.Decoder {
		return strictDecoder(map[string]runtime.Object{kindWebhookAdmission: &webhookAdmissionV1{}}, configGroup+"/v1")
	})
	policyConfigDecoder = sync.OnceValue(func() runtime.Decoder {
		return strictDecoder(map[string]runtime.Object{
			kindValidatingPolicyAdmission: &policyAdmissionV1{},
			kindMutatingPolicyAdmission:   &policyAdmissionV1{},
		}, configGroup+"/v1")
	})
	admissionConfigDecoder = sync.OnceValue(func() runtime.Decoder {
		return strictDecoder(map[string]runtime.Object{kindAdmissionConfiguration: &admissionConfigurationV1{}},
			configGroup+"/v1", configGroup+"/v1alpha1", legacyAdmissionConfigGroup+"/v1alpha1")
	})
)

func strictDecoder(kinds map[string]runtime.Object, groupVersions ...string) runtime.Decoder {
	s := runtime.NewScheme()
	for _, gvText := range groupVersions {
		gv, _ := schema.ParseGroupVersion(gvText)
		for kind, obj := range kinds {
			s.AddKnownTypeWithName(gv.WithKind(kind), obj)
		}
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}
