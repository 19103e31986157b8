package conformance

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// conditionalWebhookCases is the number of generated webhook exchanges
// TestConditionalWebhookMatchesKubeAPIServer compares.
const conditionalWebhookCases = 2000

// TestConditionalWebhookMatchesKubeAPIServer compares the webhook
// authorizer's conditional authorization with kube-apiserver 1.38's
// (the conditionalwebhook op of the 1.38 oracle, the gate on): the
// SubjectAccessReview posted (with or without a conditions review), the
// decision built from generated answers (allowed, denied, reason,
// evaluationError and conditionalDecisions of every shape, valid or not:
// its String, PossibleDecisions and FailureDecision), then the
// AuthorizationConditionsReview posted and the evaluation's decision,
// reason and error for generated answers (every decision type, with and
// without its member, the uid echoed, another or none, no response, an
// echoed request, metadata, another kind). Zero differences.
func TestConditionalWebhookMatchesKubeAPIServer(t *testing.T) {
	oracles := startOraclesOf(t, []string{"1.38"})
	o := oracles[0]
	target, err := targetOf(t, o).WithFeatureGate(kube.ConditionalAuthorization, true)
	require.NoError(t, err)
	n := conditionalWebhookCases
	if testing.Short() {
		n /= 10
	}
	g := webhookGen{conditionalGen: conditionalGen{r: rand.New(rand.NewPCG(5681, 1380))}}
	differ, conditional, evaluated := 0, 0, 0
	uncompiled, unasked, matched := 0, 0, 0 // of the webhooks with match conditions
	for i := range n {
		q := g.query()
		want, err := o.Eval(protocol.Query{Op: protocol.OpConditionalWebhook, ConditionalWebhook: q})
		require.NoError(t, err)
		require.Empty(t, want.Error, "case %d", i)
		got := gatehouseConditionalWebhook(t, target, targetOf(t, o), q)
		if w := want.ConditionalWebhook; w != nil {
			switch {
			case w.NewError != "":
				uncompiled++
			case len(q.MatchConditions) > 0 && !q.GateOff && w.SARRequest == "":
				unasked++
			case len(q.MatchConditions) > 0 && !q.GateOff:
				matched++
			}
			if len(w.Possible) > 1 {
				conditional++
			}
			if w.ACRRequest != "" && !w.HasError {
				evaluated++
			}
		}
		if !assert.Equal(t, want.ConditionalWebhook, got, "case %d: SAR answer %s, ACR answer %s", i, q.SARAnswer, q.ACRAnswer) {
			differ++
			if differ >= 10 {
				t.Fatalf("stopping after %d differences", differ)
			}
		}
	}
	t.Logf("%d webhook exchanges compared: %d conditional decisions, %d evaluated without error; match conditions: %d did not compile, %d excluded or failed, %d matched; %d differences",
		n, conditional, evaluated, uncompiled, unasked, matched, differ)
	assert.Greater(t, conditional, n/10)
	assert.Greater(t, evaluated, n/25)
	assert.Greater(t, uncompiled, n/50)
	assert.Greater(t, unasked, n/50)
	assert.Greater(t, matched, n/50)
}

type webhookGen struct{ conditionalGen }

