package conformance

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// enforcerCases is the number of generated requests
// TestConditionsEnforcerMatchesKubeAPIServer compares.
const enforcerCases = 3000

// TestConditionsEnforcerMatchesKubeAPIServer compares the admission chain's
// AuthorizationConditionsEnforcer (gate ConditionalAuthorization on) with
// kube-apiserver 1.38's plugin (the conditionsenforcer op of the 1.38
// oracle): a CREATE of a pod authorized by a generated chain of scripted
// conditional authorizers (TestConditionalAuthorizationMatchesKubeAPIServer's
// generator: unconditional, ConditionsMap and Union decisions, condition
// results true, false, error or unevaluatable), its decision attached to the
// request; some requests without a decision, some whose authorizer answers
// EvaluateConditions with a scripted outcome, possible or not. The denial
// (text, code, reason) and the audit annotations must be the same.
func TestConditionsEnforcerMatchesKubeAPIServer(t *testing.T) {
	oracles := startOraclesOf(t, []string{"1.38"})
	o := oracles[0]
	target, err := targetOf(t, o).WithFeatureGate(kube.ConditionalAuthorization, true)
	require.NoError(t, err)
	chain, err := admission.New(admission.Config{}, admission.Options{Kube: target})
	require.NoError(t, err)
	n := enforcerCases
	if testing.Short() {
		n /= 10
	}
	g := conditionalGen{r: rand.New(rand.NewPCG(5681, 1381))}
	outcomes := map[string]int{}
	differ := 0
	for i := range n {
		q := g.query()
		q.Op = protocol.OpConditionsEnforcer
		switch g.r.IntN(20) {
		case 0:
			q.NoDecision = true
		case 1, 2, 3:
			q.Evaluation = &protocol.ScriptedEvaluation{Decision: []string{"Allow", "Deny", "NoOpinion"}[g.r.IntN(3)],
				Reason: g.text("scripted"), Error: g.text("scripted error")}
		}
		want, err := o.Eval(q)
		require.NoError(t, err)
		require.Empty(t, want.Error, "case %d", i)
		got := gatehouseEnforcerAnswer(t, target, chain, q)
		if want.Enforcer != nil {
			switch {
			case !want.Enforcer.HasError:
				outcomes["admitted"]++
			case want.Enforcer.Code == 403:
				outcomes["forbidden"]++
			default:
				outcomes["error"]++
			}
		}
		if !assert.Equal(t, want, got, "case %d: %+v", i, q) {
			differ++
			if differ >= 10 {
				t.Fatalf("stopping after %d differences", differ)
			}
		}
	}
	t.Logf("%d requests compared (%v), %d differences", n, outcomes, differ)
	for _, k := range []string{"admitted", "forbidden", "error"} {
		assert.Greater(t, outcomes[k], n/20, "the generator reaches %s", k)
	}
}

func gatehouseEnforcerAnswer(t *testing.T, target kube.Target, chain *admission.Chain, q protocol.Query) protocol.Answer {
	t.Helper()
	az, err := ourConditionalChain(target, q)
	if err != nil {
		return protocol.Answer{NewError: err.Error()}
	}
	alice := &authorizer.User{Name: "alice", Groups: []string{"system:authenticated"}}
	attrs := &authorizer.Attributes{User: alice, Verb: "create", Namespace: "default", APIVersion: "v1", Resource: "pods",
		ResourceRequest: true, Path: "/api/v1/namespaces/default/pods"}
	ctx := context.Background()
	d := az.AuthorizeConditionally(ctx, attrs)
	a := &protocol.EnforcerAnswer{Decision: d.String()}
	req := &admission.Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: "web", Namespace: "default",
		UserInfo: authenticationv1.UserInfo{Username: alice.Name, Groups: alice.Groups},
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "web", "namespace": "default"}}}}
	if !q.NoDecision {
		var evaluator authorizer.ConditionsAuthorizer = az
		if q.Evaluation != nil {
			evaluator = scriptedEvaluation{ConditionsAuthorizer: az, e: *q.Evaluation}
		}
		req.Authorization = &admission.Authorization{Authorizer: evaluator, Decision: d, Attributes: attrs}
	}
	res, err := chain.Admit(ctx, req)
	if err != nil {
		a.HasError, a.Error = true, err.Error()
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			a.Code, a.Reason = status.Status().Code, string(status.Status().Reason)
		}
	}
	if len(res.AuditAnnotations) > 0 {
		a.Annotations = res.AuditAnnotations
	}
	return protocol.Answer{Enforcer: a}
}

// scriptedEvaluation answers EvaluateConditions as scripted, as the
// oracle's overriddenEvaluation.
type scriptedEvaluation struct {
	authorizer.ConditionsAuthorizer
	e protocol.ScriptedEvaluation
}

func (s scriptedEvaluation) EvaluateConditions(context.Context, authorizer.ConditionalDecision, *authorizer.ConditionsData) (authorizer.Decision, string, error) {
	var err error
	if s.e.Error != "" {
		err = errors.New(s.e.Error)
	}
	d := authorizer.DecisionDeny
	switch s.e.Decision {
	case "Allow":
		d = authorizer.DecisionAllow
	case "NoOpinion":
		d = authorizer.DecisionNoOpinion
	}
	return d, s.e.Reason, err
}
