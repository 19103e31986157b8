package authorizer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/kube"
)

func conditionalTarget(t *testing.T) kube.Target {
	t.Helper()
	target, err := targetAt(t, kube.V1_38).WithFeatureGate(kube.ConditionalAuthorization, true)
	require.NoError(t, err)
	return target
}

// statusBody is a v1 answer with this status JSON.
func statusBody(status string) []byte {
	return []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":` + status + `}`)
}

// conditionalWebhook is a webhook at 1.38 with the gate on whose fake
// server answers reviews with sar and conditions reviews with acr (given
// the request); offer says whether it has a conditions review.
func conditionalWebhook(t *testing.T, offer bool, sar func() []byte, acr func(req map[string]any) []byte, opts WebhookOptions) (*Webhook, *authorizertest.Server) {
	t.Helper()
	srv, kc := fakeWebhook(t, authorizertest.Options{Answer: func(body []byte) []byte {
		if bytes.Contains(body, []byte(`"kind":"AuthorizationConditionsReview"`)) {
			var req map[string]any
			if err := json.Unmarshal(body, &req); err != nil || acr == nil {
				return []byte("not json")
			}
			return acr(req)
		}
		if sar == nil {
			return nil
		}
		return sar()
	}})
	opts.Kube = conditionalTarget(t)
	if offer {
		opts.ConditionsReview = &WebhookConditionsReview{Version: "v1alpha1"}
	}
	return newTestWebhook(t, kc, opts), srv
}

