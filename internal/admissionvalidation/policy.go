package admissionvalidation

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PolicyHead validates what the specs of validating and mutating admission
// policies begin with, in kube-apiserver's order: failurePolicy (required:
// the defaults set it), paramKind, and matchConstraints (required, with at
// least one resource rule, which gives the expressions their types).
func PolicyHead(failurePolicy *admissionregistrationv1.FailurePolicyType, paramKind *admissionregistrationv1.ParamKind, matchConstraints *admissionregistrationv1.MatchResources, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if failurePolicy == nil {
		errs = append(errs, field.Required(path.Child("failurePolicy"), ""))
	} else if !slices.Contains(FailurePolicies, *failurePolicy) {
		errs = append(errs, field.NotSupported(path.Child("failurePolicy"), *failurePolicy, FailurePolicies))
	}
	if paramKind != nil {
		errs = append(errs, ParamKind(paramKind, path.Child("paramKind"))...)
	}
	if matchConstraints == nil {
		errs = append(errs, field.Required(path.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, MatchResources(matchConstraints, path.Child("matchConstraints"))...)
		if len(matchConstraints.ResourceRules) == 0 {
			errs = append(errs, field.Required(path.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	return errs
}

// ParamKind validates the paramKind of a policy.
func ParamKind(pk *admissionregistrationv1.ParamKind, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	versionPath := path.Child("apiVersion")
	if pk.APIVersion == "" {
		errs = append(errs, field.Required(versionPath, ""))
	} else if group, version, err := parseGroupVersion(pk.APIVersion); err != nil {
		errs = append(errs, field.Invalid(versionPath, pk.APIVersion, err.Error()))
	} else {
		if group != "" {
			if msgs := utilvalidation.IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(versionPath, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(versionPath, pk.APIVersion, "version must be specified"))
		} else if msgs := utilvalidation.IsDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(versionPath, version, strings.Join(msgs, ",")))
		}
	}
	if pk.Kind == "" {
		errs = append(errs, field.Required(path.Child("kind"), ""))
	} else if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(pk.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(path.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// parseGroupVersion splits "group/version" as kube-apiserver's paramKind
// validation does: "" and "/" are empty, no slash is a version, two or more
// slashes are an error.
func parseGroupVersion(gv string) (group, version string, err error) {
	if gv == "" || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		group, version, _ = strings.Cut(gv, "/")
		return group, version, nil
	}
	return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
}

// MatchResources validates the matchConstraints of a policy or the
// matchResources of a binding. The selectors are validated strictly: these
// types came after kube-apiserver stopped accepting invalid label values.
func MatchResources(m *admissionregistrationv1.MatchResources, path *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	if m.MatchPolicy == nil {
		errs = append(errs, field.Required(path.Child("matchPolicy"), ""))
	} else if !slices.Contains(MatchPolicies, *m.MatchPolicy) {
		errs = append(errs, field.NotSupported(path.Child("matchPolicy"), *m.MatchPolicy, MatchPolicies))
	}
	strict := metav1validation.LabelSelectorValidationOptions{}
	if m.NamespaceSelector == nil {
		errs = append(errs, field.Required(path.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(m.NamespaceSelector, strict, path.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector == nil {
		errs = append(errs, field.Required(path.Child("objectSelector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(m.ObjectSelector, strict, path.Child("objectSelector"))...)
	}
	for i := range m.ResourceRules {
		errs = append(errs, validateNamedRule(&m.ResourceRules[i], path.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&m.ExcludeResourceRules[i], path.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

func validateNamedRule(r *admissionregistrationv1.NamedRuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, name := range r.ResourceNames {
		p := path.Child("resourceNames").Index(i)
		for _, msg := range content.IsPathSegmentName(name) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
		if seen[name] {
			errs = append(errs, field.Duplicate(p, name))
		}
		seen[name] = true
	}
	return append(errs, RuleWithOperations(&r.RuleWithOperations, path)...)
}

// ParamRef validates the paramRef of a binding; nil is valid.
func ParamRef(pr *admissionregistrationv1.ParamRef, path *field.Path) field.ErrorList {
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
