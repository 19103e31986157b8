package mutation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gatehouse-dev/gatehouse/internal/admissionvalidation"
)

// SetDefaultsPolicy sets kube-apiserver's defaults of a
// MutatingAdmissionPolicy (the same in v1, v1beta1 and v1alpha1):
// failurePolicy Fail and, if matchConstraints is set, matchPolicy
// Equivalent, empty namespace and object selectors, and the scope "*" of
// every rule. reinvocationPolicy has no default. A field that is set is
// never changed. Decode sets them; a policy built in Go needs them before
// it is validated.
func SetDefaultsPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = new(admissionregistrationv1.Fail)
	}
	admissionvalidation.DefaultMatchResources(p.Spec.MatchConstraints)
}

// SetDefaultsBinding sets kube-apiserver's v1 and v1beta1 defaults of a
// MutatingAdmissionPolicyBinding: those of its matchResources, if set (see
// SetDefaultsPolicy). paramRef.parameterNotFoundAction has no default but
// in v1alpha1 (Deny), which Decode sets for the bindings of that version.
func SetDefaultsBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	admissionvalidation.DefaultMatchResources(b.Spec.MatchResources)
}

// setDefaultsBindingV1alpha1 adds the default of v1alpha1: the
// parameterNotFoundAction Deny of a paramRef.
func setDefaultsBindingV1alpha1(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	SetDefaultsBinding(b)
	if b.Spec.ParamRef != nil && b.Spec.ParamRef.ParameterNotFoundAction == nil {
		b.Spec.ParamRef.ParameterNotFoundAction = new(admissionregistrationv1.DenyAction)
	}
}