func TestWebhookAuthorizeConditionally(t *testing.T) {
	const cm = `{"type":"ConditionsMap","conditionsMap":{"denyConditions":[{"id":"example.com/d"}],"allowConditions":[{"id":"example.com/a"}]}}`
	tests := []struct {
		name   string
		offer  bool
		status string
		user   *User
		want   string
	}{
		{"allowed", true, `{"allowed":true,"reason":"yes","evaluationError":"partly"}`, nil, `Allow(reason="yes", err="partly")`},
		{"denied", true, `{"denied":true,"reason":"no"}`, nil, `Deny(reason="no")`},
		{"no opinion", true, `{"reason":"pass"}`, nil, `NoOpinion(reason="pass")`},
		{"allowed and denied", true, `{"allowed":true,"denied":true,"reason":"both"}`, nil,
			`Deny(reason="both", err="webhook subject access review returned both allow and deny response")`},
		{"conditions map", true, `{"allowed":false,"conditionalDecision":` + cm + `}`, nil, "ConditionsMap(denies=1, allows=1)"},
		{"union folded by the constructors", true, `{"allowed":false,"conditionalDecision":` +
			union("a", `{"type":"ConditionsMap","conditionsMap":{"allowConditions":[{"id":"example.com/a"}]}}`, "b", `{"type":"Allow","allow":{"reason":"ok"}}`) + `}`,
			nil, `Allow(reason="b: {ok}")`},
		{"conditional with reason and allowed", true, `{"allowed":true,"reason":"r","conditionalDecision":` + cm + `}`, nil,
			`NoOpinion(reason="failed closed", err="[status.allowed: Forbidden: must be false when status.conditionalDecision.type=ConditionsMap, status.reason: Forbidden: must be empty when status.conditionalDecision.type=ConditionsMap]")`},
		{"unconditional type", true, `{"allowed":false,"conditionalDecision":{"type":"Allow","allow":{}}}`, nil,
			`NoOpinion(reason="failed closed", err="status.conditionalDecision.type: Invalid value: \"Allow\": cannot be one of [Allow, Deny, NoOpinion], these decisions must be expressed using status.allowed and status.denied")`},
		{"member missing", true, `{"allowed":false,"conditionalDecision":{"type":"ConditionsMap","allow":{}}}`, nil,
			"NoOpinion(reason=\"failed closed\", err=\"[status.conditionalDecision.allow: Invalid value: \\\"\\\": may only be specified when `type` is \\\"Allow\\\", status.conditionalDecision.conditionsMap: Invalid value: \\\"\\\": must be specified when `type` is \\\"ConditionsMap\\\"]\")"},
		{"unknown type", true, `{"allowed":false,"conditionalDecision":{"type":"Maybe"}}`, nil,
			`NoOpinion(reason="failed closed", err="status.conditionalDecision.type: Unsupported value: \"Maybe\": supported values: \"Allow\", \"ConditionsMap\", \"Deny\", \"NoOpinion\", \"Union\"")`},
		{"bad conditions", true, `{"allowed":false,"conditionalDecision":{"type":"ConditionsMap","conditionsMap":{"allowConditions":[{"id":"example.com/a"},{"id":"example.com/a","description":"again"},{"id":""}]}}}`, nil,
			`NoOpinion(reason="failed closed", err="[status.conditionalDecision.conditionsMap.allowConditions[1]: Duplicate value: {\"id\":\"example.com/a\",\"description\":\"again\"}, status.conditionalDecision.conditionsMap.allowConditions[2].id: Required value]")`},
		{"bad union names", true, `{"allowed":false,"conditionalDecision":` + union("x", cm, "x", cm, "Y", cm) + `}`, nil,
			`NoOpinion(reason="failed closed", err="[status.conditionalDecision.union[1]: Duplicate value: {\"authorizerName\":\"x\",\"decision\":{\"type\":\"ConditionsMap\",\"conditionsMap\":{\"denyConditions\":[{\"id\":\"example.com/d\"}],\"allowConditions\":[{\"id\":\"example.com/a\"}]}}}, status.conditionalDecision.union[2].authorizerName: Invalid value: \"Y\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]")`},
		{"no user nor groups", true, `{"allowed":true}`, &User{UID: "u"},
			`NoOpinion(reason="failed closed", err="spec.user: Invalid value: \"\": at least one of user or group must be specified")`},
		{"unoffered conditional decision", false, `{"allowed":false,"conditionalDecision":` + cm + `}`, nil,
			`NoOpinion(reason="failed closed", err="status.conditionalDecision: Forbidden: can only be set when the client opted into conditions-awareness")`},
		{"unoffered, evaluation error kept", false, `{"reason":"r","evaluationError":"e"}`, nil, `NoOpinion(reason="r", err="e")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, srv := conditionalWebhook(t, tt.offer, func() []byte { return statusBody(tt.status) }, nil, WebhookOptions{})
			a := podGet("jane")
			if tt.user != nil {
				a.User = tt.user
			}
			d := w.AuthorizeConditionally(context.Background(), a)
			assert.Equal(t, tt.want, d.String())
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, tt.offer, bytes.Contains(reqs[0].Body,
				[]byte(`,"authorizationOptions":{"handledDecisionTypes":["Allow","ConditionsMap","Deny","NoOpinion","Union"]}},"status":{"allowed":false}}`)),
				"authorizationOptions closes the spec: %s", reqs[0].Body)
		})
	}
}

// Before 1.38, or with the gate off, AuthorizeConditionally is Authorize,
// and EvaluateConditions is not supported before 1.38.
func TestWebhookConditionallyWithoutTheGate(t *testing.T) {
	for _, v := range []kube.Version{kube.V1_37, kube.V1_38} {
		t.Run(v.String(), func(t *testing.T) {
			srv, kc := fakeWebhook(t, authorizertest.Options{})
			srv.InjectAlways(authorizertest.Fault{Body: statusBody(`{"allowed":true,"reason":"yes","evaluationError":"ignored"}`)})
			w := newTestWebhook(t, kc, WebhookOptions{Kube: targetAt(t, v), ConditionsReview: &WebhookConditionsReview{Version: "v1alpha1"}})
			assert.Equal(t, `Allow(reason="yes")`, w.AuthorizeConditionally(context.Background(), podGet("jane")).String())
			assert.NotContains(t, string(srv.Requests()[0].Body), "authorizationOptions")
			d, reason, err := w.EvaluateConditions(context.Background(), ConditionsMapDecision(conds("d"), nil, nil), &ConditionsData{})
			assert.Equal(t, DecisionDeny, d)
			if v == kube.V1_37 {
				assert.Empty(t, reason)
				assert.ErrorIs(t, err, ErrConditionEvaluationNotSupported)
			} else {
				assert.Equal(t, "failed closed", reason)
				assert.EqualError(t, err, "no authorization conditions review client configured for the webhook authorizer, cannot evaluate conditions")
			}
		})
	}
}

// A conditional answer is cached with the authorized TTL, apart from
// Authorize's entries.
func TestWebhookConditionalCache(t *testing.T) {
	const cm = `{"type":"ConditionsMap","conditionsMap":{"allowConditions":[{"id":"example.com/a"}]}}`
	w, srv := conditionalWebhook(t, true, func() []byte { return statusBody(`{"allowed":false,"conditionalDecision":` + cm + `}`) }, nil,
		WebhookOptions{AuthorizedTTL: time.Minute})
	for range 3 {
		assert.Equal(t, "ConditionsMap(allows=1)", w.AuthorizeConditionally(context.Background(), podGet("jane")).String())
	}
	assert.Len(t, srv.Requests(), 1, "cached")
	// Authorize has its own entries (and fails closed on the unrequested
	// decision).
	d, _, err := w.Authorize(context.Background(), podGet("jane"))
	assert.Equal(t, DecisionNoOpinion, d)
	assert.Error(t, err)
	assert.Len(t, srv.Requests(), 2)

	// With no unauthorized TTL, an unconditional no opinion is not kept.
	w, srv = conditionalWebhook(t, true, func() []byte { return statusBody(`{"allowed":false}`) }, nil, WebhookOptions{AuthorizedTTL: time.Minute})
	w.AuthorizeConditionally(context.Background(), podGet("jane"))
	w.AuthorizeConditionally(context.Background(), podGet("jane"))
	assert.Len(t, srv.Requests(), 2)
}

// acrAnswer answers a conditions review with decision, echoing the uid
// (or the one given).
func acrAnswer(decision string, uid string) func(req map[string]any) []byte {
	return func(req map[string]any) []byte {
		if uid == "" {
			uid = req["request"].(map[string]any)["admissionRequest"].(map[string]any)["uid"].(string)
		}
		return fmt.Appendf(nil, `{"apiVersion":"authorization.k8s.io/v1alpha1","kind":"AuthorizationConditionsReview","response":{"uid":%q,"decision":%s}}`, uid, decision)
	}
}

func TestWebhookEvaluateConditions(t *testing.T) {
	cm := ConditionsMapDecision(nil, nil, []Condition{{ID: "example.com/a", Condition: "object.x == 1", Type: "example.com/cel", Description: "x is one"}})
	withDeny := ConditionsMapDecision(conds("d"), nil, conds("a"))
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	data := &ConditionsData{
		Name: "web", Namespace: "default", Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Operation: "CREATE", Object: pod, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		User: User{Name: "jane", Groups: []string{"dev"}},
	}
	type result struct {
		d      Decision
		reason string
		err    string
	}
	tests := []struct {
		name   string
		d      ConditionalDecision
		data   *ConditionsData
		answer func(map[string]any) []byte
		want   result
	}{
		{"allow", cm, data, acrAnswer(`{"type":"Allow","allow":{"reason":"x is one","evaluationError":"meh"}}`, ""), result{DecisionAllow, "x is one", "meh"}},
		{"no opinion without details", cm, data, acrAnswer(`{"type":"NoOpinion","noOpinion":{}}`, ""), result{DecisionNoOpinion, "", ""}},
		{"deny not possible", cm, data, acrAnswer(`{"type":"Deny","deny":{}}`, ""),
			result{DecisionNoOpinion, "failed closed", "webhook authorizer tried to return Deny from EvaluateConditions, but the possible outcomes were [Allow NoOpinion]"}},
		{"deny possible", withDeny, data, acrAnswer(`{"type":"Deny","deny":{"reason":"no"}}`, ""), result{DecisionDeny, "no", ""}},
		{"uid mismatch", withDeny, data, acrAnswer(`{"type":"Allow","allow":{}}`, "other"),
			result{DecisionDeny, "failed closed", `response.uid: Invalid value: "other": mismatch, expected "00000000-0000-4000-8000-000000000001" that was given in request.admissionRequest.uid`}},
		{"no response", withDeny, data, func(map[string]any) []byte {
			return []byte(`{"apiVersion":"authorization.k8s.io/v1alpha1","kind":"AuthorizationConditionsReview"}`)
		}, result{DecisionDeny, "failed closed", "response: Required value: must be set in AuthorizationConditionsReview responses"}},
		{"conditional answer", withDeny, data, acrAnswer(`{"type":"ConditionsMap","conditionsMap":{"allowConditions":[{"id":"example.com/a"}]}}`, ""),
			result{DecisionDeny, "failed closed", `response.decision.type: Invalid value: "ConditionsMap": currently must evaluate to an unconditional decision`}},
		{"metadata and no uid", withDeny, data, func(map[string]any) []byte {
			return []byte(`{"apiVersion":"authorization.k8s.io/v1alpha1","kind":"AuthorizationConditionsReview","metadata":{"name":"x"},"response":{"decision":{"type":"Allow"}}}`)
		}, result{DecisionDeny, "failed closed", "[metadata: Invalid value: {\"name\":\"x\"}: must be empty, response.uid: Required value, response.decision.allow: Invalid value: \"\": must be specified when `type` is \"Allow\"]"}},
		{"wrong kind", withDeny, data, func(map[string]any) []byte {
			return []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview"}`)
		}, result{DecisionDeny, "failed closed", "converting (v1.SubjectAccessReview) to (v1alpha1.AuthorizationConditionsReview): unknown conversion"}},
		{"unconditional", ConditionalAllow("x"), data, nil, result{DecisionNoOpinion, "failed closed", "got unconditional decisionToEvaluate in EvaluateConditions"}},
		{"no data", withDeny, nil, nil, result{DecisionDeny, "failed closed", "data must be non-nil in EvaluateConditions"}},
		{"object without kind", withDeny, &ConditionsData{Object: &corev1.Pod{}}, nil,
			result{DecisionDeny, "failed closed", "object of type *v1.Pod must have apiVersion and kind set to be sent to the webhook authorizer"}},
		{"typed nil object", cm, &ConditionsData{Object: (*corev1.Pod)(nil), OldObject: pod}, acrAnswer(`{"type":"Allow","allow":{}}`, ""), result{DecisionAllow, "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, srv := conditionalWebhook(t, true, nil, tt.answer, WebhookOptions{})
			w.newUID = func() types.UID { return "00000000-0000-4000-8000-000000000001" }
			d, reason, err := w.EvaluateConditions(context.Background(), tt.d, tt.data)
			assert.Equal(t, tt.want.d, d)
			assert.Equal(t, tt.want.reason, reason)
			if tt.want.err == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.want.err)
			}
			if tt.answer == nil {
				assert.Empty(t, srv.Requests())
			}
		})
	}
}

