// Package restvalidation validates admission objects as the kube-apiserver
// it is compiled against does when they are sent to its REST API: a v1
// object gets the scheme's defaults, is converted to the internal type, and
// is validated with what the registry strategy's Validate (create) or
// ValidateUpdate calls: pkg/apis/admissionregistration/validation and,
// behind the ManifestBasedAdmissionControlConfig gate (1.36 and later),
// ValidateStaticSuffix on metadata.name; 1.38's strategies then run the
// declarative validation. The warnings are the strategy's too:
// WarningsForStaticSuffix (create with the gate off, update), then, for
// webhook configurations from 1.37, the rules that name a resource excluded
// from admission webhooks.
//
// The strategies read the gates from the process-wide gate; this package
// reads their defaults there, takes overrides from the query, and calls what
// the strategies call, so that it sets no process-wide state. The
// strategies' authorization of a binding's paramRef is left out.
//
// The conformance/kubernetes tests call Validate in process (Kubernetes
// 1.37, untagged); the oracle program (..) answers OpRESTValidation with it
// for the other versions, built with -tags k8s135, k8s136 or k8s138: the
// files of an API that differs between versions carry those tags.
package restvalidation

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/version"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install" // the scheme's defaults and conversions
	admvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// The gates the strategies read.
const (
	GateManifestBasedAdmissionControlConfig     = "ManifestBasedAdmissionControlConfig"
	GateExcludeAdmissionWebhookVirtualResources = "ExcludeAdmissionWebhookVirtualResources"
)

// Gates are the strategies' gates, as the version's defaults or a query set
// them.
type Gates struct {
	ManifestBasedAdmissionControlConfig     bool
	ExcludeAdmissionWebhookVirtualResources bool
}

// DefaultGates returns the version's defaults of the gates.
func DefaultGates() Gates { return defaultGates() }

// WithOverrides returns g with the named gates set; a gate the version does
// not have is an error.
func (g Gates) WithOverrides(over map[string]bool) (Gates, error) {
	known := knownGates()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range over {
			if !yield(k) {
				return
			}
		}
	}) {
		if !slices.Contains(known, name) {
			return g, fmt.Errorf("Kubernetes %s has no gate %q its admission strategies read (known: %v)", version.DefaultKubeBinaryVersion, name, known)
		}
		switch name {
		case GateManifestBasedAdmissionControlConfig:
			g.ManifestBasedAdmissionControlConfig = over[name]
		case GateExcludeAdmissionWebhookVirtualResources:
			g.ExcludeAdmissionWebhookVirtualResources = over[name]
		}
	}
	return g, nil
}

// internal defaults a copy of obj and converts it to the internal type into
// out.
func internal(obj runtime.Object, out runtime.Object) error {
	in := obj.DeepCopyObject()
	legacyscheme.Scheme.Default(in)
	if err := legacyscheme.Scheme.Convert(in, out, nil); err != nil {
		return fmt.Errorf("converting %T: %v", obj, err)
	}
	return nil
}

// strategy is what a kind's strategy validates: the internal object, and
// the old one on an update (nil on create), converted from obj and old.
type strategy struct {
	in, old runtime.Object
	name    string
	errs    field.ErrorList
}

// validateKind converts obj and, when old is not nil, old, into new objects
// of the internal type of T, and validates them with create or update.
func validateKind[T any, PT interface {
	*T
	runtime.Object
	GetName() string
}](obj, old runtime.Object, create func(PT) field.ErrorList, update func(PT, PT) field.ErrorList) (strategy, error) {
	in := PT(new(T))
	if err := internal(obj, in); err != nil {
		return strategy{}, err
	}
	if old == nil {
		return strategy{in: in, name: in.GetName(), errs: create(in)}, nil
	}
	oldIn := PT(new(T))
	if err := internal(old, oldIn); err != nil {
		return strategy{}, err
	}
	return strategy{in: in, old: oldIn, name: in.GetName(), errs: update(in, oldIn)}, nil
}

