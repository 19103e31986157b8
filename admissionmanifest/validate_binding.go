package admissionmanifest

import (
	"errors"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
	errs = append(errs, validateParamRef(spec.ParamRef, path.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(spec.MatchResources, path.Child("matchResources"))...)
	errs = append(errs, validateValidationActions(spec.ValidationActions, path.Child("validationActions"))...)
	return v.staticName(obj.Name, errs, old != nil)
}

func validateParamRef(pr *admissionregistrationv1.ParamRef, path *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	const exclusive = "name and selector are mutually exclusive"
	if pr.Name != "" {
		for _, msg := range content.IsPathSegmentName(pr.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), pr.Name, msg))
		}
		if pr.Selector != nil {
			errs = append(errs, field.Forbidden(path.Child("name"), exclusive))
		}
	}
	if pr.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(pr.Selector, metav1validation.LabelSelectorValidationOptions{}, path.Child("selector"))...)
		if pr.Name != "" {
			errs = append(errs, field.Forbidden(path.Child("selector"), exclusive))
		}
	}
	if pr.Name == "" && pr.Selector == nil {
		errs = append(errs, field.Required(path, "one of name or selector must be specified"))
	}
	if pr.ParameterNotFoundAction == nil || *pr.ParameterNotFoundAction == "" {
		errs = append(errs, field.Required(path.Child("parameterNotFoundAction"), ""))
	} else if a := *pr.ParameterNotFoundAction; a != admissionregistrationv1.DenyAction && a != admissionregistrationv1.AllowAction {
		// kube-apiserver lists Deny first, and prints the pointer's value.
		errs = append(errs, field.NotSupported(path.Child("parameterNotFoundAction"), pr.ParameterNotFoundAction, []admissionregistrationv1.ParameterNotFoundActionType{admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction}))
	}
	return errs
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
