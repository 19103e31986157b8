package admissionmanifest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// ValidateValidatingAdmissionPolicy validates a ValidatingAdmissionPolicy as
// kube-apiserver's REST API does: on create when old is nil, else on update
// from old (the match conditions are not validated when they and the
// paramKind are unchanged; expressions the old policy had compile in the
// environment of stored expressions). The CEL expressions of variables,
// validations, message expressions, audit annotations and match conditions
// are compiled in the environment of new expressions, each variable known to
// the expressions after it. It returns the field errors, in kube-apiserver's
// order, and the API's warnings.
//
// kube-apiserver's REST API also checks, when the object is otherwise valid,
// that the requesting user may read the paramKind's resource: that needs
// an authorizer and the API's discovery, and is not done here.
func (v *Validator) ValidateValidatingAdmissionPolicy(obj, old *admissionregistrationv1.ValidatingAdmissionPolicy) (field.ErrorList, []string) {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}, nil
	}
	var o policyOptions
	if old != nil {
		o = policyOptions{
			ignoreMatchConditions: equality.Semantic.DeepEqual(obj.Spec.ParamKind, old.Spec.ParamKind) &&
				equality.Semantic.DeepEqual(obj.Spec.MatchConditions, old.Spec.MatchConditions),
			preexisting: preexistingPolicyExpressions(old),
		}
	}
	errs := genericvalidation.ValidateObjectMeta(&obj.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, v.validatePolicySpec(&obj.ObjectMeta, &obj.Spec, &o, field.NewPath("spec"))...)
	return v.staticName(obj.Name, errs, old != nil)
}

// policyOptions are what an update relaxes.
type policyOptions struct {
	ignoreMatchConditions bool
	preexisting           preexistingExpressions
}

// preexistingExpressions are the expressions of a policy before an update,
// by kind, as written.
type preexistingExpressions struct {
	matchConditions []string
	validations     map[string]bool
	messages        map[string]bool
	auditValues     map[string]bool
}

func preexistingPolicyExpressions(p *admissionregistrationv1.ValidatingAdmissionPolicy) preexistingExpressions {
	e := preexistingExpressions{validations: map[string]bool{}, messages: map[string]bool{}, auditValues: map[string]bool{}}
	for _, mc := range p.Spec.MatchConditions {
		e.matchConditions = append(e.matchConditions, mc.Expression)
	}
	for _, val := range p.Spec.Validations {
		e.validations[val.Expression] = true
		if val.MessageExpression != "" {
			e.messages[val.MessageExpression] = true
		}
	}
	for _, a := range p.Spec.AuditAnnotations {
		e.auditValues[a.ValueExpression] = true
	}
	return e
}

const (
	maxAuditAnnotations                     = 20
	maxAuditAnnotationValueExpressionLength = 5 * 1024
)

// validationReasons are the reasons a validation may give, sorted.
var validationReasons = []metav1.StatusReason{metav1.StatusReasonForbidden, metav1.StatusReasonInvalid, metav1.StatusReasonRequestEntityTooLarge}

