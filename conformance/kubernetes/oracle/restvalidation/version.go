//go:build !k8s135 && !k8s136

package restvalidation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	admvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
	"k8s.io/kubernetes/pkg/kubeapiserver/admission/exclusion"
)

// 1.37 and 1.38: both gates, the static suffix and the warnings for the
// rules of excluded resources.

func knownGates() []string {
	return []string{GateExcludeAdmissionWebhookVirtualResources, GateManifestBasedAdmissionControlConfig}
}

func defaultGates() Gates {
	return Gates{
		ManifestBasedAdmissionControlConfig:     utilfeature.DefaultFeatureGate.Enabled(features.ManifestBasedAdmissionControlConfig),
		ExcludeAdmissionWebhookVirtualResources: utilfeature.DefaultFeatureGate.Enabled(features.ExcludeAdmissionWebhookVirtualResources),
	}
}

func staticSuffixErrors(name string) field.ErrorList {
	return admvalidation.ValidateStaticSuffix(name, field.NewPath("metadata", "name"))
}

func staticSuffixWarnings(name string) []string { return admvalidation.WarningsForStaticSuffix(name) }

func validatingExcludedWarnings(c *admissionregistration.ValidatingWebhookConfiguration) []string {
	return admvalidation.WarningsForValidatingWebhookRules(c.Webhooks, exclusion.Excluded())
}

func mutatingExcludedWarnings(c *admissionregistration.MutatingWebhookConfiguration) []string {
	return admvalidation.WarningsForMutatingWebhookRules(c.Webhooks, exclusion.Excluded())
}

// mutatingPolicyVersion is the version MutatingAdmissionPolicies are
// decoded into (the newest served).
var mutatingPolicyVersion = admissionregistrationv1.SchemeGroupVersion
