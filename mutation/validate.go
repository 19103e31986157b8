package mutation

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/admissionvalidation"
	"github.com/gatehouse-dev/gatehouse/internal/mutationcel"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// ValidatorOptions configure a Validator.
type ValidatorOptions struct {
	// MatchConditions compiles the policies' match conditions. Nil builds
	// one; share one with the other validators and matchers of the process
	// to build its environments once.
	MatchConditions *matchcond.AdmissionCompiler
	// Kube is the kube-apiserver whose REST API validates: its CEL
	// environments (new expressions at its compatibility version) and
	// cel-go. The zero Target is the newest release. A MatchConditions
	// given must have been built for the same Target.
	Kube kube.Target
}

// Validator validates MutatingAdmissionPolicies and their bindings
// (admissionregistration.k8s.io/v1) as kube-apiserver's REST API does on
// create and on update (pkg/apis/admissionregistration/validation of
// Kubernetes 1.37; the CEL expressions in the environments and cel-go of
// ValidatorOptions.Kube). It is immutable and safe for concurrent use.
//
// The objects must carry their defaults (Decode sets them), as
// kube-apiserver validates decoded, defaulted objects: a policy without
// failurePolicy is Required here, where the API would have defaulted it.
type Validator struct {
	kube            kube.Target
	matchConditions *matchcond.AdmissionCompiler
	// expressions returns the checker of a policy's variables and
	// mutations, or nil to check only their structure.
	expressions func(hasParams bool, stored func(string) bool) expressionChecks
}

// expressionChecks compiles a policy's variables (in order, each declared
// for the later ones) and mutations.
type expressionChecks interface {
	variable(v admissionregistrationv1.Variable, path *field.Path) *field.Error
	mutation(m admissionregistrationv1.Mutation, path *field.Path) *field.Error
}

// NewValidator prepares a Validator. The error is for a CEL environment that
// cannot be built.
func NewValidator(o ValidatorOptions) (*Validator, error) {
	mc := o.MatchConditions
	if mc == nil {
		var err error
		if mc, err = matchcond.NewAdmissionCompilerFor(o.Kube); err != nil {
			return nil, err
		}
	}
	compiler, err := mutationcel.NewCompilerFor(o.Kube)
	if err != nil {
		return nil, err
	}
	return &Validator{kube: o.Kube, matchConditions: mc, expressions: celExpressions(compiler)}, nil
}

// Validate validates obj, on create when old is nil, else on update from
// old (of the same type). obj is a *v1.MutatingAdmissionPolicy or a
// *v1.MutatingAdmissionPolicyBinding; any other type, or an old object of
// another type, is an internal error.
func (v *Validator) Validate(obj, old runtime.Object) field.ErrorList {
	wrongOld := func() field.ErrorList {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot validate an update of a %T from a %T", obj, old))}
	}
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		var oldP *admissionregistrationv1.MutatingAdmissionPolicy
		if old != nil {
			var ok bool
			if oldP, ok = old.(*admissionregistrationv1.MutatingAdmissionPolicy); !ok {
				return wrongOld()
			}
		}
		return v.ValidateMutatingAdmissionPolicy(o, oldP)
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		var oldB *admissionregistrationv1.MutatingAdmissionPolicyBinding
		if old != nil {
			var ok bool
			if oldB, ok = old.(*admissionregistrationv1.MutatingAdmissionPolicyBinding); !ok {
				return wrongOld()
			}
		}
		return v.ValidateMutatingAdmissionPolicyBinding(o, oldB)
	}
	return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot validate a %T", obj))}
}

// The values that validation accepts, sorted as kube-apiserver lists them.
var (
	mutatingOperations   = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll, admissionregistrationv1.Connect, admissionregistrationv1.Create, admissionregistrationv1.Update}
	patchTypes           = []admissionregistrationv1.PatchType{admissionregistrationv1.PatchTypeApplyConfiguration, admissionregistrationv1.PatchTypeJSONPatch}
	reinvocationPolicies = []admissionregistrationv1.ReinvocationPolicyType{admissionregistrationv1.IfNeededReinvocationPolicy, admissionregistrationv1.NeverReinvocationPolicy}
)

// ValidateMutatingAdmissionPolicy validates a MutatingAdmissionPolicy as
// kube-apiserver's REST API does: on create when old is nil, else on update
// from old. The match conditions are compiled without variables, and are
// not validated on an update that changes neither them nor the paramKind;
// variables and mutations are compiled in the environment of new
// expressions, each variable declared for the expressions after it, except
// the mutations whose expression was an ApplyConfiguration expression of
// the old policy, compiled in the environment of stored expressions. It
// returns the field errors in kube-apiserver's order.
//
// kube-apiserver's REST API also checks, when the object is otherwise
// valid, that the requesting user may read the paramKind's resource, and
// (admissionmanifest.Validator) reserves the names of static manifests:
// neither is done here.
func (v *Validator) ValidateMutatingAdmissionPolicy(obj, old *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}
	}
	errs := genericvalidation.ValidateObjectMeta(&obj.ObjectMeta, false, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return admissionvalidation.Registry(v.kube, append(errs, v.validatePolicySpec(&obj.Spec, old, field.NewPath("spec"))...), nil, old != nil && old.Generation == obj.Generation)
}