// The AuthorizationConditionsReview as kube-apiserver encodes it.
func TestConditionsReviewBody(t *testing.T) {
	d := ConditionalUnion(
		ConditionalMember{"a", UnconditionalDecision(DecisionNoOpinion, "skip", nil)},
		ConditionalMember{"b", ConditionsMapDecision([]Condition{{ID: "example.com/d", Description: "<no>"}}, nil, conds("a"))})
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	data := &ConditionsData{
		Name: "web", Namespace: "default", Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Subresource: "status",
		Operation: "UPDATE", Object: pod, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, DryRun: true,
		Options: &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}},
		User:    User{Name: "jane", UID: "u1", Groups: []string{"dev"}, Extra: map[string][]string{"k": {"v"}}},
	}
	body, err := conditionsReviewBody(d, data, "uid-1")
	require.NoError(t, err)
	assert.Equal(t, `{"kind":"AuthorizationConditionsReview","apiVersion":"authorization.k8s.io/v1alpha1","metadata":{},"request":{"decision":{"type":"Union","union":[`+
		`{"authorizerName":"a","decision":{"type":"NoOpinion","noOpinion":{"reason":"skip"}}},`+
		`{"authorizerName":"b","decision":{"type":"ConditionsMap","conditionsMap":{"denyConditions":[{"id":"example.com/d","description":"\u003cno\u003e"}],"allowConditions":[{"id":"example.com/a"}]}}}]},`+
		`"admissionRequest":{"uid":"uid-1","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"subResource":"status",`+
		`"requestKind":{"group":"","version":"v1","kind":"Pod"},"requestResource":{"group":"","version":"v1","resource":"pods"},"requestSubResource":"status",`+
		`"name":"web","namespace":"default","operation":"UPDATE","userInfo":{"username":"jane","uid":"u1","groups":["dev"],"extra":{"k":["v"]}},`+
		`"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web"},"spec":{"containers":null},"status":{}},"oldObject":null,"dryRun":true,`+
		`"options":{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1"}}}}`+"\n", string(body))
}

