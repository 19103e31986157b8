//go:build k8s136

package restvalidation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	admvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
)

// 1.36: the static suffix behind ManifestBasedAdmissionControlConfig (alpha,
// off by default); its strategies warn of no excluded resource.

func knownGates() []string { return []string{GateManifestBasedAdmissionControlConfig} }

func defaultGates() Gates {
	return Gates{ManifestBasedAdmissionControlConfig: utilfeature.DefaultFeatureGate.Enabled(features.ManifestBasedAdmissionControlConfig)}
}

func staticSuffixErrors(name string) field.ErrorList {
	return admvalidation.ValidateStaticSuffix(name, field.NewPath("metadata", "name"))
}

func staticSuffixWarnings(name string) []string { return admvalidation.WarningsForStaticSuffix(name) }

func validatingExcludedWarnings(*admissionregistration.ValidatingWebhookConfiguration) []string {
	return nil
}

func mutatingExcludedWarnings(*admissionregistration.MutatingWebhookConfiguration) []string {
	return nil
}

// mutatingPolicyVersion is the version MutatingAdmissionPolicies are
// decoded into (the newest served).
var mutatingPolicyVersion = admissionregistrationv1.SchemeGroupVersion