// Validate validates obj (old nil: create; otherwise an update of old of the
// same type) as the version's REST API does with gates, and returns the
// errors and warnings. The error is for an object this package does not
// validate or that does not convert.
func Validate(obj, old runtime.Object, gates Gates) (field.ErrorList, []string, error) {
	if old != nil && fmt.Sprintf("%T", old) != fmt.Sprintf("%T", obj) {
		return nil, nil, fmt.Errorf("an update of a %T to a %T", old, obj)
	}
	gvks, _, err := legacyscheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return nil, nil, err
	}
	var st strategy
	var resource string
	switch gvks[0].Kind {
	case "ValidatingWebhookConfiguration":
		resource = "validatingwebhookconfigurations"
		st, err = validateKind(obj, old, admvalidation.ValidateValidatingWebhookConfiguration, admvalidation.ValidateValidatingWebhookConfigurationUpdate)
	case "MutatingWebhookConfiguration":
		resource = "mutatingwebhookconfigurations"
		st, err = validateKind(obj, old, admvalidation.ValidateMutatingWebhookConfiguration, admvalidation.ValidateMutatingWebhookConfigurationUpdate)
	case "ValidatingAdmissionPolicy":
		resource = "validatingadmissionpolicies"
		st, err = validateKind(obj, old, admvalidation.ValidateValidatingAdmissionPolicy, admvalidation.ValidateValidatingAdmissionPolicyUpdate)
	case "ValidatingAdmissionPolicyBinding":
		resource = "validatingadmissionpolicybindings"
		st, err = validateKind(obj, old, admvalidation.ValidateValidatingAdmissionPolicyBinding, admvalidation.ValidateValidatingAdmissionPolicyBindingUpdate)
	case "MutatingAdmissionPolicy":
		resource = "mutatingadmissionpolicies"
		st, err = validateKind(obj, old, admvalidation.ValidateMutatingAdmissionPolicy, admvalidation.ValidateMutatingAdmissionPolicyUpdate)
	case "MutatingAdmissionPolicyBinding":
		resource = "mutatingadmissionpolicybindings"
		st, err = validateKind(obj, old, admvalidation.ValidateMutatingAdmissionPolicyBinding, admvalidation.ValidateMutatingAdmissionPolicyBindingUpdate)
	default:
		return nil, nil, fmt.Errorf("no REST validation of %T", obj)
	}
	if err != nil {
		return nil, nil, err
	}
	errs, name := st.errs, st.name
	var excluded []string
	if gates.ExcludeAdmissionWebhookVirtualResources {
		switch in := st.in.(type) {
		case *admissionregistration.ValidatingWebhookConfiguration:
			excluded = validatingExcludedWarnings(in)
		case *admissionregistration.MutatingWebhookConfiguration:
			excluded = mutatingExcludedWarnings(in)
		}
	}
	var warnings []string
	switch {
	case old == nil && gates.ManifestBasedAdmissionControlConfig:
		errs = append(errs, staticSuffixErrors(name)...)
	default:
		warnings = staticSuffixWarnings(name)
	}
	// Then the registry (rest.BeforeCreate, BeforeUpdate).
	errs = declarative(st.in, st.old, errs, resource)
	return errs, append(warnings, excluded...), nil
}

// Decode decodes an admissionregistration.k8s.io/v1 object of one of the
// kinds Validate validates, into the version the REST API serves it at:
// v1, but 1.35's MutatingAdmissionPolicies, which it serves at v1beta1
// only (the same fields).
func Decode(data []byte) (runtime.Object, error) {
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return nil, err
	}
	if meta.APIVersion != admissionregistrationv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("apiVersion %q: only %s is validated", meta.APIVersion, admissionregistrationv1.SchemeGroupVersion)
	}
	gv := admissionregistrationv1.SchemeGroupVersion
	switch meta.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
	case "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		gv = mutatingPolicyVersion
	default:
		return nil, fmt.Errorf("kind %q: no REST validation", meta.Kind)
	}
	obj, err := legacyscheme.Scheme.New(gv.WithKind(meta.Kind))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// Answer answers OpInfo and OpRESTValidation.
func Answer(q protocol.Query) protocol.Answer {
	switch q.Op {
	case protocol.OpInfo:
		return protocol.Answer{
			Kubernetes: version.DefaultKubeBinaryVersion,
			Apiserver:  moduleVersion("k8s.io/kubernetes"),
			GoVersion:  goVersion(),
		}
	case protocol.OpRESTValidation:
		if q.REST == nil {
			return protocol.Answer{Error: "restvalidation: no rest query"}
		}
		return answerREST(*q.REST)
	}
	return protocol.Answer{Error: fmt.Sprintf("unknown op %q", q.Op)}
}

func answerREST(q protocol.RESTValidationQuery) protocol.Answer {
	gates, err := DefaultGates().WithOverrides(q.Gates)
	if err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	obj, err := Decode(q.Object)
	if err != nil {
		return protocol.Answer{Error: "object: " + err.Error()}
	}
	var old runtime.Object
	if len(q.OldObject) > 0 && string(q.OldObject) != "null" {
		if old, err = Decode(q.OldObject); err != nil {
			return protocol.Answer{Error: "oldObject: " + err.Error()}
		}
	}
	errs, warnings, err := Validate(obj, old, gates)
	if err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	return protocol.Answer{REST: &protocol.RESTValidationAnswer{Errors: FieldErrors(errs), Warnings: warnings}}
}

// FieldErrors is errs in the protocol's encoding.
func FieldErrors(errs field.ErrorList) []protocol.FieldError {
	out := make([]protocol.FieldError, 0, len(errs))
	for _, e := range errs {
		bad, err := json.Marshal(e.BadValue)
		if err != nil {
			bad = []byte(fmt.Sprintf("%q", fmt.Sprint(e.BadValue)))
		}
		out = append(out, protocol.FieldError{Type: string(e.Type), Field: e.Field, BadValue: string(bad), Detail: e.Detail, Text: e.Error()})
	}
	return out
}

func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			if m.Replace != nil {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	return ""
}

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return ""
}
