package admissionmanifest

import (
	"errors"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/mutationcel"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// mutatingOperations are the operations a MutatingAdmissionPolicy or its
// binding may match, sorted (it cannot mutate DELETE requests).
var mutatingOperations = []admissionregistrationv1.OperationType{
	admissionregistrationv1.OperationAll, admissionregistrationv1.Connect, admissionregistrationv1.Create, admissionregistrationv1.Update,
}

// patchTypes are the patch types of a mutation, sorted.
var patchTypes = []admissionregistrationv1.PatchType{admissionregistrationv1.PatchTypeApplyConfiguration, admissionregistrationv1.PatchTypeJSONPatch}

// mutationCompiler is the compiler of MutatingAdmissionPolicy expressions,
// built when first needed.
type mutationCompiler struct {
	once sync.Once
	c    *mutationcel.Compiler
	err  error
}

func (m *mutationCompiler) get() (*mutationcel.Compiler, error) {
	m.once.Do(func() { m.c, m.err = mutationcel.NewCompiler() })
	return m.c, m.err
}

// ValidateMutatingAdmissionPolicy validates a MutatingAdmissionPolicy as
// kube-apiserver's REST API does: on create when old is nil, else on update
// from old (the match conditions are not validated when they and the
// paramKind are unchanged). Variables compile in the environment of new
// expressions; a mutation's expression in that of stored expressions when
// the old policy had it as an ApplyConfiguration (kube-apiserver looks a
// JSONPatch expression up there too). Each variable is known to the
// expressions after it; ApplyConfiguration expressions must be of type
// Object, JSONPatch ones of type list(JSONPatch). It returns the field
// errors, in kube-apiserver's order, and the API's warnings.
//
// kube-apiserver's REST API also checks, when the object is otherwise valid,
// that the requesting user may read the paramKind's resource: that needs
// an authorizer and the API's discovery, and is not done here.
func (v *Validator) ValidateMutatingAdmissionPolicy(obj, old *admissionregistrationv1.MutatingAdmissionPolicy) (field.ErrorList, []string) {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}, nil
	}
	var o policyOptions
	storedMutations := map[string]bool{}
	if old != nil {
		o.ignoreMatchConditions = equality.Semantic.DeepEqual(obj.Spec.ParamKind, old.Spec.ParamKind) &&
			equality.Semantic.DeepEqual(obj.Spec.MatchConditions, old.Spec.MatchConditions)
		for _, mc := range old.Spec.MatchConditions {
			o.preexisting.matchConditions = append(o.preexisting.matchConditions, mc.Expression)
		}
		for _, m := range old.Spec.Mutations {
			if m.ApplyConfiguration != nil {
				storedMutations[m.ApplyConfiguration.Expression] = true
			}
		}
	}
	errs := genericvalidation.ValidateObjectMeta(&obj.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, v.validateMutatingPolicySpec(&obj.Spec, &o, storedMutations, field.NewPath("spec"))...)
	return v.staticName(obj.Name, errs, old != nil)
}

func (v *Validator) validateMutatingPolicySpec(spec *admissionregistrationv1.MutatingAdmissionPolicySpec, o *policyOptions, storedMutations map[string]bool, path *field.Path) field.ErrorList {
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
		errs = append(errs, validateMutatingOperations(spec.MatchConstraints, path.Child("matchConstraints"))...)
	}
	if !o.ignoreMatchConditions {
		errs = append(errs, v.compiler.Validate(spec.MatchConditions, matchcond.AdmissionValidateOptions{HasParams: hasParams, Preexisting: o.preexisting.matchConditions}, path.Child("matchConditions"))...)
	}
	compiler, err := v.mutations.get()
	if err != nil {
		return append(errs, field.InternalError(path, err))
	}
	x := compiler.NewExpressionChecker(hasParams)
	for i, variable := range spec.Variables {
		p := path.Child("variables").Index(i)
		if isBlank(variable.Name) {
			errs = append(errs, field.Required(p.Child("name"), "name is not specified"))
		} else if !isCELIdentifier(variable.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), variable.Name, "must be a valid CEL identifier"))
		}
		if isBlank(variable.Expression) {
			errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
		} else if ferr := x.Variable(variable.Name, variable.Expression, false, p.Child("expression")); ferr != nil {
			errs = append(errs, ferr)
		}
	}
	if len(spec.Mutations) == 0 {
		errs = append(errs, field.Required(path.Child("mutations"), "mutations must contain at least one item"))
	}
	for i, m := range spec.Mutations {
		errs = append(errs, validateMutation(x, m, storedMutations, path.Child("mutations").Index(i))...)
	}
	if spec.ReinvocationPolicy == "" {
		errs = append(errs, field.Required(path.Child("reinvocationPolicy"), ""))
	} else if !oneOf(spec.ReinvocationPolicy, reinvocationPolicies) {
		errs = append(errs, field.NotSupported(path.Child("reinvocationPolicy"), spec.ReinvocationPolicy, reinvocationPolicies))
	}
	return errs
}

