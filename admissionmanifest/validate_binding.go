package admissionmanifest

import (
	"errors"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissionvalidation"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
)

// ValidateValidatingAdmissionPolicyBinding validates a
// ValidatingAdmissionPolicyBinding as kube-apiserver's REST API does, on
// create when old is nil, else on update (validated alike). It returns the
// field errors, in kube-apiserver's order, and the API's warnings.
//
// kube-apiserver's REST API also checks, when the object is otherwise valid,
// that the requesting user may read the parameters it references: that
// needs an authorizer and is not done here. Whether policyName names an
// existing policy is not validated by the API either.
func (v *Validator) ValidateValidatingAdmissionPolicyBinding(obj, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) (field.ErrorList, []string) {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}, nil
	}
	errs := genericvalidation.ValidateObjectMeta(&obj.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	path := field.NewPath("spec")
	spec := &obj.Spec
	// The declarative validation's errors (from 1.37), after the others,
	// replace the handwritten ones of policyName and validationActions; on
	// an update, a field it would find wrong but that the update keeps is
	// not revalidated (it ratchets), and the handwritten error stands (1.37)
	// or none (1.38, which dropped the handwritten checks).
	var declarative field.ErrorList
	dvActions := kubeversions.Has(v.opts.Kube, kubeversions.RESTDeclarativeValidation)
	dvOnly := kubeversions.Has(v.opts.Kube, kubeversions.RESTDeclarativeBindingPolicyName)
	if spec.PolicyName == "" {
		kept := old != nil && old.Spec.PolicyName == ""
		switch {
		case !dvActions || (kept && !dvOnly):
			errs = append(errs, field.Required(path.Child("policyName"), "").MarkCoveredByDeclarative())
		case !kept:
			declarative = append(declarative, field.Required(path.Child("policyName"), ""))
		}
	} else {
		for _, msg := range genericvalidation.NameIsDNSSubdomain(spec.PolicyName, false) {
			errs = append(errs, field.Invalid(path.Child("policyName"), spec.PolicyName, msg))
		}
	}
	errs = append(errs, admissionvalidation.ParamRef(spec.ParamRef, path.Child("paramRef"))...)
	errs = append(errs, admissionvalidation.MatchResources(spec.MatchResources, path.Child("matchResources"))...)
	errs = append(errs, validateValidationActions(spec.ValidationActions, path.Child("validationActions"))...)
	if len(spec.ValidationActions) == 0 {
		kept := old != nil && len(old.Spec.ValidationActions) == 0
		switch {
		case !dvActions || (kept && !dvOnly):
			errs = append(errs, field.Required(path.Child("validationActions"), "at least one validation action is required").MarkCoveredByDeclarative())
		case !kept:
			declarative = append(declarative, field.Required(path.Child("validationActions"), ""))
		}
	}
	errs, warnings := v.staticName(obj.Name, errs, old != nil, old != nil && old.Generation == obj.Generation)
	return append(errs, declarative...), warnings
}

// validationActions are the actions of a binding, sorted.
var validationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit, admissionregistrationv1.Deny, admissionregistrationv1.Warn}

func validateValidationActions(actions []admissionregistrationv1.ValidationAction, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[admissionregistrationv1.ValidationAction]bool{}
	for i, a := range actions {
		if !oneOf(a, validationActions) {
			errs = append(errs, field.NotSupported(path.Index(i), a, validationActions))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(path.Index(i), a))
		}
		seen[a] = true
	}
	if seen[admissionregistrationv1.Deny] && seen[admissionregistrationv1.Warn] {
		errs = append(errs, field.Invalid(path, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	return errs
}
