package admissionmanifest

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// StaticNamePolicy says what validation does with a name that ends with
// StaticSuffix.
type StaticNamePolicy int

const (
	// StaticNamesReserved is kube-apiserver 1.37's REST API, where the
	// ManifestBasedAdmissionControlConfig feature is on by default: creating
	// an object with such a name fails (Invalid on metadata.name); updating
	// one that exists passes, with a warning.
	StaticNamesReserved StaticNamePolicy = iota
	// StaticNamesWarned is the REST API with that feature off: a warning on
	// create and on update.
	StaticNamesWarned
	// StaticNamesAllowed is the manifest loaders' validation: no error and
	// no warning (the loaders require the suffix themselves).
	StaticNamesAllowed
)

// StaticSuffix ends the names of the objects of static manifests, which the
// REST API reserves.
const StaticSuffix = ".static.k8s.io"

// Options are what kube-apiserver's REST strategies vary around the
// validation of admission objects.
type Options struct {
	// StaticNames is the treatment of names ending with StaticSuffix; the
	// zero value is the REST API's of 1.37.
	StaticNames StaticNamePolicy
	// Compiler compiles the CEL expressions (match conditions, and the
	// expressions of policies). Nil builds one; share one between validators,
	// and with the matchers of the same process, to build its environments
	// once.
	Compiler *matchcond.AdmissionCompiler
	// Kube is the kube-apiserver whose REST API validates: its CEL
	// environments and cel-go. The zero Target is the newest release. A
	// Compiler given must have been built for the same Target. The
	// treatment of static names at that version is StaticNamesFor's.
	Kube kube.Target
}

// StaticNamesFor returns the treatment of static names by the REST API of
// kube-apiserver as t: none before 1.36, where such names are plain names;
// warned while the ManifestBasedAdmissionControlConfig feature is off (1.36's
// default), reserved while it is on (1.37's).
func StaticNamesFor(t kube.Target) StaticNamePolicy {
	switch {
	case !kubeversions.Has(t, kubeversions.StaticManifestsDirKnown):
		return StaticNamesAllowed
	case !kubeversions.Has(t, kubeversions.StaticManifests):
		return StaticNamesWarned
	}
	return StaticNamesReserved
}

// Validator validates admission objects (admissionregistration.k8s.io/v1
// webhook configurations, validating admission policies and their bindings)
// as kube-apiserver's REST API does on create and on update. It is immutable
// and safe for concurrent use.
//
// The objects must carry their v1 defaults (see SetDefaults), as
// kube-apiserver validates decoded, defaulted objects: a missing
// failurePolicy, for example, is not an error of the API because it is
// defaulted.
type Validator struct {
	opts     Options
	compiler *matchcond.AdmissionCompiler
	// mutations validates MutatingAdmissionPolicies (package mutation).
	mutations *mutationValidator
}

// NewValidator prepares a Validator. The error is for a CEL environment that
// cannot be built.
func NewValidator(o Options) (*Validator, error) {
	c := o.Compiler
	if c == nil {
		var err error
		if c, err = matchcond.NewAdmissionCompilerFor(o.Kube); err != nil {
			return nil, err
		}
	}
	o.Compiler = c
	return &Validator{opts: o, compiler: c, mutations: &mutationValidator{}}, nil
}

// Validate validates obj, on create when old is nil, else on update from
// old (of the same type), and returns the API's field errors and warnings.
// obj is one of *v1.ValidatingWebhookConfiguration,
// *v1.MutatingWebhookConfiguration, *v1.ValidatingAdmissionPolicy,
// *v1.ValidatingAdmissionPolicyBinding, *v1.MutatingAdmissionPolicy and
// *v1.MutatingAdmissionPolicyBinding (of admissionregistration/v1); any
// other type, or an old object of another type, is an internal error.
func (v *Validator) Validate(obj, old runtime.Object) (field.ErrorList, []string) {
	wrongOld := func() (field.ErrorList, []string) {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot validate an update of a %T from a %T", obj, old))}, nil
	}
	switch o := obj.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		var oldC *admissionregistrationv1.ValidatingWebhookConfiguration
		if old != nil {
			var ok bool
			if oldC, ok = old.(*admissionregistrationv1.ValidatingWebhookConfiguration); !ok {
				return wrongOld()
			}
		}
		return v.ValidateValidatingWebhookConfiguration(o, oldC)
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		var oldC *admissionregistrationv1.MutatingWebhookConfiguration
		if old != nil {
			var ok bool
			if oldC, ok = old.(*admissionregistrationv1.MutatingWebhookConfiguration); !ok {
				return wrongOld()
			}
		}
		return v.ValidateMutatingWebhookConfiguration(o, oldC)
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		var oldP *admissionregistrationv1.ValidatingAdmissionPolicy
		if old != nil {
			var ok bool
			if oldP, ok = old.(*admissionregistrationv1.ValidatingAdmissionPolicy); !ok {
				return wrongOld()
			}
		}
		return v.ValidateValidatingAdmissionPolicy(o, oldP)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		var oldB *admissionregistrationv1.ValidatingAdmissionPolicyBinding
		if old != nil {
			var ok bool
			if oldB, ok = old.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding); !ok {
				return wrongOld()
			}
		}
		return v.ValidateValidatingAdmissionPolicyBinding(o, oldB)
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		var oldP *admissionregistrationv1.MutatingAdmissionPolicy
		if old != nil {
			var ok bool
			if oldP, ok = old.(*admissionregistrationv1.MutatingAdmissionPolicy); !ok {
				return wrongOld()
			}
		}
		return v.ValidateMutatingAdmissionPolicy(o, oldP)
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		var oldB *admissionregistrationv1.MutatingAdmissionPolicyBinding
		if old != nil {
			var ok bool
			if oldB, ok = old.(*admissionregistrationv1.MutatingAdmissionPolicyBinding); !ok {
				return wrongOld()
			}
		}
		return v.ValidateMutatingAdmissionPolicyBinding(o, oldB)
	}
	return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot validate a %T", obj))}, nil
}