func (v *Validator) validatePolicySpec(spec *admissionregistrationv1.MutatingAdmissionPolicySpec, old *admissionregistrationv1.MutatingAdmissionPolicy, path *field.Path) field.ErrorList {
	errs := admissionvalidation.PolicyHead(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, path)
	hasParams := spec.ParamKind != nil
	if spec.MatchConstraints != nil {
		errs = append(errs, mutatingOperationErrors(spec.MatchConstraints, path.Child("matchConstraints"))...)
	}

	// What an update relaxes: the match conditions when neither they nor
	// the paramKind change, and the environment of the mutations the old
	// policy had. kube-apiserver looks a JSON Patch expression up among
	// the old ApplyConfiguration expressions (and never a variable among
	// anything), which is kept.
	var oldMatchConditions []string
	storedApply := map[string]bool{}
	ignoreMatchConditions := false
	if old != nil {
		ignoreMatchConditions = equality.Semantic.DeepEqual(spec.ParamKind, old.Spec.ParamKind) &&
			equality.Semantic.DeepEqual(spec.MatchConditions, old.Spec.MatchConditions)
		for _, mc := range old.Spec.MatchConditions {
			oldMatchConditions = append(oldMatchConditions, mc.Expression)
		}
		for _, m := range old.Spec.Mutations {
			if m.ApplyConfiguration != nil {
				storedApply[m.ApplyConfiguration.Expression] = true
			}
		}
	}
	if !ignoreMatchConditions {
		errs = append(errs, v.matchConditions.Validate(spec.MatchConditions, matchcond.AdmissionValidateOptions{HasParams: hasParams, Preexisting: oldMatchConditions}, path.Child("matchConditions"))...)
	}

	var x expressionChecks
	mutationsPhase := false
	if v.expressions != nil {
		x = v.expressions(hasParams, func(expression string) bool { return mutationsPhase && storedApply[expression] })
	}
	for i, variable := range spec.Variables {
		errs = append(errs, validateVariable(x, variable, path.Child("variables").Index(i))...)
	}
	mutationsPhase = true
	if len(spec.Mutations) == 0 {
		errs = append(errs, field.Required(path.Child("mutations"), "mutations must contain at least one item"))
	}
	for i, m := range spec.Mutations {
		errs = append(errs, validateMutation(x, m, path.Child("mutations").Index(i))...)
	}

	if spec.ReinvocationPolicy == "" {
		errs = append(errs, field.Required(path.Child("reinvocationPolicy"), ""))
	} else if !slices.Contains(reinvocationPolicies, spec.ReinvocationPolicy) {
		errs = append(errs, field.NotSupported(path.Child("reinvocationPolicy"), spec.ReinvocationPolicy, reinvocationPolicies))
	}
	return errs
}

// mutatingOperationErrors refuses the operations of the resource rules that
// a mutating admission policy never sees (DELETE, or any unknown one, which
// the rules' own validation refuses too). As in kube-apiserver, the path
// is that of the operations of all the rules, without indexes.
func mutatingOperationErrors(m *admissionregistrationv1.MatchResources, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, r := range m.ResourceRules {
		for _, op := range r.Operations {
			if !slices.Contains(mutatingOperations, op) {
				errs = append(errs, field.NotSupported(path.Child("resourceRules", "operations"), op, mutatingOperations))
			}
		}
	}
	return errs
}

func validateVariable(x expressionChecks, variable admissionregistrationv1.Variable, path *field.Path) field.ErrorList {
	return admissionvalidation.Variable(&variable, path, func() *field.Error {
		if x == nil {
			return nil
		}
		return x.variable(variable, path)
	})
}

func validateMutation(x expressionChecks, m admissionregistrationv1.Mutation, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	body := func(set bool, expression func() string, name string) {
		if !set {
			errs = append(errs, field.Required(path.Child(name), "must be specified when patchType is "+string(m.PatchType)))
			return
		}
		if strings.TrimSpace(expression()) == "" {
			errs = append(errs, field.Required(path.Child(name, "expression"), ""))
		} else if x != nil {
			if err := x.mutation(m, path); err != nil {
				errs = append(errs, err)
			}
		}
	}
	switch m.PatchType {
	case "":
		errs = append(errs, field.Required(path.Child("patchType"), ""))
	case admissionregistrationv1.PatchTypeJSONPatch:
		body(m.JSONPatch != nil, func() string { return m.JSONPatch.Expression }, "jsonPatch")
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(path.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		body(m.ApplyConfiguration != nil, func() string { return m.ApplyConfiguration.Expression }, "applyConfiguration")
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(path.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("patchType"), m.PatchType, patchTypes))
	}
	return errs
}

// ValidateMutatingAdmissionPolicyBinding validates a
// MutatingAdmissionPolicyBinding as kube-apiserver's REST API does, on
// create when old is nil, else on update (validated alike). It returns the
// field errors in kube-apiserver's order.
//
// kube-apiserver's REST API also checks, when the object is otherwise
// valid, that the requesting user may read the parameters it references:
// that needs an authorizer and is not done here. Whether policyName names
// an existing policy is not validated by the API either.
func (v *Validator) ValidateMutatingAdmissionPolicyBinding(obj, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}
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
	errs = append(errs, admissionvalidation.ParamRef(spec.ParamRef, path.Child("paramRef"))...)
	if spec.MatchResources != nil {
		errs = append(errs, admissionvalidation.MatchResources(spec.MatchResources, path.Child("matchResources"))...)
		errs = append(errs, mutatingOperationErrors(spec.MatchResources, path.Child("matchResources"))...)
	}
	return admissionvalidation.Registry(v.kube, errs, nil, old != nil && old.Generation == obj.Generation)
}
