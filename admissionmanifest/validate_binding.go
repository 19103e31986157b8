package admissionmanifest

import (
	"errors"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissionvalidation"
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
	if spec.PolicyName == "" {
		errs = append(errs, field.Required(path.Child("policyName"), "").MarkCoveredByDeclarative())
	} else {
		for _, msg := range genericvalidation.NameIsDNSSubdomain(spec.PolicyName, false) {
			errs = append(errs, field.Invalid(path.Child("policyName"), spec.PolicyName, msg))
		}
	}
	errs = append(errs, admissionvalidation.ParamRef(spec.ParamRef, path.Child("paramRef"))...)
	errs = append(errs, admissionvalidation.MatchResources(spec.MatchResources, path.Child("matchResources"))...)
	errs = append(errs, validateValidationActions(spec.ValidationActions, path.Child("validationActions"))...)
	return v.staticName(obj.Name, errs, old != nil)
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
	if len(seen) == 0 {
		errs = append(errs, field.Required(path, "at least one validation action is required").MarkCoveredByDeclarative())
	}
	return errs
}