// validateMutation checks a mutation's union and compiles its expression.
func validateMutation(x *mutationcel.ExpressionChecker, m admissionregistrationv1.Mutation, storedMutations map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch m.PatchType {
	case "":
		return append(errs, field.Required(path.Child("patchType"), ""))
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, field.Required(path.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else {
			errs = append(errs, validateMutationExpression(x, m, m.JSONPatch.Expression, storedMutations, path.Child("jsonPatch", "expression"))...)
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(path.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, field.Required(path.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else {
			errs = append(errs, validateMutationExpression(x, m, m.ApplyConfiguration.Expression, storedMutations, path.Child("applyConfiguration", "expression"))...)
		}
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(path.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("patchType"), m.PatchType, patchTypes))
	}
	return errs
}

func validateMutationExpression(x *mutationcel.ExpressionChecker, m admissionregistrationv1.Mutation, expression string, storedMutations map[string]bool, path *field.Path) field.ErrorList {
	if isBlank(expression) {
		return field.ErrorList{field.Required(path, "")}
	}
	if ferr := x.Mutation(m, storedMutations[expression], path); ferr != nil {
		return field.ErrorList{ferr}
	}
	return nil
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func isCELIdentifier(s string) bool { return celIdentifier.MatchString(s) && !celReserved[s] }

// validateMutatingOperations refuses the operations a mutating policy cannot
// match, at the path kube-apiserver reports (without the rule's index).
func validateMutatingOperations(m *admissionregistrationv1.MatchResources, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, rule := range m.ResourceRules {
		for _, op := range rule.Operations {
			if !oneOf(op, mutatingOperations) {
				errs = append(errs, field.NotSupported(path.Child("resourceRules", "operations"), op, mutatingOperations))
			}
		}
	}
	return errs
}

// ValidateMutatingAdmissionPolicyBinding validates a
// MutatingAdmissionPolicyBinding as kube-apiserver's REST API does, on
// create when old is nil, else on update (validated alike). It returns the
// field errors, in kube-apiserver's order, and the API's warnings.
func (v *Validator) ValidateMutatingAdmissionPolicyBinding(obj, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) (field.ErrorList, []string) {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}, nil
	}
	errs := genericvalidation.ValidateObjectMeta(&obj.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	path := field.NewPath("spec")
	spec := &obj.Spec
	if spec.PolicyName == "" {
		errs = append(errs, field.Required(path.Child("policyName"), ""))
	} else {
		for _, msg := range genericvalidation.NameIsDNSSubdomain(spec.PolicyName, false) {
			errs = append(errs, field.Invalid(path.Child("policyName"), spec.PolicyName, msg))
		}
	}
	errs = append(errs, validateParamRef(spec.ParamRef, path.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(spec.MatchResources, path.Child("matchResources"))...)
	if spec.MatchResources != nil {
		errs = append(errs, validateMutatingOperations(spec.MatchResources, path.Child("matchResources"))...)
	}
	return v.staticName(obj.Name, errs, old != nil)
}
