package kubernetes

import (
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install" // the scheme's defaults and conversions
	admvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
	"k8s.io/kubernetes/pkg/kubeapiserver/admission/exclusion"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// The oracle is kube-apiserver's path for a v1 object sent to the REST API:
// the scheme's defaults, conversion to the internal type, then what the
// registry strategy's Validate (create) or ValidateUpdate calls, with the
// features ManifestBasedAdmissionControlConfig and
// ExcludeAdmissionWebhookVirtualResources on (1.37's defaults): the
// validation of pkg/apis/admissionregistration/validation and, on create,
// ValidateStaticSuffix on metadata.name. The strategies read the features
// from the process-wide gate; calling what they call keeps this package
// free of process-wide state. The warnings are the strategy's too:
// WarningsForStaticSuffix on update (none on create with the feature on),
// then, for webhook configurations on create and update, the rules that
// name a resource excluded from admission webhooks.

// admOracleInternal defaults a copy of obj and converts it to the internal
// type into out.
func admOracleInternal(t testing.TB, obj runtime.Object, out runtime.Object) {
	t.Helper()
	in := obj.DeepCopyObject()
	legacyscheme.Scheme.Default(in)
	if err := legacyscheme.Scheme.Convert(in, out, nil); err != nil {
		t.Fatalf("converting %T: %v", obj, err)
	}
}

// admOracle validates obj (old nil: create) as kube-apiserver 1.37.2 does.
func admOracle(t testing.TB, obj, old runtime.Object) (field.ErrorList, []string) {
	t.Helper()
	var errs field.ErrorList
	var excludedWarnings []string
	var name string
	switch o := obj.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		in := &admissionregistration.ValidatingWebhookConfiguration{}
		admOracleInternal(t, o, in)
		name = in.Name
		if old == nil {
			errs = admvalidation.ValidateValidatingWebhookConfiguration(in)
		} else {
			oldIn := &admissionregistration.ValidatingWebhookConfiguration{}
			admOracleInternal(t, old, oldIn)
			errs = admvalidation.ValidateValidatingWebhookConfigurationUpdate(in, oldIn)
		}
		excludedWarnings = admvalidation.WarningsForValidatingWebhookRules(in.Webhooks, exclusion.Excluded())
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		in := &admissionregistration.MutatingWebhookConfiguration{}
		admOracleInternal(t, o, in)
		name = in.Name
		if old == nil {
			errs = admvalidation.ValidateMutatingWebhookConfiguration(in)
		} else {
			oldIn := &admissionregistration.MutatingWebhookConfiguration{}
			admOracleInternal(t, old, oldIn)
			errs = admvalidation.ValidateMutatingWebhookConfigurationUpdate(in, oldIn)
		}
		excludedWarnings = admvalidation.WarningsForMutatingWebhookRules(in.Webhooks, exclusion.Excluded())
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		in := &admissionregistration.ValidatingAdmissionPolicy{}
		admOracleInternal(t, o, in)
		name = in.Name
		if old == nil {
			errs = admvalidation.ValidateValidatingAdmissionPolicy(in)
		} else {
			oldIn := &admissionregistration.ValidatingAdmissionPolicy{}
			admOracleInternal(t, old, oldIn)
			errs = admvalidation.ValidateValidatingAdmissionPolicyUpdate(in, oldIn)
		}
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		in := &admissionregistration.ValidatingAdmissionPolicyBinding{}
		admOracleInternal(t, o, in)
		name = in.Name
		if old == nil {
			errs = admvalidation.ValidateValidatingAdmissionPolicyBinding(in)
		} else {
			oldIn := &admissionregistration.ValidatingAdmissionPolicyBinding{}
			admOracleInternal(t, old, oldIn)
			errs = admvalidation.ValidateValidatingAdmissionPolicyBindingUpdate(in, oldIn)
		}
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		in := &admissionregistration.MutatingAdmissionPolicy{}
		admOracleInternal(t, o, in)
		name = in.Name
		if old == nil {
			errs = admvalidation.ValidateMutatingAdmissionPolicy(in)
		} else {
			oldIn := &admissionregistration.MutatingAdmissionPolicy{}
			admOracleInternal(t, old, oldIn)
			errs = admvalidation.ValidateMutatingAdmissionPolicyUpdate(in, oldIn)
		}
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		in := &admissionregistration.MutatingAdmissionPolicyBinding{}
		admOracleInternal(t, o, in)
		name = in.Name
		if old == nil {
			errs = admvalidation.ValidateMutatingAdmissionPolicyBinding(in)
		} else {
			oldIn := &admissionregistration.MutatingAdmissionPolicyBinding{}
			admOracleInternal(t, old, oldIn)
			errs = admvalidation.ValidateMutatingAdmissionPolicyBindingUpdate(in, oldIn)
		}
	default:
		t.Fatalf("no oracle for %T", obj)
	}
	if old == nil {
		return append(errs, admvalidation.ValidateStaticSuffix(name, field.NewPath("metadata", "name"))...), excludedWarnings
	}
	return errs, append(admvalidation.WarningsForStaticSuffix(name), excludedWarnings...)
}

// admGatehouse validates obj as gatehouse does: SetDefaults on a copy, then
// the Validator.
func admGatehouse(v *admissionmanifest.Validator, obj, old runtime.Object) (field.ErrorList, []string) {
	obj = obj.DeepCopyObject()
	admissionmanifest.SetDefaults(obj)
	if old != nil {
		old = old.DeepCopyObject()
		admissionmanifest.SetDefaults(old)
	}
	return v.Validate(obj, old)
}

// admPassword is the only password of the corpus's URLs: kube-apiserver
// prints it, gatehouse prints "xxxxx" (a documented difference).
const admPassword = "s3cret"

// admRender renders errors as one comparable line each: type, path, and
// the text kube-apiserver prints (bad value and detail).
func admRender(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = fmt.Sprintf("%s | %s | %s", e.Type, e.Field, e.Error())
	}
	return out
}

// admRedact is kube-apiserver's rendering with the corpus password
// redacted, which is what gatehouse must print.
func admRedact(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.ReplaceAll(l, admPassword, "xxxxx")
	}
	return out
}
