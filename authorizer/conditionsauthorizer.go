package authorizer

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ConditionsData is the admission data a conditional decision's conditions
// are evaluated against (kube-apiserver's authorizer.ConditionsData, a
// subset of the admission attributes). Objects are in the version of Kind.
type ConditionsData struct {
	Name, Namespace string
	Resource        schema.GroupVersionResource
	Subresource     string
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation string
	// Options are the operation's options (CreateOptions, ...), if any.
	Options           runtime.Object
	DryRun            bool
	Object, OldObject runtime.Object
	Kind              schema.GroupVersionKind
	User              User
}

// ConditionsAuthorizer is an authorizer that may answer conditionally
// (kube-apiserver 1.38's conditions-aware Authorizer). *Chain implements
// it; AsConditionsAuthorizer lifts any other Authorizer.
//
// AuthorizeConditionally returns the decision for a, which may be a
// ConditionsMap or a Union to evaluate later, once the admission data is
// known; callers call Authorize or AuthorizeConditionally for a request,
// not both. EvaluateConditions evaluates a conditional decision this
// authorizer returned against data; it may only return a decision d could
// evaluate to (PossibleDecisions), and fails closed otherwise. As for
// Authorize, an error with a decision other than Allow means the caller
// should answer 500.
type ConditionsAuthorizer interface {
	Authorizer
	AuthorizeConditionally(ctx context.Context, a *Attributes) ConditionalDecision
	EvaluateConditions(ctx context.Context, d ConditionalDecision, data *ConditionsData) (Decision, string, error)
}

// ErrConditionEvaluationNotSupported is the error of an authorizer that is
// not conditions-aware when asked to evaluate conditions
// (kube-apiserver's ErrorConditionEvaluationNotSupported).
var ErrConditionEvaluationNotSupported = errors.New("condition evaluation not supported")

// AsConditionsAuthorizer returns a if it is a ConditionsAuthorizer, else a
// lifted as kube-apiserver lifts a conditions-unaware authorizer
// (AuthorizerFunc): AuthorizeConditionally is its Authorize as an
// unconditional decision, EvaluateConditions is Deny with no reason and
// ErrConditionEvaluationNotSupported.
func AsConditionsAuthorizer(a Authorizer) ConditionsAuthorizer {
	if c, ok := a.(ConditionsAuthorizer); ok {
		return c
	}
	return lifted{a}
}

type lifted struct{ Authorizer }

func (l lifted) AuthorizeConditionally(ctx context.Context, a *Attributes) ConditionalDecision {
	return UnconditionalDecision(l.Authorize(ctx, a))
}

func (lifted) EvaluateConditions(context.Context, ConditionalDecision, *ConditionsData) (Decision, string, error) {
	return DecisionDeny, "", ErrConditionEvaluationNotSupported
}