// wireDecision writes a scripted decision as the webhook would, sometimes
// malformed: a member missing, one too many, an unknown or empty type.
func (g *webhookGen) wireDecision(d protocol.ScriptedDecision) map[string]any {
	out := map[string]any{"type": d.Type}
	unconditional := map[string]any{}
	if d.Reason != "" {
		unconditional["reason"] = d.Reason
	}
	if d.Error != "" {
		unconditional["evaluationError"] = d.Error
	}
	switch d.Type {
	case "Allow":
		out["allow"] = unconditional
	case "Deny":
		out["deny"] = unconditional
	case "NoOpinion":
		out["noOpinion"] = unconditional
	case "ConditionsMap":
		m := map[string]any{}
		for key, cs := range map[string][]protocol.ScriptedCondition{"denyConditions": d.DenyConditions, "noOpinionConditions": d.NoOpinionConditions, "allowConditions": d.AllowConditions} {
			if len(cs) > 0 {
				m[key] = cs
			}
		}
		out["conditionsMap"] = m
	case "Union":
		var members []any
		for _, m := range d.Union {
			members = append(members, map[string]any{"authorizerName": m.Name, "decision": g.wireDecision(m.Decision)})
		}
		if members != nil {
			out["union"] = members
		}
	}
	switch g.r.IntN(40) {
	case 0:
		delete(out, "allow")
		delete(out, "deny")
		delete(out, "noOpinion")
		delete(out, "conditionsMap")
	case 1:
		out["allow"] = map[string]any{}
	case 2:
		out["type"] = "Maybe"
	case 3:
		delete(out, "type")
	}
	return out
}

// wireJSON is v as JSON (maps of plain values always encode).
func wireJSON(v map[string]any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (g *webhookGen) query() *protocol.ConditionalWebhookQuery {
	q := &protocol.ConditionalWebhookQuery{FailurePolicy: "NoOpinion", ConditionsReview: g.r.IntN(5) > 0, User: "jane", Groups: []string{"dev"}, Evaluate: true}
	if g.r.IntN(2) == 0 {
		q.FailurePolicy = "Deny"
	}
	if g.r.IntN(30) == 0 {
		q.User, q.Groups = "", nil
	}
	status := map[string]any{"allowed": false}
	switch k := g.r.IntN(10); {
	case k < 2:
		status["allowed"] = g.r.IntN(2) == 0
		status["denied"] = g.r.IntN(3) == 0
	case k < 9:
		d := g.decision(3)
		if g.r.IntN(3) > 0 {
			d = protocol.ScriptedDecision{Type: "ConditionsMap", DenyConditions: g.conditions(), NoOpinionConditions: g.conditions(), AllowConditions: g.conditions()}
		}
		status["conditionalDecision"] = g.wireDecision(d)
		if g.r.IntN(8) == 0 {
			status["allowed"] = true
		}
		if g.r.IntN(12) == 0 {
			status["denied"] = true
		}
	}
	if g.r.IntN(6) == 0 {
		status["reason"] = "because"
	}
	if g.r.IntN(6) == 0 {
		status["evaluationError"] = "partly"
	}
	q.SARAnswer = wireJSON(map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "status": status})

	types := []string{"Allow", "Deny", "NoOpinion", "NoOpinion", "Allow", "ConditionsMap"}
	typ := types[g.r.IntN(len(types))]
	decision := map[string]any{"type": typ}
	member := map[string]string{"Allow": "allow", "Deny": "deny", "NoOpinion": "noOpinion", "ConditionsMap": "conditionsMap"}[typ]
	if g.r.IntN(10) > 0 {
		decision[member] = map[string]any{"reason": g.text("ok"), "evaluationError": g.text("")}
	}
	response := map[string]any{"uid": "{{uid}}", "decision": decision}
	review := map[string]any{"apiVersion": "authorization.k8s.io/v1alpha1", "kind": "AuthorizationConditionsReview", "response": response}
	switch g.r.IntN(25) {
	case 0:
		response["uid"] = "another"
	case 1:
		delete(response, "uid")
	case 2:
		delete(review, "response")
	case 3:
		review["metadata"] = map[string]any{"name": "x"}
	case 4:
		review["request"] = map[string]any{"decision": map[string]any{"type": "Allow", "allow": map[string]any{}}}
	case 5:
		review["metadata"] = map[string]any{"labels": map[string]any{}}
	}
	q.ACRAnswer = wireJSON(review)
	if g.r.IntN(3) == 0 {
		for range 1 + g.r.IntN(2) {
			q.MatchConditions = append(q.MatchConditions, optionsConditions[g.r.IntN(len(optionsConditions))])
		}
		q.GateOff = g.r.IntN(6) == 0
	}
	return q
}

