package admission

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// scriptedConditions is a conditions-aware authorizer whose evaluation is
// scripted; it records the data it was given.
type scriptedConditions struct {
	authorizer.ConditionsAuthorizer
	decision authorizer.Decision
	reason   string
	err      error
	seen     []*authorizer.ConditionsData
}

func (s *scriptedConditions) EvaluateConditions(_ context.Context, _ authorizer.ConditionalDecision, data *authorizer.ConditionsData) (authorizer.Decision, string, error) {
	s.seen = append(s.seen, data)
	return s.decision, s.reason, s.err
}

func gateOn(t *testing.T) kube.Target {
	t.Helper()
	target, err := kube.TargetFor(kube.V1_38)
	require.NoError(t, err)
	target, err = target.WithFeatureGate(kube.ConditionalAuthorization, true)
	require.NoError(t, err)
	return target
}

func TestChainEnforcesConditions(t *testing.T) {
	cond := func(id string) authorizer.Condition {
		return authorizer.Condition{ID: "example.com/" + id, Condition: "object.spec.replicas < 3"}
	}
	allowIf := authorizer.ConditionsMapDecision(nil, nil, []authorizer.Condition{cond("small")})
	denyOrAllow := authorizer.ConditionsMapDecision([]authorizer.Condition{cond("big")}, nil, []authorizer.Condition{cond("small")})
	denyIf := authorizer.ConditionsMapDecision([]authorizer.Condition{cond("big")}, []authorizer.Condition{cond("odd")}, nil)
	attrs := &authorizer.Attributes{User: &authorizer.User{Name: "alice"}, Verb: "create", ResourceRequest: true, Namespace: "ns", Resource: "pods", APIVersion: "v1"}
	forbidden := func(reason string) error { return authorizer.Forbidden(attrs, reason) }
	internal := func(msg string) error { return apierrors.NewInternalError(errors.New(msg)) }
	for _, tc := range []struct {
		name string
		// off: the target's gate is off (1.38's default).
		off           bool
		authorization *Authorization
		// evaluation, when the authorizer evaluates.
		decision    authorizer.Decision
		reason      string
		err         error
		evaluated   bool
		wantErr     error
		annotations map[string]string
	}{{
		name: "gate off: not run, whatever the request carries", off: true,
		authorization: &Authorization{Decision: denyIf, Attributes: attrs},
	}, {
		name: "gate on, no decision: kube-apiserver's error", wantErr: errNoAuthorization,
	}, {
		name: "allowed unconditionally: nothing to enforce", authorization: Allowed(),
	}, {
		name:          "a Deny at admission: 500",
		authorization: &Authorization{Decision: authorizer.UnconditionalDecision(authorizer.DecisionDeny, "no", nil), Attributes: attrs},
		wantErr:       internal(`did not expect decision Deny(reason="no") to reach the admission stage, but be rejected at the authorization stage`),
		annotations:   map[string]string{AnnotationAuthorizationReason: "internal error"},
	}, {
		name:          "conditions that cannot allow: 500",
		authorization: &Authorization{Decision: denyIf, Attributes: attrs},
		wantErr:       internal(`did not expect decision ConditionsMap(denies=1, noopinions=1) to reach the admission stage, but be rejected at the authorization stage`),
		annotations:   map[string]string{AnnotationAuthorizationReason: "internal error"},
	}, {
		name: "evaluated to Allow: admitted, with the reason", authorization: &Authorization{Decision: allowIf, Attributes: attrs},
		decision: authorizer.DecisionAllow, reason: `condition "example.com/small" allowed the request`, evaluated: true,
		annotations: map[string]string{AnnotationAuthorizationDecision: "allow", AnnotationAuthorizationReason: `condition "example.com/small" allowed the request`},
	}, {
		name: "evaluated to Deny: 403 with the authorization filter's message", authorization: &Authorization{Decision: denyOrAllow, Attributes: attrs},
		decision: authorizer.DecisionDeny, reason: `condition "example.com/big" denied the request`, evaluated: true,
		wantErr:     forbidden(`condition "example.com/big" denied the request`),
		annotations: map[string]string{AnnotationAuthorizationDecision: "forbid", AnnotationAuthorizationReason: `condition "example.com/big" denied the request`},
	}, {
		name: "evaluated to NoOpinion: 403", authorization: &Authorization{Decision: allowIf, Attributes: attrs},
		decision: authorizer.DecisionNoOpinion, reason: "no conditions matched", evaluated: true,
		wantErr:     forbidden("no conditions matched"),
		annotations: map[string]string{AnnotationAuthorizationDecision: "forbid", AnnotationAuthorizationReason: "no conditions matched"},
	}, {
		name: "evaluation failed: 500", authorization: &Authorization{Decision: allowIf, Attributes: attrs},
		decision: authorizer.DecisionNoOpinion, reason: "one or more conditional evaluation errors occurred", err: errors.New("boom"), evaluated: true,
		wantErr:     internal("boom"),
		annotations: map[string]string{AnnotationAuthorizationReason: "internal error"},
	}, {
		name: "an outcome the decision could not have: fails closed, 500", authorization: &Authorization{Decision: allowIf, Attributes: attrs},
		decision: authorizer.DecisionDeny, reason: "nope", evaluated: true,
		wantErr:     internal("authorizer tried to return Deny from EvaluateConditions, but the possible outcomes were [Allow NoOpinion]"),
		annotations: map[string]string{AnnotationAuthorizationReason: "internal error"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mutation.Decode([]byte(labelPolicies))
			require.NoError(t, err)
			v, err := validatingpolicy.Decode([]byte(requirePolicies))
			require.NoError(t, err)
			target := gateOn(t)
			if tc.off {
				target, err = kube.TargetFor(kube.V1_38)
				require.NoError(t, err)
			}
			sink := metrics.NewMemory()
			c, err := New(Config{MutatingPolicies: m.Policies, MutatingPolicyBindings: m.Bindings, ValidatingPolicies: v.Policies, ValidatingPolicyBindings: v.Bindings},
				Options{Metrics: sink, Kube: target})
			require.NoError(t, err)
			az := &scriptedConditions{decision: tc.decision, reason: tc.reason, err: tc.err}
			req := podRequest(admissionv1.Create, nil)
			req.UserInfo.Username, req.UserInfo.Extra = "alice", map[string]authenticationv1.ExtraValue{"k": {"v"}}
			if tc.authorization != nil {
				a := *tc.authorization
				a.Authorizer = az
				req.Authorization = &a
			}
			res, trace, err := c.Explain(context.Background(), req)
			assert.Equal(t, tc.wantErr, err)
			// The policies' annotation comes first; the enforcer's are added.
			want := map[string]string{"require-team/team": "unknown"}
			for k, v := range tc.annotations {
				want[k] = v
			}
			assert.Equal(t, want, res.AuditAnnotations)
			if tc.off {
				assert.Nil(t, trace.Conditions)
				assert.Empty(t, az.seen)
				return
			}
			require.NotNil(t, trace.Conditions)
			assert.Equal(t, tc.wantErr, trace.Conditions.Err)
			assert.Equal(t, tc.annotations, trace.Conditions.AuditAnnotations)
			if tc.wantErr != nil {
				assert.Equal(t, PluginAuthorizationConditionsEnforcer, trace.DeniedBy)
			}
			if tc.authorization != nil {
				assert.Equal(t, tc.authorization.Decision.String(), trace.Conditions.Decision)
			}
			rejected := "false"
			if tc.wantErr != nil {
				rejected = "true"
			}
			assert.Equal(t, uint64(1), sink.HistogramOf(metrics.AdmissionControllerDuration, PluginAuthorizationConditionsEnforcer, "validate", "CREATE", rejected).Count)
			if !tc.evaluated {
				assert.Empty(t, az.seen)
				return
			}
			// The conditions are evaluated on the admitted object, after the
			// mutating policy, with the request's data.
			require.Len(t, az.seen, 1)
			data := az.seen[0]
			obj, ok := data.Object.(*unstructured.Unstructured)
			require.True(t, ok)
			assert.Equal(t, "unknown", obj.GetLabels()["team"])
			assert.Nil(t, data.OldObject, "no old object on CREATE: a nil interface")
			assert.Equal(t, "CREATE", data.Operation)
			assert.Equal(t, "pods", data.Resource.Resource)
			assert.Equal(t, "Pod", data.Kind.Kind)
			assert.Equal(t, "ns", data.Namespace)
			assert.Equal(t, authorizer.User{Name: "alice", Extra: map[string][]string{"k": {"v"}}}, data.User)
		})
	}
}

