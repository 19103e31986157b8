package authorizer

import "github.com/gatehouse-dev/gatehouse/internal/admissionexclusion"

// ConditionsAwareRequest reports whether kube-apiserver 1.38, with the gate
// ConditionalAuthorization on and its AuthorizationConditionsEnforcer
// plugin enabled, asks its authorizers about a conditionally
// (AuthorizeConditionally) rather than plainly (Authorize): the requests
// admission sees, where the enforcer can evaluate the conditions — resource
// requests with the verbs create, update, patch, delete and
// deletecollection, on a resource admission does not exclude (the
// authentication and authorization reviews).
//
// A server that authorizes as kube-apiserver does asks the requests this
// accepts conditionally, lets through those whose decision is Allow or could
// be (PossibleDecisions), the latter to the admission chain with the
// decision (admission.Request.Authorization), and answers the others as
// Authorize's decision is answered: 500 with an error, 403 (Forbidden)
// otherwise.
func ConditionsAwareRequest(a *Attributes) bool {
	if !a.ResourceRequest || admissionexclusion.IsExcluded(a.APIGroup, a.Resource) {
		return false
	}
	switch a.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}
