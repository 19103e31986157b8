package admissionmanifest

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	wirev1 "github.com/gatehouse-dev/gatehouse/admissionmanifest/internal/wire/v1"
	wirev1alpha1 "github.com/gatehouse-dev/gatehouse/admissionmanifest/internal/wire/v1alpha1"
	wirev1before136 "github.com/gatehouse-dev/gatehouse/admissionmanifest/internal/wire/v1before136"
	wirev1before138 "github.com/gatehouse-dev/gatehouse/admissionmanifest/internal/wire/v1before138"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
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
	// StaticOrder is the webhook plugins' staticOrder (1.38): where
	// MutatingAdmissionWebhook runs its static webhooks relative to the API
	// ones; "" (unset, and always before 1.38) means StaticFirst.
	// ValidatingAdmissionWebhook takes only StaticFirst.
	StaticOrder StaticOrder
}

// StaticOrder is where the MutatingAdmissionWebhook plugin runs the webhooks
// of its static manifests relative to those registered through the API
// (WebhookAdmissionConfiguration's staticOrder, kube-apiserver 1.38). The
// order of the webhooks of one source, by configuration name, is kept.
type StaticOrder string

// The staticOrder values.
const (
	// StaticFirst runs the static webhooks before the API ones (the
	// default, and the only order before 1.38).
	StaticFirst StaticOrder = "StaticFirst"
	// StaticLast runs them after the API ones.
	StaticLast StaticOrder = "StaticLast"
	// ByName interleaves the two sources' configurations, stably sorted
	// together by configuration name (static first among equal names).
	ByName StaticOrder = "ByName"
)

