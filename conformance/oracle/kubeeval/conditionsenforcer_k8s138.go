//go:build k8s138

package kubeeval

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/authorizer/conditionsenforcer"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/component-base/featuregate"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// conditionsEnforcer answers OpConditionsEnforcer with kube-apiserver
// 1.38's AuthorizationConditionsEnforcer plugin, its feature gate on, in a
// request context made as kube-apiserver's filters make it: the user, the
// request info (a create of pods in default), an audit context, and the
// decision of the scripted chain attached with the chain.
func conditionsEnforcer(q protocol.Query) protocol.Answer {
	u, err := scriptedUnion(q)
	if err != nil {
		return protocol.Answer{NewError: err.Error()}
	}
	var az authorizer.Authorizer = u
	if q.Evaluation != nil {
		az = overriddenEvaluation{Authorizer: u, e: *q.Evaluation}
	}

	gates := featuregate.NewFeatureGate()
	if err := gates.Add(map[featuregate.Feature]featuregate.FeatureSpec{
		genericfeatures.ConditionalAuthorization: {Default: false, PreRelease: featuregate.Alpha},
	}); err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	if err := gates.Set(string(genericfeatures.ConditionalAuthorization) + "=true"); err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	plugin := conditionsenforcer.NewConditionalAuthorizationEnforcer()
	plugin.InspectFeatureGates(gates)
	if err := plugin.ValidateInitialization(); err != nil {
		return protocol.Answer{Error: err.Error()}
	}

	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	ctx := audit.WithAuditContext(context.Background())
	ctx = request.WithUser(ctx, alice)
	ctx = request.WithRequestInfo(ctx, &request.RequestInfo{IsResourceRequest: true, Path: "/api/v1/namespaces/default/pods",
		Verb: "create", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods", Parts: []string{"pods"}})
	d := u.ConditionsAwareAuthorize(ctx, authorizer.AttributesRecord{User: alice, Verb: "create", Namespace: "default",
		APIVersion: "v1", Resource: "pods", ResourceRequest: true, Path: "/api/v1/namespaces/default/pods"})
	a := &protocol.EnforcerAnswer{Decision: d.String()}
	if !q.NoDecision {
		if ctx, err = request.WithConditionallyAuthorizedDecision(ctx, az, d); err != nil {
			return protocol.Answer{Error: err.Error()}
		}
	}
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web", "namespace": "default"}}}
	attrs := admission.NewAttributesRecord(pod, nil, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "default", "web",
		schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "", admission.Create, nil, false, alice)
	if err := plugin.Validate(ctx, attrs, nil); err != nil {
		a.HasError, a.Error = true, err.Error()
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			a.Code, a.Reason = status.Status().Code, string(status.Status().Reason)
		}
	}
	a.Annotations = audit.AuditContextFrom(ctx).GetEventAnnotations()
	return protocol.Answer{Enforcer: a}
}

// overriddenEvaluation is an authorizer whose EvaluateConditions answers
// as scripted, whatever the decision.
type overriddenEvaluation struct {
	authorizer.Authorizer
	e protocol.ScriptedEvaluation
}

func (o overriddenEvaluation) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	var err error
	if o.e.Error != "" {
		err = errors.New(o.e.Error)
	}
	return decisionNamed(o.e.Decision), o.e.Reason, err
}

// decisionNamed is the Decision a name prints as.
func decisionNamed(name string) authorizer.Decision {
	switch name {
	case "Allow":
		return authorizer.DecisionAllow
	case "NoOpinion":
		return authorizer.DecisionNoOpinion
	}
	return authorizer.DecisionDeny
}
