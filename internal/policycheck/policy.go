package policycheck

import (
	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// ExprKind is the role of an expression in a policy.
type ExprKind uint8

const (
	MatchCondition ExprKind = iota
	Variable
	Validation
	MessageExpression
	AuditAnnotation
	ApplyConfiguration
	JSONPatch
)

// Expression is one CEL expression of a policy.
type Expression struct {
	Kind ExprKind
	// Field is its path in the policy: spec.validations[0].expression.
	Field string
	Text  string
	// Name is a variable's name.
	Name string
	// parsed is the expression parsed, nil if it does not parse (see
	// Check).
	parsed *cel.Ast
}

// Policy is what the checks read of a MutatingAdmissionPolicy or a
// ValidatingAdmissionPolicy (v1, defaulted).
type Policy struct {
	// Kind is MutatingAdmissionPolicy or ValidatingAdmissionPolicy.
	Kind             string
	Name             string
	MatchConstraints *admissionregistrationv1.MatchResources
	ParamKind        *admissionregistrationv1.ParamKind
	// FailurePolicyIgnore: errors admit the request.
	FailurePolicyIgnore bool
	Expressions         []Expression
	// IfNeeded: a mutating policy reinvoked when later plugins change the
	// object.
	IfNeeded bool
}

// Binding is what the checks read of a binding.
type Binding struct {
	// Kind is MutatingAdmissionPolicyBinding or
	// ValidatingAdmissionPolicyBinding.
	Kind           string
	Name           string
	PolicyName     string
	ParamRef       *admissionregistrationv1.ParamRef
	MatchResources *admissionregistrationv1.MatchResources
}

// Param is an object given as a param.
type Param struct {
	APIVersion, Kind, Namespace, Name string
}

// Input is everything one check reads: the policies and bindings of one
// engine, the objects given as params, and the kinds.
type Input struct {
	Policies []Policy
	Bindings []Binding
	// Params are the objects that can be params; nil means none was
	// given, and no params finding is made.
	Params []Param
	Kinds  *Kinds
	// CELGo026 estimates costs as cel-go 0.26 charges them (kube-apiserver
	// 1.36 and before).
	CELGo026 bool
}