func (v *Validator) validatePolicySpec(meta *metav1.ObjectMeta, spec *admissionregistrationv1.ValidatingAdmissionPolicySpec, o *policyOptions, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.FailurePolicy == nil {
		errs = append(errs, field.Required(path.Child("failurePolicy"), ""))
	} else if !oneOf(*spec.FailurePolicy, failurePolicies) {
		errs = append(errs, field.NotSupported(path.Child("failurePolicy"), *spec.FailurePolicy, failurePolicies))
	}
	hasParams := spec.ParamKind != nil
	if hasParams {
		errs = append(errs, validateParamKind(spec.ParamKind, path.Child("paramKind"))...)
	}
	if spec.MatchConstraints == nil {
		errs = append(errs, field.Required(path.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(spec.MatchConstraints, path.Child("matchConstraints"))...)
		if len(spec.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, field.Required(path.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	if !o.ignoreMatchConditions {
		errs = append(errs, v.compiler.Validate(spec.MatchConditions, matchcond.AdmissionValidateOptions{HasParams: hasParams, Preexisting: o.preexisting.matchConditions}, path.Child("matchConditions"))...)
	}
	pv := v.compiler.NewPolicyValidator(matchcond.PolicyValidateOptions{HasParams: hasParams, Composition: len(spec.Variables) > 0})
	for i, variable := range spec.Variables {
		errs = append(errs, validateVariable(pv, &variable, o.preexisting.validations, path.Child("variables").Index(i))...)
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const detail = "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(path.Child("validations"), detail), field.Required(path.Child("auditAnnotations"), detail))
	}
	for i := range spec.Validations {
		errs = append(errs, validateValidation(pv, &spec.Validations[i], &o.preexisting, path.Child("validations").Index(i))...)
	}
	if spec.AuditAnnotations != nil {
		if len(spec.AuditAnnotations) > maxAuditAnnotations {
			errs = append(errs, field.Invalid(path.Child("auditAnnotations"), internalAuditAnnotations(spec.AuditAnnotations), fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
		}
		keys := map[string]bool{}
		for i := range spec.AuditAnnotations {
			a := &spec.AuditAnnotations[i]
			p := path.Child("auditAnnotations").Index(i)
			errs = append(errs, validateAuditAnnotation(pv, meta.Name, a, o.preexisting.auditValues, p)...)
			if keys[a.Key] {
				errs = append(errs, field.Duplicate(p.Child("key"), a.Key))
			}
			keys[a.Key] = true
		}
	}
	return errs
}

// internalAuditAnnotation is how kube-apiserver prints an audit annotation
// as a bad value: its internal type, which has no JSON names.
type internalAuditAnnotation struct {
	Key             string
	ValueExpression string
}

func internalAuditAnnotations(as []admissionregistrationv1.AuditAnnotation) []internalAuditAnnotation {
	out := make([]internalAuditAnnotation, len(as))
	for i, a := range as {
		out[i] = internalAuditAnnotation{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return out
}

func validateParamKind(pk *admissionregistrationv1.ParamKind, path *field.Path) field.ErrorList {
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

// validateMatchResources validates the matchConstraints of a policy or the
// matchResources of a binding. The selectors are validated strictly: these
// types came after kube-apiserver stopped accepting invalid label values.
func validateMatchResources(m *admissionregistrationv1.MatchResources, path *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	if m.MatchPolicy == nil {
		errs = append(errs, field.Required(path.Child("matchPolicy"), ""))
	} else if !oneOf(*m.MatchPolicy, matchPolicies) {
		errs = append(errs, field.NotSupported(path.Child("matchPolicy"), *m.MatchPolicy, matchPolicies))
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
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, path)...)
}

// celIdentifier is an identifier of CEL, less the reserved words.
var celIdentifier = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true, "const": true,
	"continue": true, "else": true, "for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true, "var": true, "void": true, "while": true,
}

// validateVariable validates a variable and compiles it into pv. As in
// kube-apiserver, a variable compiles in the environment of stored
// expressions if its expression was one of the old policy's validation
// expressions (not variables: kube-apiserver looks it up there).
func validateVariable(pv *matchcond.PolicyValidator, variable *admissionregistrationv1.Variable, storedValidations map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(variable.Name) == "" {
		errs = append(errs, field.Required(path.Child("name"), "name is not specified"))
	} else if !celIdentifier.MatchString(variable.Name) || celReserved[variable.Name] {
		errs = append(errs, field.Invalid(path.Child("name"), variable.Name, "must be a valid CEL identifier"))
	}
	if strings.TrimSpace(variable.Expression) == "" {
		errs = append(errs, field.Required(path.Child("expression"), "expression is not specified"))
	} else if err := pv.Variable(variable.Name, variable.Expression, storedValidations[variable.Expression], path.Child("expression")); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// newlines are the line breaks of CEL's grammar.
var newlines = regexp.MustCompile(`[\n\r]+`)

func validateValidation(pv *matchcond.PolicyValidator, val *admissionregistrationv1.Validation, stored *preexistingExpressions, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(val.Expression) == "" {
		errs = append(errs, field.Required(path.Child("expression"), "expression is not specified"))
	} else if err := pv.Expression(matchcond.PolicyValidation, val.Expression, stored.validations[val.Expression], path.Child("expression")); err != nil {
		errs = append(errs, err)
	}
	if trimmed := strings.TrimSpace(val.MessageExpression); val.MessageExpression != "" && trimmed == "" {
		errs = append(errs, field.Invalid(path.Child("messageExpression"), val.MessageExpression, "must be non-empty if specified"))
	} else if trimmed != "" {
		// The expression as written, so that the columns of errors are right.
		if err := pv.Expression(matchcond.PolicyMessage, val.MessageExpression, stored.messages[val.MessageExpression], path.Child("messageExpression")); err != nil {
			errs = append(errs, err)
		}
	}
	if trimmed := strings.TrimSpace(val.Message); val.Message != "" && trimmed == "" {
		errs = append(errs, field.Invalid(path.Child("message"), val.Message, "must be non-empty if specified"))
	} else if newlines.MatchString(trimmed) {
		errs = append(errs, field.Invalid(path.Child("message"), val.Message, "must not contain line breaks"))
	}
	if val.Reason != nil && !oneOf(*val.Reason, validationReasons) {
		errs = append(errs, field.NotSupported(path.Child("reason"), *val.Reason, validationReasons))
	}
	return errs
}

func validateAuditAnnotation(pv *matchcond.PolicyValidator, policyName string, a *admissionregistrationv1.AuditAnnotation, storedValues map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policyName != "" {
		key := policyName + "/" + a.Key
		for _, msg := range utilvalidation.IsQualifiedName(key) {
			errs = append(errs, field.Invalid(path.Child("key"), key, msg).WithOrigin("format=qualified-name"))
		}
	} else {
		errs = append(errs, field.Invalid(path.Child("key"), a.Key, "requires metadata.name be non-empty"))
	}
	valuePath := path.Child("valueExpression")
	trimmed := strings.TrimSpace(a.ValueExpression)
	switch {
	case trimmed == "":
		errs = append(errs, field.Required(valuePath, "valueExpression is not specified"))
	case len(trimmed) > maxAuditAnnotationValueExpressionLength:
		errs = append(errs, field.Required(valuePath, fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
	default:
		// Compiled trimmed, reported as written.
		if err := pv.Expression(matchcond.PolicyAuditAnnotation, trimmed, storedValues[a.ValueExpression], valuePath); err != nil {
			if err.Type == field.ErrorTypeInvalid {
				err.BadValue = a.ValueExpression
			}
			errs = append(errs, err)
		}
	}
	return errs
}
