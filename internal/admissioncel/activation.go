package admissioncel

import (
	"context"

	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	admissionv1 "k8s.io/api/admission/v1"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// Activation resolves the names of one evaluation of admission expressions,
// as kube-apiserver's evaluation activation does: object, oldObject,
// params, request and namespaceObject as given (request, if nil, built from
// AuthzRequest on first use: most expressions never read it), authorizer and
// authorizer.requestResource built on first use (undeclared at run time
// without an Authorizer), and variables (null when nil).
type Activation struct {
	Ctx                       context.Context
	Object, OldObject, Params any
	Request, Namespace        any
	Authorizer                icel.Authorizer
	AuthzRequest              *admissionv1.AdmissionRequest
	Variables                 *Variables
	// VariablesCost is the cost of the variables computed since it was last
	// reset: the evaluator charges it to the expression that read them.
	VariablesCost int64

	authorizer, requestResource ref.Val // built on first use
}

var _ interpreter.Activation = (*Activation)(nil)

// ResolveName implements interpreter.Activation.
func (a *Activation) ResolveName(name string) (any, bool) {
	switch name {
	case ObjectVarName:
		return a.Object, true
	case OldObjectVarName:
		return a.OldObject, true
	case ParamsVarName:
		return a.Params, true
	case RequestVarName:
		if a.Request == nil {
			a.Request = TypedToVal(a.AuthzRequest)
		}
		return a.Request, true
	case NamespaceVarName:
		return a.Namespace, true
	case AuthorizerVarName:
		if a.Authorizer == nil {
			return nil, false
		}
		if a.authorizer == nil {
			a.authorizer = icel.NewAuthorizerValue(a.Ctx, UserOf(a.AuthzRequest), a.Authorizer)
		}
		return a.authorizer, true
	case RequestResourceVarName:
		if a.Authorizer == nil {
			return nil, false
		}
		if a.requestResource == nil {
			a.requestResource = RequestResourceCheck(a.Ctx, a.Authorizer, a.AuthzRequest)
		}
		return a.requestResource, true
	case VariablesVarName:
		if a.Variables == nil {
			return nil, true
		}
		return a.Variables, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (a *Activation) Parent() interpreter.Activation { return nil }
