package authorizer

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// Conditional decisions, as a webhook would write them.
const (
	cdAllowOnly = `{"type":"ConditionsMap","conditionsMap":{"allowConditions":[{"id":"example.com/allow","type":"example.com/opaque"}]}}`
	cdWithDeny  = `{"type":"ConditionsMap","conditionsMap":{"denyConditions":[{"id":"example.com/deny"}],"allowConditions":[{"id":"example.com/allow"}]}}`
)

func sarBody(allowed, denied bool, conditional string) []byte {
	cd := ""
	if conditional != "" {
		cd = `,"conditionalDecision":` + conditional
	}
	return fmt.Appendf(nil, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":%t,"denied":%t,"reason":"r"%s}}`, allowed, denied, cd)
}

func targetAt(t *testing.T, v kube.Version) kube.Target {
	t.Helper()
	target, err := kube.TargetFor(v)
	require.NoError(t, err)
	return target
}

// union writes a Union decision of the members given as name, decision
// pairs.
func union(members ...string) string {
	var parts []string
	for i := 0; i+1 < len(members); i += 2 {
		parts = append(parts, fmt.Sprintf(`{"authorizerName":%q,"decision":%s}`, members[i], members[i+1]))
	}
	return `{"type":"Union","union":[` + strings.Join(parts, ",") + `]}`
}

func denyConditions(n int, id func(i int) string) string {
	var cs []string
	for i := range n {
		cs = append(cs, fmt.Sprintf(`{"id":%q}`, id(i)))
	}
	return `{"type":"ConditionsMap","conditionsMap":{"denyConditions":[` + strings.Join(cs, ",") + `]}}`
}

// An answer with a status.conditionalDecision, which gatehouse's webhooks
// never ask for: decided by allowed and denied up to 1.37, where the field
// is unknown; from 1.38 it fails closed with the decision's failure
// decision, unless the answer denies.
func TestWebhookUnrequestedConditionalDecision(t *testing.T) {
	const unrequested = "webhook subject access review returned unrequested conditional decision"
	const bothErr = "webhook subject access review returned both allow and deny response"
	type outcome struct {
		d   Decision
		err string
	}
	var (
		allow          = outcome{DecisionAllow, ""}
		deny           = outcome{DecisionDeny, ""}
		noOpinion      = outcome{DecisionNoOpinion, ""}
		failsNoOpinion = outcome{DecisionNoOpinion, unrequested}
		failsDeny      = outcome{DecisionDeny, unrequested}
	)
	valid := func(i int) string { return fmt.Sprintf("example.com/c%d", i) }
	tests := []struct {
		name            string
		allowed, denied bool
		conditional     string
		failurePolicy   string
		v137, v138      outcome
	}{
		{"allowed, allow-only conditions", true, false, cdAllowOnly, "", allow, failsNoOpinion},
		{"allowed, deny conditions", true, false, cdWithDeny, "", allow, failsDeny},
		{"no opinion, deny conditions", false, false, cdWithDeny, "", noOpinion, failsDeny},
		{"no opinion, allow-only conditions", false, false, cdAllowOnly, "", noOpinion, failsNoOpinion},
		{"denied wins over allow-only conditions", false, true, cdAllowOnly, "", deny, deny},
		{"denied wins over deny conditions", false, true, cdWithDeny, "", deny, deny},
		{"allowed and denied", true, true, cdAllowOnly, "", outcome{DecisionDeny, bothErr}, outcome{DecisionDeny, bothErr}},
		{"null is no decision", true, false, `null`, "", allow, allow},
		{"unconditional Allow", true, false, `{"type":"Allow","allow":{"reason":"x"}}`, "", allow, failsNoOpinion},
		{"unconditional Deny", true, false, `{"type":"Deny","deny":{}}`, "", allow, failsDeny},
		{"unconditional NoOpinion", true, false, `{"type":"NoOpinion","noOpinion":{}}`, "", allow, failsNoOpinion},
		{"ConditionsMap without a map", true, false, `{"type":"ConditionsMap"}`, "", allow, failsNoOpinion},
		{"only NoOpinion conditions", true, false, `{"type":"ConditionsMap","conditionsMap":{"noOpinionConditions":[{"id":"example.com/n"}]}}`, "", allow, failsNoOpinion},
		{"invalid deny condition", true, false, denyConditions(1, func(int) string { return "no-domain" }), "", allow, failsDeny},
		{"duplicate condition IDs", true, false, denyConditions(2, func(int) string { return "example.com/same" }), "", allow, failsDeny},
		{"too many conditions", true, false, denyConditions(129, valid), "", allow, failsDeny},
		{"invalid allow condition", true, false, `{"type":"ConditionsMap","conditionsMap":{"allowConditions":[{"id":"example.com/a","type":"bad type"}]}}`, "", allow, failsNoOpinion},
		{"unknown type, failurePolicy NoOpinion", true, false, `{"type":"Maybe"}`, FailurePolicyNoOpinion, allow, failsNoOpinion},
		{"unknown type, failurePolicy Deny", true, false, `{"type":"Maybe"}`, FailurePolicyDeny, allow, failsDeny},
		{"empty decision, failurePolicy Deny", true, false, `{}`, FailurePolicyDeny, allow, failsDeny},
		{"empty union", true, false, union(), "", allow, failsNoOpinion},
		{"union with deny conditions", true, false, union("a", cdAllowOnly, "b", cdWithDeny), "", allow, failsDeny},
		{"union with a nested deny condition", true, false,
			union("outer-noop", `{"type":"NoOpinion","noOpinion":{}}`, "inner-union", union("inner-cm", cdWithDeny)), "", allow, failsDeny},
		{"union without deny conditions", true, false, union("a", cdAllowOnly, "b", `{"type":"NoOpinion","noOpinion":{}}`), "", allow, failsNoOpinion},
		// Members after the first unconditional Allow or Deny do not count.
		{"union: deny conditions after an Allow", true, false, union("a", `{"type":"Allow","allow":{}}`, "b", cdWithDeny), "", allow, failsNoOpinion},
		{"union: an Allow after deny conditions", true, false, union("a", cdWithDeny, "b", `{"type":"Allow","allow":{}}`), "", allow, failsDeny},
		{"union: deny conditions after a union folded to Allow", true, false,
			union("a", union("x", `{"type":"Allow","allow":{}}`), "b", cdWithDeny), "", allow, failsNoOpinion},
		// A union with an invalid name fails closed, and is no longer an
		// unconditional Allow.
		{"union: deny conditions after an invalid union", true, false,
			union("a", union("Not_A_Name", `{"type":"Allow","allow":{}}`), "b", cdWithDeny), "", allow, failsDeny},
		{"union: duplicate names", true, false, union("a", cdAllowOnly, "a", cdAllowOnly), "", allow, failsNoOpinion},
		{"union: unknown member type, failurePolicy Deny", true, false, union("a", `{"type":"?"}`), FailurePolicyDeny, allow, failsDeny},
	}
	for _, tt := range tests {
		for _, v := range []kube.Version{kube.V1_37, kube.V1_38} {
			t.Run(v.String()+"/"+tt.name, func(t *testing.T) {
				srv, kc := fakeWebhook(t, authorizertest.Options{})
				srv.InjectAlways(authorizertest.Fault{Body: sarBody(tt.allowed, tt.denied, tt.conditional)})
				w := newTestWebhook(t, kc, WebhookOptions{FailurePolicy: tt.failurePolicy, Kube: targetAt(t, v)})
				d, reason, err := w.Authorize(context.Background(), podGet("jane"))
				want := tt.v137
				if v == kube.V1_38 {
					want = tt.v138
				}
				assert.Equal(t, want.d, d)
				assert.Equal(t, "r", reason, "the answer's reason")
				if want.err == "" {
					assert.NoError(t, err)
				} else {
					assert.EqualError(t, err, want.err)
				}
				assert.Len(t, srv.Requests(), 1, "not retried")
			})
		}
	}
}

// A conditionalDecision that is not a decision: ignored up to 1.37; from
// 1.38 the answer does not decode, and the failure policy decides.
func TestWebhookMalformedConditionalDecision(t *testing.T) {
	for _, tt := range []struct{ conditional, err string }{
		{`"yes"`, "json: cannot unmarshal string into Go struct field SubjectAccessReviewStatus.status.conditionalDecision of type v1.ConditionsAwareDecision"},
		{`{"type":5}`, "json: cannot unmarshal number into Go struct field ConditionsAwareDecision.status.conditionalDecision.type of type v1.ConditionsAwareDecisionType"},
		{`{"type":"Union","union":[{"authorizerName":5}]}`, "json: cannot unmarshal number into Go struct field NamedConditionsAwareDecision.status.conditionalDecision.union.authorizerName of type string"},
		{`{"type":"ConditionsMap","conditionsMap":{"denyConditions":{}}}`, "json: cannot unmarshal object into Go struct field ConditionsMap.status.conditionalDecision.conditionsMap.denyConditions of type []v1.Condition"},
	} {
		t.Run(tt.conditional, func(t *testing.T) {
			srv, kc := fakeWebhook(t, authorizertest.Options{})
			srv.InjectAlways(authorizertest.Fault{Body: sarBody(true, false, tt.conditional)})
			w := newTestWebhook(t, kc, WebhookOptions{Kube: targetAt(t, kube.V1_37)})
			d, _, err := w.Authorize(context.Background(), podGet("jane"))
			assert.Equal(t, DecisionAllow, d)
			assert.NoError(t, err)

			w = newTestWebhook(t, kc, WebhookOptions{FailurePolicy: FailurePolicyDeny, Kube: targetAt(t, kube.V1_38)})
			d, reason, err := w.Authorize(context.Background(), podGet("jane"))
			assert.Equal(t, DecisionDeny, d)
			assert.Empty(t, reason)
			assert.EqualError(t, err, tt.err)
		})
	}
}

// v1beta1 has no conditionalDecision, in 1.38 too.
func TestWebhookV1beta1IgnoresConditionalDecision(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.InjectAlways(authorizertest.Fault{Body: []byte(`{"apiVersion":"authorization.k8s.io/v1beta1","kind":"SubjectAccessReview","status":{"allowed":true,"conditionalDecision":` + cdWithDeny + `}}`)})
	w := newTestWebhook(t, kc, WebhookOptions{SubjectAccessReviewVersion: "v1beta1", Kube: targetAt(t, kube.V1_38)})
	d, _, err := w.Authorize(context.Background(), podGet("jane"))
	assert.Equal(t, DecisionAllow, d)
	assert.NoError(t, err)
}

// An answer with an unrequested conditional decision is cached by its
// allowed field, as any other (the TTLs of kube-apiserver's Authorize,
// which does not ask for conditions), and fails closed again from the
// cache.
func TestWebhookCachesUnrequestedConditionalDecision(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	clk := testingclock.NewFakeClock(time.Unix(1_700_000_000, 0))
	w := newTestWebhook(t, kc, WebhookOptions{AuthorizedTTL: 5 * time.Minute, UnauthorizedTTL: 30 * time.Second, Clock: clk, Kube: targetAt(t, kube.V1_38)})
	ctx := context.Background()
	requests := func() int { n := len(srv.Requests()); srv.ResetRequests(); return n }

	alice, bob := podGet("alice"), podGet("bob")
	srv.Inject(authorizertest.Fault{Body: sarBody(true, false, cdWithDeny)}, authorizertest.Fault{Body: sarBody(false, false, cdWithDeny)})
	for _, a := range []*Attributes{alice, bob} {
		d, _, err := w.Authorize(ctx, a)
		assert.Equal(t, DecisionDeny, d)
		assert.Error(t, err)
	}
	assert.Equal(t, 2, requests())
	clk.Step(time.Minute)
	for _, a := range []*Attributes{alice, bob} {
		d, reason, err := w.Authorize(ctx, a)
		if a == alice {
			assert.Equal(t, DecisionDeny, d, "alice's allowed answer is still cached")
			assert.Equal(t, "r", reason)
			assert.EqualError(t, err, "webhook subject access review returned unrequested conditional decision")
		} else {
			assert.Equal(t, DecisionNoOpinion, d, "bob's answer expired after 30 s")
			assert.NoError(t, err)
		}
	}
	assert.Equal(t, 1, requests())
}

// The trace says why an answer failed closed.
func TestExplainUnrequestedConditionalDecision(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.InjectAlways(authorizertest.Fault{Body: sarBody(true, false, cdAllowOnly)})
	w := newTestWebhook(t, kc, WebhookOptions{Kube: targetAt(t, kube.V1_38)})
	tr := Explain(context.Background(), w, podGet("jane"))
	assert.Equal(t, DecisionNoOpinion, tr.Decision)
	require.Len(t, tr.Steps, 1)
	require.NotNil(t, tr.Steps[0].Webhook)
	assert.True(t, tr.Steps[0].Webhook.UnrequestedConditional)
	assert.Contains(t, tr.String(), `NoOpinion "r" error: webhook subject access review returned unrequested conditional decision [attempt 1: success 200; unrequested conditionalDecision: failed closed]`)

	srv.InjectAlways(authorizertest.Fault{Body: sarBody(false, true, cdAllowOnly)})
	tr = Explain(context.Background(), w, podGet("jane"))
	assert.Equal(t, DecisionDeny, tr.Decision)
	assert.False(t, tr.Steps[0].Webhook.UnrequestedConditional, "denied decided")

	w = newTestWebhook(t, kc, WebhookOptions{Kube: targetAt(t, kube.V1_37)})
	srv.InjectAlways(authorizertest.Fault{Body: sarBody(true, false, cdAllowOnly)})
	tr = Explain(context.Background(), w, podGet("jane"))
	assert.Equal(t, DecisionAllow, tr.Decision)
	assert.False(t, tr.Steps[0].Webhook.UnrequestedConditional)
}

// New gives its webhooks the chain's version.
func TestNewWebhooksAnswerAsTheChainsVersion(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.InjectAlways(authorizertest.Fault{Body: sarBody(true, false, cdWithDeny)})
	cfg, err := authzconfig.Decode(fmt.Appendf(nil, `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: conditional
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: %s
`, kc))
	require.NoError(t, err)
	for _, v := range []kube.Version{kube.V1_37, kube.V1_38} {
		chain, err := New(cfg, Options{Kube: targetAt(t, v)})
		require.NoError(t, err)
		tr := Explain(context.Background(), chain, podGet("jane"))
		require.Len(t, tr.Steps, 2)
		step := tr.Steps[1]
		if v == kube.V1_38 {
			assert.Equal(t, DecisionDeny, step.Decision)
			assert.EqualError(t, step.Err, "webhook subject access review returned unrequested conditional decision")
			assert.Equal(t, DecisionDeny, tr.Decision)
		} else {
			assert.Equal(t, DecisionAllow, step.Decision)
			assert.NoError(t, step.Err)
			assert.Equal(t, DecisionAllow, tr.Decision)
		}
	}
}

// FuzzConditionalDecision checks that no answer crashes the 1.38 reading of
// status.conditionalDecision, and that it changes nothing else: the
// answer's allowed, denied and reason are read as before 1.38, and an
// answer unreadable before 1.38 is unreadable from 1.38.
func FuzzConditionalDecision(f *testing.F) {
	for _, cd := range []string{
		cdAllowOnly, cdWithDeny, `null`, `{}`, `"yes"`, `{"type":"Deny"}`, union("a", cdWithDeny, "b", `{"type":"Allow"}`),
		union("a", union("Not_A_Name", `{"type":"Allow"}`), "b", cdWithDeny), `{"type":"Union","union":[{"authorizerName":5}]}`,
		denyConditions(129, func(i int) string { return fmt.Sprint("example.com/c", i) }),
	} {
		f.Add(sarBody(true, false, cd), false)
	}
	f.Add([]byte("status:\n  allowed: true\n  conditionalDecision:\n    type: Union\n    union: [{authorizerName: a, decision: {type: Deny}}]\n"), true)
	f.Fuzz(func(t *testing.T, body []byte, denyOnError bool) {
		onError := DecisionNoOpinion
		if denyOnError {
			onError = DecisionDeny
		}
		before, errBefore := decodeReviewSlow(body, false, conditionalReading{})
		after, errAfter := decodeReviewSlow(body, false, conditionalReading{on: true, onError: onError})
		if errBefore != nil {
			if errAfter == nil {
				t.Fatalf("%q: unreadable before 1.38 (%v), readable from 1.38", body, errBefore)
			}
			return
		}
		if errAfter != nil {
			return // a malformed conditionalDecision
		}
		if before.conditional != noConditional {
			t.Fatalf("%q: a conditional decision read before 1.38", body)
		}
		after.conditional = noConditional
		if after != before {
			t.Fatalf("%q: before 1.38 %+v, from 1.38 %+v", body, before, after)
		}
	})
}
