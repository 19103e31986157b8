package admissionmanifest

// TODO(issue 11): this file stands in for the REST defaulting and validation
// that branch admval writes in this package (defaults.go, validate*.go), with
// the signatures its doc.go declares stable. It is deleted when admval is
// merged; until then the loaders apply no defaults and no REST validation.

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// StaticSuffix ends the name of every object loaded from a manifest.
const StaticSuffix = ".static.k8s.io"

// StaticNamePolicy says how the REST validation treats static names.
type StaticNamePolicy int

// StaticNamesAllowed accepts static names, as the loaders must.
const StaticNamesAllowed StaticNamePolicy = 2

// Options configure a Validator.
type Options struct {
	StaticNames StaticNamePolicy
}

// Validator is admval's REST validator.
type Validator struct{}

// NewValidator builds a Validator.
func NewValidator(Options) (*Validator, error) { return &Validator{}, nil }

func SetDefaultsValidatingWebhookConfiguration(*admissionregistrationv1.ValidatingWebhookConfiguration) {
}
func SetDefaultsMutatingWebhookConfiguration(*admissionregistrationv1.MutatingWebhookConfiguration) {}
func SetDefaultsValidatingAdmissionPolicy(*admissionregistrationv1.ValidatingAdmissionPolicy)       {}
func SetDefaultsValidatingAdmissionPolicyBinding(*admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
}
func SetDefaultsMutatingAdmissionPolicy(*admissionregistrationv1.MutatingAdmissionPolicy) {}
func SetDefaultsMutatingAdmissionPolicyBinding(*admissionregistrationv1.MutatingAdmissionPolicyBinding) {
}

func (*Validator) ValidateValidatingWebhookConfiguration(_, _ *admissionregistrationv1.ValidatingWebhookConfiguration) (field.ErrorList, []string) {
	return nil, nil
}
func (*Validator) ValidateMutatingWebhookConfiguration(_, _ *admissionregistrationv1.MutatingWebhookConfiguration) (field.ErrorList, []string) {
	return nil, nil
}
func (*Validator) ValidateValidatingAdmissionPolicy(_, _ *admissionregistrationv1.ValidatingAdmissionPolicy) (field.ErrorList, []string) {
	return nil, nil
}
func (*Validator) ValidateValidatingAdmissionPolicyBinding(_, _ *admissionregistrationv1.ValidatingAdmissionPolicyBinding) (field.ErrorList, []string) {
	return nil, nil
}
