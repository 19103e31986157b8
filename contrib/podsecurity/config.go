package podsecurity

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/pod-security-admission/api"
	"sigs.k8s.io/yaml"
)

// ConfigGroup is the API group of PodSecurityConfiguration; v1 is its
// version of record, v1beta1 and v1alpha1 are still read (same fields).
const ConfigGroup = "pod-security.admission.config.k8s.io"

// Configuration is a PodSecurityConfiguration
// (pod-security.admission.config.k8s.io/v1): the policy of namespaces
// without labels, and the exemptions. The JSON names are kube's.
type Configuration struct {
	metav1.TypeMeta `json:",inline"`
	Defaults        Defaults   `json:"defaults"`
	Exemptions      Exemptions `json:"exemptions"`
}

// Defaults are the levels and versions of namespaces that do not set them
// with labels. SetDefaults fills what is empty with privileged and latest.
type Defaults struct {
	Enforce        string `json:"enforce,omitempty"`
	EnforceVersion string `json:"enforce-version,omitempty"`
	Audit          string `json:"audit,omitempty"`
	AuditVersion   string `json:"audit-version,omitempty"`
	Warn           string `json:"warn,omitempty"`
	WarnVersion    string `json:"warn-version,omitempty"`
}

// Exemptions are the requests PodSecurity does not evaluate: by the
// requesting user's name, the pod's runtimeClassName, or the namespace.
type Exemptions struct {
	Usernames      []string `json:"usernames,omitempty"`
	Namespaces     []string `json:"namespaces,omitempty"`
	RuntimeClasses []string `json:"runtimeClasses,omitempty"`
}

// DeepCopyObject implements runtime.Object, for the decoder.
func (c *Configuration) DeepCopyObject() runtime.Object {
	out := *c
	out.Exemptions.Usernames = append([]string(nil), c.Exemptions.Usernames...)
	out.Exemptions.Namespaces = append([]string(nil), c.Exemptions.Namespaces...)
	out.Exemptions.RuntimeClasses = append([]string(nil), c.Exemptions.RuntimeClasses...)
	return &out
}

// DefaultConfiguration is the configuration of a kube-apiserver that gives
// PodSecurity none: everything privileged at latest, no exemptions.
func DefaultConfiguration() *Configuration {
	c := &Configuration{TypeMeta: metav1.TypeMeta{APIVersion: ConfigGroup + "/v1", Kind: "PodSecurityConfiguration"}}
	SetDefaults(c)
	return c
}

// SetDefaults sets the empty defaults as kube does: levels privileged,
// versions latest.
func SetDefaults(c *Configuration) {
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&c.Defaults.Enforce, string(api.LevelPrivileged)}, {&c.Defaults.Audit, string(api.LevelPrivileged)}, {&c.Defaults.Warn, string(api.LevelPrivileged)},
		{&c.Defaults.EnforceVersion, api.VersionLatest}, {&c.Defaults.AuditVersion, api.VersionLatest}, {&c.Defaults.WarnVersion, api.VersionLatest},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
}

// configDecoder decodes the three versions strictly, as kube's loader does.
var configDecoder = func() runtime.Decoder {
	s := runtime.NewScheme()
	for _, v := range []string{"v1", "v1beta1", "v1alpha1"} {
		s.AddKnownTypeWithName(schema.GroupVersionKind{Group: ConfigGroup, Version: v, Kind: "PodSecurityConfiguration"}, &Configuration{})
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}()

// Decode reads a PodSecurityConfiguration, YAML or JSON, strictly (an
// unknown or duplicate field is an error), and sets its defaults; empty
// data is the default configuration, as kube-apiserver reads a PodSecurity
// plugin without configuration. It does not validate: New does, with
// kube-apiserver's startup errors; Validate gives the field errors.
func Decode(data []byte) (*Configuration, error) {
	if len(data) == 0 {
		return DefaultConfiguration(), nil
	}
	obj, _, err := configDecoder.Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	c, ok := obj.(*Configuration)
	if !ok {
		return nil, fmt.Errorf("expected PodSecurityConfiguration, got %T", obj)
	}
	SetDefaults(c)
	return c, nil
}

// ReadFile is Decode on a file's content.
func ReadFile(file string) (*Configuration, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

// admissionConfiguration is what this package reads of an
// AdmissionConfiguration: the plugins' entries.
type admissionConfiguration struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Plugins    []struct {
		Name          string          `json:"name"`
		Path          string          `json:"path"`
		Configuration json.RawMessage `json:"configuration"`
	} `json:"plugins"`
}

// FromAdmissionConfiguration returns the PodSecurity plugin's
// configuration in an AdmissionConfiguration (apiserver.config.k8s.io/v1 or
// apiserver.k8s.io/v1alpha1, the --admission-control-config-file of
// kube-apiserver) whose directory is baseDir: its first PodSecurity entry's
// embedded configuration, or the file its path names (relative to
// baseDir), decoded with Decode; the default configuration when no entry
// names PodSecurity. The AdmissionConfiguration itself is read leniently
// (admissionmanifest reads it strictly for the other plugins).
func FromAdmissionConfiguration(data []byte, baseDir string) (*Configuration, error) {
	var ac admissionConfiguration
	if err := yaml.Unmarshal(data, &ac); err != nil {
		return nil, err
	}
	switch {
	case ac.Kind != "AdmissionConfiguration":
		return nil, fmt.Errorf("kind %q: want AdmissionConfiguration", ac.Kind)
	case ac.APIVersion != "apiserver.config.k8s.io/v1" && ac.APIVersion != "apiserver.k8s.io/v1alpha1":
		return nil, fmt.Errorf("apiVersion %q: want apiserver.config.k8s.io/v1", ac.APIVersion)
	}
	for _, p := range ac.Plugins {
		if p.Name != PluginName {
			continue
		}
		if len(p.Configuration) > 0 && string(p.Configuration) != "null" {
			return Decode(p.Configuration)
		}
		if p.Path == "" {
			return DefaultConfiguration(), nil
		}
		file := p.Path
		if !filepath.IsAbs(file) {
			file = filepath.Join(baseDir, file)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			//lint:ignore ST1005 kube-apiserver's words
			return nil, fmt.Errorf("Couldn't open admission plugin configuration %s: %v", file, err)
		}
		return Decode(data)
	}
	return DefaultConfiguration(), nil
}

// ReadAdmissionConfiguration is FromAdmissionConfiguration on a file.
func ReadAdmissionConfiguration(file string) (*Configuration, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("unable to read admission control configuration from %q [%v]", file, err)
	}
	return FromAdmissionConfiguration(data, filepath.Dir(file))
}