// optionsConditions are match conditions on request.authorizationOptions
// (declared with the gate ConditionalAuthorization on, set when the
// review offers conditional decisions) and on the request as a whole,
// whose map has the field then; some do not compile.
var optionsConditions = []string{
	"has(request.authorizationOptions)",
	"!has(request.authorizationOptions)",
	"'ConditionsMap' in request.authorizationOptions.handledDecisionTypes",
	"request.authorizationOptions.handledDecisionTypes.size() == 5",
	"request.authorizationOptions.handledDecisionTypes[0] == 'Allow'",
	"has(request.authorizationOptions.handledDecisionTypes)",
	"request.?authorizationOptions.handledDecisionTypes.orValue([]).all(t, t != 'Union')",
	"size(request) == 6",
	"size(dyn(request)) == 6",
	"'authorizationOptions' in dyn(request)",
	"request.authorizationOptions == {'handledDecisionTypes': ['Allow', 'ConditionsMap', 'Deny', 'NoOpinion', 'Union']}",
	"dyn(request).authorizationOptions.handledDecisionTypes.exists(t, t == 'Union')",
	"request.authorizationOptions.handledDecisionTypes.exists(t, t == 'Union') || request.user == 'jane'",
	"type(request.authorizationOptions) == map",
	"request.user == 'jane'",
	"request.authorizationOptions.nope == ''",
	"request.authorizationOptions.handledDecisionTypes == 'x'",
	" ",
}

// gatehouseConditionalWebhook answers q with authorizer.NewWebhook against
// authorizertest's server.
func gatehouseConditionalWebhook(t *testing.T, target, gateOff kube.Target, q *protocol.ConditionalWebhookQuery) *protocol.ConditionalWebhookAnswer {
	t.Helper()
	rec := &protocol.ConditionalWebhookServer{Query: q}
	srv, err := authorizertest.NewServer(authorizertest.Options{Plain: true, DiscardRequests: true, Answer: rec.Answer})
	require.NoError(t, err)
	defer srv.Close()
	conn := &authorizer.Connection{Server: srv.URL(), Transport: srv.Transport()}
	opts := authorizer.WebhookOptions{
		Name: "test", SubjectAccessReviewVersion: "v1", FailurePolicy: q.FailurePolicy, Connection: conn, Kube: target,
		Backoff: &authorizer.Backoff{Duration: time.Millisecond, Steps: 1},
	}
	if q.ConditionsReview {
		opts.ConditionsReview = &authorizer.WebhookConditionsReview{Version: "v1alpha1"}
	}
	opts.MatchConditions = q.MatchConditions
	if q.GateOff {
		opts.Kube = gateOff
	}
	w, err := authorizer.NewWebhook(opts)
	if err != nil {
		return &protocol.ConditionalWebhookAnswer{NewError: err.Error()}
	}
	if q.GateOff {
		return &protocol.ConditionalWebhookAnswer{}
	}
	ctx := context.Background()
	d := w.AuthorizeConditionally(ctx, &authorizer.Attributes{
		User: &authorizer.User{Name: q.User, Groups: q.Groups}, Verb: "get", ResourceRequest: true,
		Namespace: "default", APIVersion: "v1", Resource: "pods", Name: "web",
	})
	a := &protocol.ConditionalWebhookAnswer{String: d.String(), Failure: d.FailureDecision().String()}
	for _, p := range d.PossibleDecisions() {
		a.Possible = append(a.Possible, p.String())
	}
	if q.Evaluate {
		x, reason, err := w.EvaluateConditions(ctx, d, &authorizer.ConditionsData{
			Name: "web", Namespace: "default", Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
			Operation: "CREATE", Options: &metav1.CreateOptions{},
			Object: &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}},
			Kind:   schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
			User:   authorizer.User{Name: q.User, Groups: q.Groups},
		})
		a.Decision, a.Reason = x.String(), reason
		if err != nil {
			a.Error, a.HasError = err.Error(), true
		}
	}
	rec.Record(a)
	return a
}
