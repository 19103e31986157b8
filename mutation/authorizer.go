package mutation

import "github.com/gatehouse-dev/gatehouse/matchcond"

// The authorizer behind the expressions' authorizer and
// authorizer.requestResource variables (Options.Authorizer): the same types
// as matchcond's, re-exported so that a caller implements one without
// importing matchcond. package authorizer's ForExpressions adapts an
// authorizer chain to it.
type (
	// Authorizer answers the authorization checks of admission
	// expressions (authorizer.path(...).check(...),
	// authorizer.group(...).resource(...)...check(...)). It must be safe
	// for concurrent use.
	Authorizer = matchcond.Authorizer
	// AuthorizationAttributes is what an Authorizer is asked about.
	AuthorizationAttributes = matchcond.AuthorizationAttributes
	// UserInfo is the user an authorization check is about: the requesting
	// user of the admission request.
	UserInfo = matchcond.UserInfo
	// Decision is an Authorizer's answer.
	Decision = matchcond.Decision
)

// The decisions of an Authorizer.
const (
	DecisionDeny      = matchcond.DecisionDeny
	DecisionAllow     = matchcond.DecisionAllow
	DecisionNoOpinion = matchcond.DecisionNoOpinion
)