// Validate is kube's validation of a PodSecurityConfiguration: levels,
// versions, and the exemptions (namespace names, runtime class names,
// usernames: valid, not empty, not repeated).
func Validate(c *Configuration) field.ErrorList {
	var errs field.ErrorList
	level := func(p *field.Path, v string) {
		if _, err := api.ParseLevel(v); err != nil {
			errs = append(errs, field.Invalid(p, v, err.Error()))
		}
	}
	version := func(p *field.Path, v string) {
		if _, err := api.ParseVersion(v); err != nil {
			errs = append(errs, field.Invalid(p, v, err.Error()))
		}
	}
	d := field.NewPath("defaults")
	level(d.Child("enforce"), c.Defaults.Enforce)
	version(d.Child("enforce-version"), c.Defaults.EnforceVersion)
	level(d.Child("warn"), c.Defaults.Warn)
	version(d.Child("warn-version"), c.Defaults.WarnVersion)
	level(d.Child("audit"), c.Defaults.Audit)
	version(d.Child("audit-version"), c.Defaults.AuditVersion)

	e := field.NewPath("exemptions")
	names := func(p *field.Path, values []string, check func(string) []string) {
		seen := sets.New[string]()
		for i, v := range values {
			if msgs := check(v); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Index(i), v, strings.Join(msgs, ", ")))
				continue
			}
			if seen.Has(v) {
				errs = append(errs, field.Duplicate(p.Index(i), v))
				continue
			}
			seen.Insert(v)
		}
	}
	names(e.Child("namespaces"), c.Exemptions.Namespaces, func(s string) []string { return apivalidation.ValidateNamespaceName(s, false) })
	names(e.Child("runtimeClasses"), c.Exemptions.RuntimeClasses, func(s string) []string { return apivalidation.NameIsDNSSubdomain(s, false) })
	names(e.Child("usernames"), c.Exemptions.Usernames, func(s string) []string {
		if s == "" {
			return []string{"username must not be empty"}
		}
		return nil
	})
	return errs
}

// defaultPolicy is the policy of the configuration's defaults, with the
// error kube-apiserver's PodSecurity plugin fails its start with: each
// default that is empty or does not parse, as "enforce: must be one of
// ...".
func defaultPolicy(d Defaults) (api.Policy, error) {
	var p api.Policy
	var errs []string
	parse := func(name, v string, set func(string) error) {
		if v == "" {
			errs = append(errs, name+": required")
		} else if err := set(v); err != nil {
			errs = append(errs, name+": "+err.Error())
		}
	}
	level := func(l *api.Level) func(string) error {
		return func(s string) (err error) { *l, err = api.ParseLevel(s); return err }
	}
	version := func(v *api.Version) func(string) error {
		return func(s string) (err error) { *v, err = api.ParseVersion(s); return err }
	}
	parse("enforce", d.Enforce, level(&p.Enforce.Level))
	parse("enforce-version", d.EnforceVersion, version(&p.Enforce.Version))
	parse("audit", d.Audit, level(&p.Audit.Level))
	parse("audit-version", d.AuditVersion, version(&p.Audit.Version))
	parse("warn", d.Warn, level(&p.Warn.Level))
	parse("warn-version", d.WarnVersion, version(&p.Warn.Version))
	switch len(errs) {
	case 0:
		return p, nil
	case 1:
		return p, errors.New(errs[0])
	default:
		// An aggregate's words.
		return p, errors.New("[" + strings.Join(errs, ", ") + "]")
	}
}
