package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// PluginAuthorizationConditionsEnforcer is the name of kube-apiserver 1.38's
// validating plugin that enforces conditional authorization decisions
// (gate ConditionalAuthorization).
const PluginAuthorizationConditionsEnforcer = "AuthorizationConditionsEnforcer"

// The audit annotations the enforcer writes, kube-apiserver's authorization
// filter's.
const (
	AnnotationAuthorizationDecision = "authorization.k8s.io/decision"
	AnnotationAuthorizationReason   = "authorization.k8s.io/reason"
)

// Authorization is what the authorization stage decided of a request, as
// kube-apiserver's authorization filter hands it to admission when the gate
// ConditionalAuthorization is on: the decision (the authorizer's
// AuthorizeConditionally), the authorizer that gave it (it evaluates the
// decision's conditions) and the request's authorization attributes (a
// denial's message names them, as kube-apiserver's 403 does; nil: made from
// the request, with the operation as the verb).
type Authorization struct {
	Authorizer authorizer.ConditionsAuthorizer
	Decision   authorizer.ConditionalDecision
	Attributes *authorizer.Attributes
}

// Allowed is the Authorization of a request the authorization stage allowed
// unconditionally, as kube-apiserver's filter records a request it
// authorized without asking for conditions: the enforcer lets it through.
func Allowed() *Authorization {
	return &Authorization{Decision: authorizer.ConditionalAllow("")}
}

// errNoAuthorization is kube-apiserver's error for a request that reaches
// the enforcer without a decision.
var errNoAuthorization = errors.New("when the ConditionalAuthorization feature gate is on, a decision must be part of the context")

// conditionsEnforcer is the AuthorizationConditionsEnforcer plugin: after
// ValidatingAdmissionPolicy (kube-apiserver's order: so that the conditions
// are evaluated only for requests the policies let through) and before the
// validating webhooks, it evaluates a conditional decision on the admitted
// object and denies what it does not allow.
//
// It returns the audit annotations it adds, and the denial: a 403 with the
// authorization filter's message when the conditions do not allow the
// request, a 500 when their evaluation failed or the decision could never
// have allowed it.
func enforceConditions(ctx context.Context, req *Request, object *unstructured.Unstructured) (map[string]string, error) {
	a := req.Authorization
	if a == nil {
		return nil, errNoAuthorization
	}
	d := a.Decision
	if u, ok := d.Unconditional(); ok && u == authorizer.DecisionAllow {
		return nil, nil
	}
	if _, ok := d.Unconditional(); ok || !possible(d, authorizer.DecisionAllow) {
		return internalErrorAnnotations(), apierrors.NewInternalError(fmt.Errorf("did not expect decision %s to reach the admission stage, but be rejected at the authorization stage", d.String()))
	}
	if a.Authorizer == nil {
		return internalErrorAnnotations(), apierrors.NewInternalError(errors.New("a conditional decision without the authorizer that gave it"))
	}
	data := conditionsData(req, object)
	decision, reason, err := a.Authorizer.EvaluateConditions(ctx, d, data)
	if !possible(d, decision) {
		decision, reason, err = authorizer.DecisionDeny, "failed closed",
			fmt.Errorf("authorizer tried to return %s from EvaluateConditions, but the possible outcomes were %v", decision, d.PossibleDecisions())
	}
	if decision == authorizer.DecisionAllow {
		return map[string]string{AnnotationAuthorizationDecision: "allow", AnnotationAuthorizationReason: reason}, nil
	}
	if err != nil {
		return internalErrorAnnotations(), apierrors.NewInternalError(err)
	}
	attrs := a.Attributes
	if attrs == nil {
		attrs = attributesOf(req)
	}
	return map[string]string{AnnotationAuthorizationDecision: "forbid", AnnotationAuthorizationReason: reason}, authorizer.Forbidden(attrs, reason)
}

// attributesOf are the authorization attributes of a request whose
// Authorization has none, for a denial's message: its user, its resource,
// and the operation's verb in lower case (a PATCH reads "update").
func attributesOf(req *Request) *authorizer.Attributes {
	return &authorizer.Attributes{
		User: &authorizer.User{Name: req.UserInfo.Username}, Verb: strings.ToLower(string(req.Operation)), ResourceRequest: true,
		Namespace: req.Namespace, APIGroup: req.Resource.Group, APIVersion: req.Resource.Version, Resource: req.Resource.Resource,
		Subresource: req.SubResource, Name: req.Name,
	}
}

func internalErrorAnnotations() map[string]string {
	return map[string]string{AnnotationAuthorizationReason: "internal error"}
}

func possible(d authorizer.ConditionalDecision, want authorizer.Decision) bool {
	for _, p := range d.PossibleDecisions() {
		if p == want {
			return true
		}
	}
	return false
}

// conditionsData is the admission data of a request, with the admitted
// object: what kube-apiserver gives the authorizer's EvaluateConditions.
func conditionsData(req *Request, object *unstructured.Unstructured) *authorizer.ConditionsData {
	data := &authorizer.ConditionsData{
		Name: req.Name, Namespace: req.Namespace, Resource: req.Resource, Subresource: req.SubResource,
		Operation: string(req.Operation), Options: req.Options, DryRun: req.DryRun, Kind: req.Kind,
		User: authorizer.User{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups},
	}
	if len(req.UserInfo.Extra) > 0 {
		data.User.Extra = make(map[string][]string, len(req.UserInfo.Extra))
		for k, v := range req.UserInfo.Extra {
			data.User.Extra[k] = v
		}
	}
	// A nil *Unstructured in a runtime.Object would not be nil.
	if object != nil {
		data.Object = object
	}
	if req.OldObject != nil {
		data.OldObject = req.OldObject
	}
	return data
}

// ConditionsTrace is what the AuthorizationConditionsEnforcer did to one
// request, for Explain.
type ConditionsTrace struct {
	// Decision is the authorization stage's decision it enforced (its
	// String(), kube-apiserver's text), "" when the request had none.
	Decision string
	// AuditAnnotations are the annotations it added.
	AuditAnnotations map[string]string
	// Err is its denial, or nil.
	Err error
}

// conditionsPlugin runs the AuthorizationConditionsEnforcer, when the
// target's gate is on, on the admitted object.
func (c *Chain) conditionsPlugin(ctx context.Context, req *Request, object *unstructured.Unstructured, res *Result, t *Trace) error {
	if !c.enforcesConditions {
		return nil
	}
	start := c.clock.Now()
	annotations, err := enforceConditions(ctx, req, object)
	c.observePlugin(PluginAuthorizationConditionsEnforcer, "validate", string(req.Operation), c.clock.Since(start), err)
	for k, v := range annotations {
		addAnnotation(&res.AuditAnnotations, k, v)
	}
	if t != nil {
		t.Conditions = &ConditionsTrace{AuditAnnotations: annotations, Err: err}
		if req.Authorization != nil {
			t.Conditions.Decision = req.Authorization.Decision.String()
		}
		if err != nil {
			t.DeniedBy = PluginAuthorizationConditionsEnforcer
		}
	}
	return err
}
