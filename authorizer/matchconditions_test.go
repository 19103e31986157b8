package authorizer

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// kepConditions are the three match conditions of KEP-3221's example,
// corrected (request.groups, not request.user.groups).
var kepConditions = []string{
	"has(request.resourceAttributes)",
	"request.resourceAttributes.namespace == 'kube-system'",
	"!('system:serviceaccounts:kube-system' in request.groups)",
}

func TestWebhookMatchConditions(t *testing.T) {
	nonResource := &Attributes{User: &User{Name: "jane"}, Verb: "get", Path: "/healthz"}
	inKubeSystem := podGet("jane", "devs")
	inKubeSystem.Namespace = "kube-system"
	kubeSystemSA := podGet("system:serviceaccount:kube-system:x", "system:serviceaccounts", "system:serviceaccounts:kube-system")
	kubeSystemSA.Namespace = "kube-system"

	tests := []struct {
		name          string
		conditions    []string
		policy        string
		attrs         *Attributes
		wantD         Decision
		wantErr       string
		wantCalled    bool
		wantOutcome   MatchOutcome
		wantCondition string
		wantExcluded  int
		wantErrors    int
	}{
		{name: "all true: called", conditions: kepConditions, attrs: inKubeSystem, wantD: DecisionDeny, wantCalled: true, wantOutcome: MatchAll},
		{name: "other namespace: skipped", conditions: kepConditions, attrs: podGet("jane"), wantD: DecisionNoOpinion,
			wantOutcome: MatchExcluded, wantCondition: kepConditions[1], wantExcluded: 1},
		{name: "kube-system service account: skipped", conditions: kepConditions, attrs: kubeSystemSA, wantD: DecisionNoOpinion,
			wantOutcome: MatchExcluded, wantCondition: kepConditions[2], wantExcluded: 1},
		{name: "non-resource: skipped by the first", conditions: kepConditions, attrs: nonResource, wantD: DecisionNoOpinion,
			wantOutcome: MatchExcluded, wantCondition: kepConditions[0], wantExcluded: 1},
		{name: "error under NoOpinion returns the error", conditions: []string{"request.resourceAttributes.namespace == 'x'"}, policy: FailurePolicyNoOpinion,
			attrs: nonResource, wantD: DecisionNoOpinion,
			wantErr:     "cel evaluation error: expression 'request.resourceAttributes.namespace == 'x'' resulted in error: no such key: resourceAttributes",
			wantOutcome: MatchError, wantCondition: "request.resourceAttributes.namespace == 'x'", wantErrors: 1},
		{name: "error under Deny denies", conditions: []string{"request.resourceAttributes.namespace == 'x'"}, policy: FailurePolicyDeny,
			attrs: nonResource, wantD: DecisionDeny,
			wantErr:     "cel evaluation error: expression 'request.resourceAttributes.namespace == 'x'' resulted in error: no such key: resourceAttributes",
			wantOutcome: MatchError, wantCondition: "request.resourceAttributes.namespace == 'x'", wantErrors: 1},
		{name: "a later false wins over an error, which is still counted", conditions: []string{"request.resourceAttributes.name == 'x'", "request.user == 'nobody'"},
			policy: FailurePolicyDeny, attrs: nonResource, wantD: DecisionNoOpinion,
			wantOutcome: MatchExcluded, wantCondition: "request.user == 'nobody'", wantExcluded: 1, wantErrors: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(false, true, "protected"))})
			mem := metrics.NewMemory()
			w := newTestWebhook(t, kc, WebhookOptions{Name: "kube-system-protector", FailurePolicy: tt.policy, MatchConditions: tt.conditions,
				Metrics: mem, AuthorizedTTL: time.Minute, UnauthorizedTTL: time.Minute, Clock: testingclock.NewFakeClock(time.Now())})
			tr := Explain(context.Background(), w, tt.attrs)
			assert.Equal(t, tt.wantD, tr.Decision)
			if tt.wantErr == "" {
				assert.NoError(t, tr.Err)
			} else {
				assert.EqualError(t, tr.Err, tt.wantErr)
			}
			assert.Equal(t, tt.wantCalled, len(srv.Requests()) == 1)
			ws := tr.Steps[0].Webhook
			require.NotNil(t, ws)
			assert.Equal(t, tt.wantOutcome, ws.MatchConditions)
			assert.Equal(t, tt.wantCondition, ws.Condition)
			assert.Equal(t, tt.wantOutcome == MatchError, ws.FailurePolicy)
			if !tt.wantCalled {
				assert.Equal(t, CacheNotConsulted, ws.Cache, "match conditions come before the cache")
			}
			assert.Equal(t, tt.wantExcluded, counter(mem, metrics.AuthorizationMatchConditionExclusions, "Webhook", "kube-system-protector"))
			assert.Equal(t, tt.wantErrors, counter(mem, metrics.AuthorizationMatchConditionErrors, "Webhook", "kube-system-protector"))
			assert.EqualValues(t, 1, mem.HistogramOf(metrics.AuthorizationMatchConditionDuration, "Webhook", "kube-system-protector").Count)

			// Authorize gives the same answer as Explain.
			d, _, err := w.Authorize(context.Background(), tt.attrs)
			assert.Equal(t, tt.wantD, d)
			assert.Equal(t, tt.wantErr != "", err != nil)
		})
	}
}

func TestWebhookMatchConditionCompileErrors(t *testing.T) {
	_, kc := fakeWebhook(t, authorizertest.Options{})
	_, err := NewWebhook(WebhookOptions{Name: "x", SubjectAccessReviewVersion: "v1", FailurePolicy: FailurePolicyDeny, KubeConfigFile: kc,
		MatchConditions: []string{"true", "request.foo == 1", " ", "true"}})
	require.Error(t, err)
	assert.Equal(t, "[matchConditions[1].expression: Invalid value: \"request.foo == 1\": compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 1\n | .......^, "+
		"matchConditions[2].expression: Required value, matchConditions[3].expression: Duplicate value: \"true\"]", err.Error())
}
