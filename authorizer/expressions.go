package authorizer

import (
	"context"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// ForExpressions returns the authorizer of CEL expressions — the
// `authorizer` variable of admission policies and admission webhooks'
// match conditions (matchcond.Authorizer, the same type, as package mutation,
// validatingpolicy, admission and admissionmanifest take it) — that asks
// a. A check's field and label selectors become the attributes'
// requirements; a selector that did not parse is passed without its error,
// as gatehouse's attributes have no place for it (selectors only narrow a
// check).
func ForExpressions(a Authorizer) icel.Authorizer {
	return expressionAuthorizer{a}
}

type expressionAuthorizer struct{ a Authorizer }

func (e expressionAuthorizer) Authorize(ctx context.Context, c *icel.AuthorizationAttributes) (icel.Decision, string, error) {
	attrs := &Attributes{Verb: c.Verb, ResourceRequest: c.ResourceRequest, Namespace: c.Namespace, APIGroup: c.APIGroup,
		APIVersion: c.APIVersion, Resource: c.Resource, Subresource: c.Subresource, Name: c.Name, Path: c.Path}
	if u := c.User; u != nil {
		attrs.User = &User{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
	}
	for _, r := range c.FieldSelectorRequirements {
		attrs.FieldSelector = append(attrs.FieldSelector, FieldRequirement{Field: r.Field, Operator: r.Operator, Value: r.Value})
	}
	for _, r := range c.LabelSelectorRequirements {
		attrs.LabelSelector = append(attrs.LabelSelector, LabelRequirement{Key: r.Key(), Operator: r.Operator(), Values: r.ValuesUnsorted()})
	}
	d, reason, err := e.a.Authorize(ctx, attrs)
	switch d {
	case DecisionAllow:
		return icel.DecisionAllow, reason, err
	case DecisionDeny:
		return icel.DecisionDeny, reason, err
	}
	return icel.DecisionNoOpinion, reason, err
}