// A chain built from a configuration asks its webhook conditionally and
// has it evaluate its conditions, through the decision metrics wrapper;
// the conditions review goes to the kubeconfig context named.
func TestChainConditionalWebhook(t *testing.T) {
	sar, err := authorizertest.NewServer(authorizertest.Options{Plain: true, Answer: func([]byte) []byte {
		return statusBody(`{"allowed":false,"conditionalDecision":{"type":"ConditionsMap","conditionsMap":{"allowConditions":[{"id":"example.com/a"}]}}}`)
	}})
	require.NoError(t, err)
	t.Cleanup(sar.Close)
	acr, err := authorizertest.NewServer(authorizertest.Options{Plain: true, Path: "/conditions", Answer: func(body []byte) []byte {
		var req map[string]any
		require.NoError(t, json.Unmarshal(body, &req))
		return acrAnswer(`{"type":"Allow","allow":{"reason":"a holds"}}`, "")(req)
	}})
	require.NoError(t, err)
	t.Cleanup(acr.Close)
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kc, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- {name: sar, cluster: {server: %q}}
- {name: acr, cluster: {server: %q}}
users:
- {name: apiserver, user: {}}
contexts:
- {name: sar, context: {cluster: sar, user: apiserver}}
- {name: conditions, context: {cluster: acr, user: apiserver}}
current-context: sar
`, sar.URL(), acr.URL()), 0o600))
	cfgYAML := fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: policy.example.com
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: %q}
    conditionsReview: {version: v1alpha1, kubeConfigContextName: conditions}
- type: AlwaysDeny
  name: deny
`, kc)
	target := conditionalTarget(t)
	cfg, err := authzconfig.DecodeFor(target, []byte(cfgYAML))
	require.NoError(t, err)
	c, err := New(cfg, Options{Kube: target})
	require.NoError(t, err)
	d := c.AuthorizeConditionally(context.Background(), podGet("jane"))
	assert.Equal(t, `Union[system-privileged-group.authorizer.kubernetes.io: NoOpinion, policy.example.com: ConditionsMap(allows=1), deny: NoOpinion(reason="Everything is forbidden.")]`, d.String())
	x, reason, err := c.EvaluateConditions(context.Background(), d, &ConditionsData{Operation: "CREATE"})
	assert.Equal(t, DecisionAllow, x)
	assert.Equal(t, "a holds", reason)
	assert.NoError(t, err)
	require.Len(t, acr.Requests(), 1)
	assert.Equal(t, "/conditions", acr.Requests()[0].Path)

	// Explained: the conditional answers (the webhook's from its cache
	// now), then what evaluating them decided.
	trace, d2 := ExplainConditionally(context.Background(), c, podGet("jane"))
	assert.Equal(t, d.String(), d2.String())
	assert.Equal(t, "conditional "+d.String()+` -> NoOpinion
  system-privileged-group.authorizer.kubernetes.io: conditional NoOpinion -> NoOpinion
  policy.example.com (Webhook): conditional ConditionsMap(allows=1) -> NoOpinion [cache: hit]
  deny (AlwaysDeny): conditional NoOpinion(reason="Everything is forbidden.") -> NoOpinion "Everything is forbidden."`, trace.String())
	trace = ExplainEvaluation(context.Background(), c, d, &ConditionsData{Operation: "CREATE"})
	assert.Equal(t, "conditional "+d.String()+` -> Allow "a holds"
  system-privileged-group.authorizer.kubernetes.io: conditional NoOpinion -> NoOpinion
  policy.example.com (Webhook): conditional ConditionsMap(allows=1) -> Allow "a holds" [attempt 1: success 200]`, trace.String())
	assert.Len(t, acr.Requests(), 2)
	assert.True(t, strings.Contains(string(acr.Requests()[0].Body), `"decision":{"type":"ConditionsMap"`))
}

