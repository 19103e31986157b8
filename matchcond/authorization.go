package matchcond

import (
	"github.com/gatehouse-dev/gatehouse/internal/authzcond"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// The match conditions of authorization webhooks live in internal/authzcond,
// which imports nothing of admission, so that a program that only
// authorizes (package authorizer, authzconfig) does not link admission's API
// types; these names are the same types.

// MaxAuthorizationMatchConditions is the most match conditions an
// authorization webhook may have.
const MaxAuthorizationMatchConditions = authzcond.MaxAuthorizationMatchConditions

type (
	// AuthorizationCompiler compiles the match conditions of authorization
	// webhooks in kube-apiserver 1.37's environment: the base environment
	// for stored expressions and the variable `request`, of type
	// kubernetes.SubjectAccessReviewSpec (the v1 SubjectAccessReviewSpec,
	// whatever the webhook's subjectAccessReviewVersion). It is safe for
	// concurrent use; build one and compile every webhook's conditions with
	// it.
	AuthorizationCompiler = authzcond.AuthorizationCompiler
	// AuthorizationMatcher evaluates the compiled match conditions of one
	// authorization webhook. It is immutable and safe for concurrent use. A
	// nil matcher has no conditions and always matches, as a webhook
	// without matchConditions.
	AuthorizationMatcher = authzcond.AuthorizationMatcher
	// AuthorizationMatcherOptions are the instrumentation of a matcher,
	// bound once (see AuthorizationMatcher.WithOptions).
	AuthorizationMatcherOptions = authzcond.AuthorizationMatcherOptions
	// ConditionResult tells how one match condition evaluated.
	ConditionResult = authzcond.ConditionResult
)

// NewAuthorizationCompiler builds the CEL environment for authorization match
// conditions: the standard library and `request`, which checks most
// expressions. The environments of the other libraries, each with the ones
// an expression calls, are built by the first Compile that needs them: the
// whole base environment costs several times more to build than most
// servers need.
func NewAuthorizationCompiler() (*AuthorizationCompiler, error) {
	return authzcond.NewAuthorizationCompiler()
}

// NewAuthorizationCompilerFor is NewAuthorizationCompiler as kube-apiserver
// t compiles an AuthorizationConfiguration's match conditions (its
// environment for stored expressions: includes() from 1.37, cel-go 0.26's
// behaviours before; request.authorizationOptions at 1.38 with the gate
// ConditionalAuthorization on, see AuthorizationMatcher.ExplainOffering).
func NewAuthorizationCompilerFor(t kube.Target) (*AuthorizationCompiler, error) {
	return authzcond.NewAuthorizationCompilerOf(t)
}