// ConfigOptions configure the reading of configurations.
type ConfigOptions struct {
	// Files is the file system staticManifestsDir is checked on and plugin
	// configuration paths are read from; the zero value is the operating
	// system's.
	Files Files
	// Kube is the kube-apiserver that reads the configuration (the zero
	// Target is the newest release): 1.35 ignores a staticManifestsDir (and
	// decodes without strictness, see DecodePluginConfiguration), 1.36
	// refuses one unless its ManifestBasedAdmissionControlConfig gate is on;
	// staticOrder is 1.38's (1.36 and 1.37 refuse it as an unknown field,
	// 1.35 ignores it).
	Kube kube.Target
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
//     ("must be a directory"), each a *field.Error on staticManifestsDir;
//   - staticOrder (webhook plugins, 1.38; an unknown field in 1.36 and
//     1.37, ignored in 1.35), if set, needs the
//     ManifestBasedAdmissionControlConfig gate ("Forbidden"), must be
//     ByName, StaticFirst or StaticLast ("Unsupported value") and needs a
//     staticManifestsDir ("may only be set when staticManifestsDir is
//     set"); ValidatingAdmissionWebhook takes only StaticFirst ("only
//     \"StaticFirst\" is supported by ValidatingAdmissionWebhook"), each a
//     *field.Error on staticOrder.
//
// Nil data means that the plugin has no configuration: an empty one, as in
// kube-apiserver. Empty but non-nil data is a decoding error.
//
// Kubernetes 1.35 (opts.Kube) reads them as its plugins did: the policy
// plugins ignore their configuration (whatever it holds); the webhook
// plugins decode theirs without strictness (unknown fields, among them
// staticManifestsDir and staticOrder, are dropped), in
// apiserver.config.k8s.io/v1 or v1alpha1 (kind WebhookAdmission), and
// refuse an empty kubeConfigFile ("must be an absolute file path").
// Checked against each version's own loaders by the conformance test
// TestAdmissionPluginConfigurationMatchesKubeAPIServerPerVersion.
func DecodePluginConfiguration(plugin Plugin, data []byte, opts ConfigOptions) (*PluginConfiguration, error) {
	cfg, err := decodePluginConfiguration(plugin, data, opts)
	return cfg, schemeNamed(opts.Kube, err)
}

// schemeNamed is err as kube-apiserver t words it: its "no kind is
// registered" errors name its scheme by the line of k8s.io/apimachinery's
// runtime.NewScheme it links (kubeversions.SchemeNamedLine110).
func schemeNamed(t kube.Target, err error) error {
	if err == nil || !runtime.IsNotRegisteredError(err) || !kubeversions.Has(t, kubeversions.SchemeNamedLine110) {
		return err
	}
	return errors.New(strings.Replace(err.Error(), `in scheme "pkg/runtime/scheme.go:111"`, `in scheme "`+kubeversions.SchemeName(t)+`"`, 1))
}

func decodePluginConfiguration(plugin Plugin, data []byte, opts ConfigOptions) (*PluginConfiguration, error) {
	if !plugin.known() {
		return nil, fmt.Errorf("unknown admission plugin %q", plugin)
	}
	cfg := &PluginConfiguration{Plugin: plugin}
	if data == nil {
		return cfg, nil
	}
	if !kubeversions.Has(opts.Kube, kubeversions.PluginConfigurationsStrict) {
		return decodePluginConfigurationBefore136(plugin, data)
	}
	decoder := policyConfigDecoder
	switch {
	case !plugin.webhooks():
	case kubeversions.Has(opts.Kube, kubeversions.WebhookStaticOrder):
		decoder = webhookConfigDecoder
	default:
		decoder = webhookConfigDecoderBefore138
	}
	obj, _, err := decoder().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	switch c := obj.(type) {
	case *wirev1.WebhookAdmission:
		if c.KubeConfigFile != "" && !path.IsAbs(c.KubeConfigFile) {
			return nil, field.Invalid(field.NewPath("kubeConfigFile"), c.KubeConfigFile, "must be an absolute file path")
		}
		cfg.KubeConfigFile, cfg.StaticManifestsDir = c.KubeConfigFile, c.StaticManifestsDir
		if kubeversions.Has(opts.Kube, kubeversions.WebhookStaticOrder) {
			cfg.StaticOrder = StaticOrder(c.StaticOrder)
		}
	case *wirev1before138.WebhookAdmission:
		if c.KubeConfigFile != "" && !path.IsAbs(c.KubeConfigFile) {
			return nil, field.Invalid(field.NewPath("kubeConfigFile"), c.KubeConfigFile, "must be an absolute file path")
		}
		cfg.KubeConfigFile, cfg.StaticManifestsDir = c.KubeConfigFile, c.StaticManifestsDir
	case *wirev1.ValidatingAdmissionPolicyConfiguration:
		if plugin != ValidatingAdmissionPolicy {
			return nil, fmt.Errorf("unexpected type: %s", validatingPolicyAdmissionGoType)
		}
		cfg.StaticManifestsDir = c.StaticManifestsDir
	case *wirev1.MutatingAdmissionPolicyConfiguration:
		if plugin != MutatingAdmissionPolicy {
			return nil, fmt.Errorf("unexpected type: %s", mutatingPolicyAdmissionGoType)
		}
		cfg.StaticManifestsDir = c.StaticManifestsDir
	}
	if err := ValidateStaticManifestsDirFor(opts.Kube, cfg.StaticManifestsDir, opts.Files); err != nil {
		return nil, err
	}
	if err := validateStaticOrder(opts.Kube, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// decodePluginConfigurationBefore136 reads a plugin's configuration as
// kube-apiserver 1.35 does: the policy plugins ignore it; the webhook
// plugins decode it without strictness (apiserver.config.k8s.io/v1
// WebhookAdmissionConfiguration or v1alpha1 WebhookAdmission; other fields
// dropped) and require an absolute kubeConfigFile, even an empty one.
func decodePluginConfigurationBefore136(plugin Plugin, data []byte) (*PluginConfiguration, error) {
	cfg := &PluginConfiguration{Plugin: plugin}
	if !plugin.webhooks() {
		return cfg, nil
	}
	obj, _, err := webhookConfigDecoderBefore136().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	c, ok := obj.(*wirev1before136.WebhookAdmission)
	if !ok {
		return nil, fmt.Errorf("unexpected type: %T", obj)
	}
	if !path.IsAbs(c.KubeConfigFile) {
		return nil, field.Invalid(field.NewPath("kubeConfigFile"), c.KubeConfigFile, "must be an absolute file path")
	}
	cfg.KubeConfigFile = c.KubeConfigFile
	return cfg, nil
}

// validateStaticOrder is kube-apiserver 1.38's check of a webhook plugin's
// staticOrder, then ValidatingAdmissionWebhook's own ("" is StaticFirst).
func validateStaticOrder(t kube.Target, cfg *PluginConfiguration) error {
	p := field.NewPath("staticOrder")
	if order := cfg.StaticOrder; order != "" {
		if !kubeversions.Has(t, kubeversions.StaticManifests) {
			return field.Forbidden(p, "staticOrder requires the ManifestBasedAdmissionControlConfig feature gate to be enabled")
		}
		if !order.Valid() {
			return field.NotSupported(p, string(order), []StaticOrder{ByName, StaticFirst, StaticLast})
		}
		if cfg.StaticManifestsDir == "" {
			return field.Invalid(p, string(order), "may only be set when staticManifestsDir is set")
		}
	}
	if order := cfg.StaticOrder.OrDefault(); cfg.Plugin == ValidatingAdmissionWebhook && order != StaticFirst {
		return field.Invalid(p, string(order), fmt.Sprintf("only %q is supported by %s", StaticFirst, ValidatingAdmissionWebhook))
	}
	return nil
}

// Valid tells whether o is one of the three orders.
func (o StaticOrder) Valid() bool {
	return o == StaticFirst || o == StaticLast || o == ByName
}

// OrDefault is o, or StaticFirst for "".
func (o StaticOrder) OrDefault() StaticOrder {
	if o == "" {
		return StaticFirst
	}
	return o
}

// ValidateStaticManifestsDirFor is ValidateStaticManifestsDir as
// kube-apiserver t checks it: where its ManifestBasedAdmissionControlConfig
// gate is off (1.36's default), a staticManifestsDir is forbidden.
func ValidateStaticManifestsDirFor(t kube.Target, dir string, files Files) error {
	if dir != "" && !kubeversions.Has(t, kubeversions.StaticManifests) {
		return field.Forbidden(field.NewPath("staticManifestsDir"), "staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled")
	}
	return ValidateStaticManifestsDir(dir, files)
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

// AdmissionConfiguration is an AdmissionConfiguration file (the
// --admission-control-config-file of kube-apiserver), read for the four
// plugins: PluginConfiguration gives each one's configuration.
type AdmissionConfiguration struct {
	baseDir string
	opts    ConfigOptions
	// plugins holds each plugin's first entry.
	plugins map[Plugin]wirev1.AdmissionPluginConfiguration
}

// ReadAdmissionConfiguration reads an AdmissionConfiguration file
// (apiserver.config.k8s.io/v1 or apiserver.k8s.io/v1alpha1)
// strictly, as kube-apiserver does, with its errors. One difference: a file
// of another kind of those groups is reported as not registered, where
// kube-apiserver names the Go type it decoded it into.
func ReadAdmissionConfiguration(file string, opts ConfigOptions) (*AdmissionConfiguration, error) {
	data, err := opts.Files.readFile(file)
	if err != nil {
		return nil, fmt.Errorf("unable to read admission control configuration from %q [%v]", file, err)
	}
	return DecodeAdmissionConfiguration(data, path.Dir(file), opts)
}

// DecodeAdmissionConfiguration is ReadAdmissionConfiguration on the content
// of a file in baseDir, against which relative plugin paths are resolved.
func DecodeAdmissionConfiguration(data []byte, baseDir string, opts ConfigOptions) (*AdmissionConfiguration, error) {
	out := &AdmissionConfiguration{baseDir: baseDir, opts: opts, plugins: map[Plugin]wirev1.AdmissionPluginConfiguration{}}
	obj, _, err := admissionConfigDecoder().Decode(data, nil, nil)
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
	var entries []wirev1.AdmissionPluginConfiguration
	switch c := obj.(type) {
	case *wirev1.AdmissionConfiguration:
		entries = c.Plugins
	case *wirev1alpha1.AdmissionConfiguration:
		for _, p := range c.Plugins {
			entries = append(entries, wirev1.AdmissionPluginConfiguration(p))
		}
	}
	for _, p := range entries {
		plugin := Plugin(p.Name)
		if _, seen := out.plugins[plugin]; plugin.known() && !seen {
			out.plugins[plugin] = p
		}
	}
	return out, nil
}

// PluginConfiguration returns a plugin's configuration, embedded or read
// from the entry's path (relative to the file's directory), decoded and
// checked with DecodePluginConfiguration; a plugin the file does not name,
// or names without configuration or path, has an empty configuration.
// kube-apiserver exits when it cannot read a path ("Couldn't open admission
// plugin configuration"); this is an error with those words.
func (a *AdmissionConfiguration) PluginConfiguration(plugin Plugin) (*PluginConfiguration, error) {
	p, ok := a.plugins[plugin]
	var data []byte
	switch {
	case !ok:
	case p.Configuration != nil:
		data = p.Configuration.Raw
		if data == nil {
			data = []byte{}
		}
	case p.Path != "":
		file := p.Path
		if !filepath.IsAbs(file) {
			file = filepath.Join(a.baseDir, file)
		}
		var err error
		if data, err = a.opts.Files.readFile(file); err != nil {
			//lint:ignore ST1005 kube-apiserver's words
			return nil, fmt.Errorf("Couldn't open admission plugin configuration %s: %v", file, err)
		}
	}
	return DecodePluginConfiguration(plugin, data, a.opts)
}

// The decoders of kube-apiserver's three schemes: the webhook plugins'
// (WebhookAdmissionConfiguration), the policy plugins' (both policy kinds),
// and the AdmissionConfiguration's. Each is built once and never changed.
var (
	webhookConfigDecoder = sync.OnceValue(func() runtime.Decoder {
		return strictDecoder(map[schema.GroupVersionKind]runtime.Object{
			configV1.WithKind(kindWebhookAdmission): &wirev1.WebhookAdmission{},
		})
	})
	webhookConfigDecoderBefore138 = sync.OnceValue(func() runtime.Decoder {
		return strictDecoder(map[schema.GroupVersionKind]runtime.Object{
			configV1.WithKind(kindWebhookAdmission): &wirev1before138.WebhookAdmission{},
		})
	})
	webhookConfigDecoderBefore136 = sync.OnceValue(func() runtime.Decoder {
		s := runtime.NewScheme()
		s.AddKnownTypeWithName(configV1.WithKind(kindWebhookAdmission), &wirev1before136.WebhookAdmission{})
		s.AddKnownTypeWithName(schema.GroupVersionKind{Group: configGroup, Version: "v1alpha1", Kind: "WebhookAdmission"}, &wirev1before136.WebhookAdmission{})
		return serializer.NewCodecFactory(s).UniversalDeserializer()
	})
	policyConfigDecoder = sync.OnceValue(func() runtime.Decoder {
		return strictDecoder(map[schema.GroupVersionKind]runtime.Object{
			configV1.WithKind(kindValidatingPolicyAdmission): &wirev1.ValidatingAdmissionPolicyConfiguration{},
			configV1.WithKind(kindMutatingPolicyAdmission):   &wirev1.MutatingAdmissionPolicyConfiguration{},
		})
	})
	admissionConfigDecoder = sync.OnceValue(func() runtime.Decoder {
		return strictDecoder(map[schema.GroupVersionKind]runtime.Object{
			configV1.WithKind(kindAdmissionConfiguration):                                              &wirev1.AdmissionConfiguration{},
			{Group: legacyAdmissionConfigGroup, Version: "v1alpha1", Kind: kindAdmissionConfiguration}: &wirev1alpha1.AdmissionConfiguration{},
		})
	})
)

var configV1 = schema.GroupVersion{Group: configGroup, Version: "v1"}

func strictDecoder(kinds map[schema.GroupVersionKind]runtime.Object) runtime.Decoder {
	s := runtime.NewScheme()
	for gvk, obj := range kinds {
		s.AddKnownTypeWithName(gvk, obj)
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}
