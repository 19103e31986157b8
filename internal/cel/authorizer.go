package cel

import (
	"context"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// Decision is an authorizer's answer to one check.
type Decision int

// The decisions, with kube-apiserver's values (k8s.io/apiserver authorizer).
const (
	// DecisionDeny means the authorizer denies the request.
	DecisionDeny Decision = iota
	// DecisionAllow means the authorizer allows the request.
	DecisionAllow
	// DecisionNoOpinion means the authorizer has no opinion.
	DecisionNoOpinion
)

// UserInfo is the user an authorization check is about.
type UserInfo struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// AuthorizationAttributes is what an Authorizer is asked about by the CEL
// Authz library: either a resource request (ResourceRequest true: APIGroup,
// APIVersion, Resource, Subresource, Namespace, Name and the selectors) or a
// non-resource request (Path).
//
// The library fills in exactly what kube-apiserver's fills in:
// authorizer.path(p).check(v) sets User, Path and Verb;
// authorizer.group(g).resource(r)...check(v) sets User, Verb, ResourceRequest,
// APIGroup, APIVersion "*", Resource, Subresource, Namespace, Name and, when
// fieldSelector/labelSelector were given a non-empty selector, the parsed
// requirements or the parse error.
type AuthorizationAttributes struct {
	// User is nil when the check is made for a request without a user.
	User *UserInfo
	Verb string

	ResourceRequest bool
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Namespace       string
	Name            string

	// FieldSelectorRequirements and FieldSelectorParsingErr are the result
	// of fields.ParseSelector on the selector given to fieldSelector().
	FieldSelectorRequirements fields.Requirements
	FieldSelectorParsingErr   error
	// LabelSelectorRequirements and LabelSelectorParsingErr are the result
	// of labels.ParseToRequirements on the selector given to labelSelector().
	LabelSelectorRequirements labels.Requirements
	LabelSelectorParsingErr   error

	Path string
}

// Authorizer answers the authorization checks of CEL expressions
// (authorizer.path(...).check(...), authorizer.group(...)...check(...)).
// It must be safe for concurrent use.
type Authorizer interface {
	Authorize(ctx context.Context, attributes *AuthorizationAttributes) (decision Decision, reason string, err error)
}
