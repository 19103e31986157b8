//go:build k8s135

package restvalidation

import (
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
)

// 1.35: no gate of its strategies' is known here, no static suffix, no
// warnings.

func knownGates() []string { return nil }

func defaultGates() Gates { return Gates{} }

func staticSuffixErrors(string) field.ErrorList { return nil }

func staticSuffixWarnings(string) []string { return nil }

func validatingExcludedWarnings(*admissionregistration.ValidatingWebhookConfiguration) []string {
	return nil
}

func mutatingExcludedWarnings(*admissionregistration.MutatingWebhookConfiguration) []string {
	return nil
}

// mutatingPolicyVersion is the version MutatingAdmissionPolicies are
// decoded into: 1.35 serves them at v1beta1 only.
var mutatingPolicyVersion = admissionregistrationv1beta1.SchemeGroupVersion