// A v1beta1 webhook cannot offer conditions: its review has no
// authorizationOptions, and its answer no conditionalDecision.
func TestWebhookConditionallyV1beta1(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.InjectAlways(authorizertest.Fault{Body: []byte(`{"apiVersion":"authorization.k8s.io/v1beta1","kind":"SubjectAccessReview","status":{"allowed":true,"evaluationError":"e","conditionalDecision":{"type":"Maybe"}}}`)})
	w := newTestWebhook(t, kc, WebhookOptions{SubjectAccessReviewVersion: "v1beta1", Kube: conditionalTarget(t), ConditionsReview: &WebhookConditionsReview{Version: "v1alpha1"}})
	assert.Equal(t, `Allow(err="e")`, w.AuthorizeConditionally(context.Background(), podGet("jane")).String())
	body := string(srv.Requests()[0].Body)
	assert.Contains(t, body, `"apiVersion":"authorization.k8s.io/v1beta1"`)
	assert.NotContains(t, body, "authorizationOptions")
}

// Differences from kube-apiserver: the object is checked before the old
// object (kube-apiserver's order is a map's, random), and a webhook of
// connectionInfo.type InClusterConfig evaluates its conditions through the
// in-cluster connection (kube-apiserver crashes building it).
func TestWebhookConditionalDifferences(t *testing.T) {
	w, _ := conditionalWebhook(t, true, nil, nil, WebhookOptions{})
	_, _, err := w.EvaluateConditions(context.Background(), ConditionsMapDecision(conds("d"), nil, nil), &ConditionsData{Object: &corev1.Pod{}, OldObject: &corev1.Pod{}})
	assert.EqualError(t, err, "object of type *v1.Pod must have apiVersion and kind set to be sent to the webhook authorizer")

	srv, err := authorizertest.NewServer(authorizertest.Options{Plain: true, Answer: func(body []byte) []byte {
		if bytes.Contains(body, []byte(`"kind":"AuthorizationConditionsReview"`)) {
			var req map[string]any
			require.NoError(t, json.Unmarshal(body, &req))
			return acrAnswer(`{"type":"Allow","allow":{"reason":"in cluster"}}`, "")(req)
		}
		return statusBody(`{"allowed":false,"conditionalDecision":{"type":"ConditionsMap","conditionsMap":{"allowConditions":[{"id":"example.com/a"}]}}}`)
	}})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	target := conditionalTarget(t)
	cfg, err := authzconfig.DecodeFor(target, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: in-cluster
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo: {type: InClusterConfig}
    conditionsReview: {version: v1alpha1}
`))
	require.NoError(t, err)
	require.NoError(t, authzconfig.Validate(cfg, authzconfig.ValidateOptions{Kube: target}).ToAggregate())
	c, err := New(cfg, Options{Kube: target, InClusterConnection: &Connection{Server: srv.URL(), Transport: srv.Transport()}})
	require.NoError(t, err)
	d := c.AuthorizeConditionally(context.Background(), podGet("jane"))
	x, reason, err := c.EvaluateConditions(context.Background(), d, &ConditionsData{Operation: "CREATE"})
	assert.Equal(t, DecisionAllow, x)
	assert.Equal(t, "in cluster", reason)
	assert.NoError(t, err)
}
