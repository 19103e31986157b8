package admissionmanifest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissionvalidation"
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
	return v.staticName(obj.Name, errs, old != nil, old != nil && old.Generation == obj.Generation)
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
	errs := admissionvalidation.PolicyHead(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, path)
	hasParams := spec.ParamKind != nil
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

// validateVariable validates a variable and compiles it into pv. As in
// kube-apiserver, a variable compiles in the environment of stored
// expressions if its expression was one of the old policy's validation
// expressions (not variables: kube-apiserver looks it up there).
func validateVariable(pv *matchcond.PolicyValidator, variable *admissionregistrationv1.Variable, storedValidations map[string]bool, path *field.Path) field.ErrorList {
	return admissionvalidation.Variable(variable, path, func() *field.Error {
		return pv.Variable(variable.Name, variable.Expression, storedValidations[variable.Expression], path.Child("expression"))
	})
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