// TestChainConditionsAfterValidatingPolicies: a request the validating
// policies deny never reaches the enforcer (kube-apiserver's plugin order
// puts it after ValidatingAdmissionPolicy, to spare evaluations).
func TestChainConditionsAfterValidatingPolicies(t *testing.T) {
	m, err := mutation.Decode([]byte(labelPolicies))
	require.NoError(t, err)
	v, err := validatingpolicy.Decode([]byte(strings.Replace(requirePolicies, "[Warn]", "[Deny]", 1)))
	require.NoError(t, err)
	c, err := New(Config{MutatingPolicies: m.Policies, MutatingPolicyBindings: m.Bindings, ValidatingPolicies: v.Policies, ValidatingPolicyBindings: v.Bindings},
		Options{Kube: gateOn(t)})
	require.NoError(t, err)
	req := podRequest(admissionv1.Create, nil)
	az := &scriptedConditions{decision: authorizer.DecisionAllow}
	req.Authorization = &Authorization{Authorizer: az, Decision: authorizer.ConditionsMapDecision(nil, nil, []authorizer.Condition{{ID: "example.com/x", Condition: "c"}})}
	_, trace, err := c.Explain(context.Background(), req)
	var status apierrors.APIStatus
	require.ErrorAs(t, err, &status)
	assert.Equal(t, int32(http.StatusUnprocessableEntity), status.Status().Code)
	assert.Equal(t, metav1.StatusReasonInvalid, status.Status().Reason)
	assert.Equal(t, PluginValidatingAdmissionPolicy, trace.DeniedBy)
	assert.Nil(t, trace.Conditions)
	assert.Empty(t, az.seen)
}

// TestConditionsDenialWithoutAttributes: a denial of a request whose
// Authorization has no attributes names the request's own.
func TestConditionsDenialWithoutAttributes(t *testing.T) {
	c, err := New(Config{}, Options{Kube: gateOn(t)})
	require.NoError(t, err)
	req := podRequest(admissionv1.Create, nil)
	req.UserInfo.Username = "bob"
	req.Authorization = &Authorization{Authorizer: &scriptedConditions{decision: authorizer.DecisionNoOpinion, reason: "no conditions matched"},
		Decision: authorizer.ConditionsMapDecision(nil, nil, []authorizer.Condition{{ID: "example.com/x", Condition: "c"}})}
	_, err = c.Admit(context.Background(), req)
	require.Error(t, err)
	assert.Equal(t, `pods "p" is forbidden: User "bob" cannot create resource "pods" in API group "" in the namespace "ns": no conditions matched`, err.Error())
}
