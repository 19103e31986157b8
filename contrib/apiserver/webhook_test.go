// Differential tests against k8s.io/apiserver's webhook authorizer, which
// brings client-go: CI runs them without -race (see reloading_kube_test.go).

//go:build !race

package apiserver

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
)

// selectorConditions are match conditions that read the selectors, so that
// a lost requirement changes whether the webhook is called.
var selectorConditions = []string{
	"!has(request.resourceAttributes) || !has(request.resourceAttributes.labelSelector) || size(request.resourceAttributes.labelSelector.requirements) < 3",
	"!has(request.resourceAttributes) || !has(request.resourceAttributes.fieldSelector) || !request.resourceAttributes.fieldSelector.requirements.exists(r, r.key == 'metadata.name')",
}

// selectorDecide allows requests whose selectors narrow them and says what
// it saw, so that the reasons differ when the selectors do.
func selectorDecide(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
	var fields, labels int
	if ra := spec.ResourceAttributes; ra != nil {
		if ra.FieldSelector != nil {
			fields = len(ra.FieldSelector.Requirements)
		}
		if ra.LabelSelector != nil {
			labels = len(ra.LabelSelector.Requirements)
		}
	}
	return authorizationv1.SubjectAccessReviewStatus{Allowed: fields+labels > 0, Denied: spec.User == "root", Reason: fmt.Sprintf("fields=%d labels=%d", fields, labels)}
}

type webhookPair struct {
	srv  *authorizertest.Server
	kube kauthorizer.Authorizer
	ours *authorizer.Webhook
}

// newWebhookPair builds k8s.io/apiserver's webhook authorizer as
// kube-apiserver builds it, and gatehouse's with the same configuration,
// both without cache, pointed at one fake webhook.
func newWebhookPair(t *testing.T, conditions []string) *webhookPair {
	t.Helper()
	srv, err := authorizertest.NewServer(authorizertest.Options{Decide: selectorDecide})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	kc := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kc))

	clientConfig, err := webhookutil.LoadKubeconfig(kc, nil)
	require.NoError(t, err)
	clientConfig.Timeout = 5 * time.Second
	var mc []apiserver.WebhookMatchCondition
	for _, c := range conditions {
		mc = append(mc, apiserver.WebhookMatchCondition{Expression: c})
	}
	backoff := authorizer.Backoff{Duration: time.Millisecond, Factor: 1.5, Steps: 5}
	kube, err := webhook.New(clientConfig, "v1", 0, 0, wait.Backoff{Duration: backoff.Duration, Factor: backoff.Factor, Steps: backoff.Steps},
		kauthorizer.DecisionNoOpinion, mc, "wh", webhookmetrics.NoopAuthorizerMetrics{}, authorizationcel.NewDefaultCompiler())
	require.NoError(t, err)
	ours, err := authorizer.NewWebhook(authorizer.WebhookOptions{Name: "wh", SubjectAccessReviewVersion: "v1",
		FailurePolicy: authorizer.FailurePolicyNoOpinion, KubeConfigFile: kc, Timeout: 5 * time.Second, Backoff: &backoff,
		MatchConditions: conditions})
	require.NoError(t, err)
	return &webhookPair{srv: srv, kube: kube, ours: ours}
}

// bodies are the SubjectAccessReviews the fake webhook received since the
// last call.
func (p *webhookPair) bodies() []string {
	var out []string
	for _, r := range p.srv.Requests() {
		out = append(out, string(r.Body))
	}
	p.srv.ResetRequests()
	return out
}

type webhookStats struct{ cases, called, allowed int }

func (s *webhookStats) count(o outcome, calls int) {
	s.cases++
	s.called += calls
	if o.Decision == kauthorizer.DecisionAllow {
		s.allowed++
	}
}

// TestToKubeWebhookMatchesKubeWebhook asks k8s.io/apiserver's webhook
// authorizer and gatehouse's, wrapped by ToKube, the requests of the corpus
// as k8s.io/apiserver's filter builds their attributes: the decisions,
// reasons, errors and the SubjectAccessReviews sent, byte for byte, must be
// equal, so nothing of the attributes is lost on the way.
func TestToKubeWebhookMatchesKubeWebhook(t *testing.T) {
	ctx := context.Background()
	for _, conditions := range [][]string{nil, selectorConditions} {
		p := newWebhookPair(t, conditions)
		adapter := ToKube(p.ours)
		var stats webhookStats
		for _, c := range kubeCorpus(300, 11) {
			want := outcomeOf(p.kube.Authorize(ctx, c.attrs))
			wantBodies := p.bodies()
			// The filter passes a pointer.
			got := outcomeOf(adapter.Authorize(ctx, &c.attrs))
			gotBodies := p.bodies()
			assert.Equal(t, want, got, "conditions=%d %s", len(conditions), c.name)
			assert.Equal(t, wantBodies, gotBodies, "conditions=%d %s", len(conditions), c.name)
			stats.count(want, len(wantBodies))
		}
		t.Logf("match conditions %d: %d requests compared, %d webhook calls, %d allowed", len(conditions), stats.cases, stats.called, stats.allowed)
		assert.Greater(t, stats.called, 100)
		assert.Greater(t, stats.allowed, 50)
	}
}

// TestFromKubeWebhookMatchesGatehouseWebhook asks gatehouse's webhook
// authorizer and k8s.io/apiserver's, wrapped by FromKube, the requests of
// the corpus as a program builds gatehouse's attributes (selectors that no
// selector string gives, invalid ones included).
func TestFromKubeWebhookMatchesGatehouseWebhook(t *testing.T) {
	ctx := context.Background()
	for _, conditions := range [][]string{nil, selectorConditions} {
		p := newWebhookPair(t, conditions)
		adapter := FromKube(p.kube)
		var stats webhookStats
		for i, a := range gatehouseCorpus(300, 12) {
			d, reason, err := p.ours.Authorize(ctx, a)
			want := outcomeOf(kauthorizer.Decision(d), reason, err)
			wantBodies := p.bodies()
			d, reason, err = adapter.Authorize(ctx, a)
			got := outcomeOf(kauthorizer.Decision(d), reason, err)
			gotBodies := p.bodies()
			assert.Equal(t, want, got, "conditions=%d request %d %+v", len(conditions), i, a)
			assert.Equal(t, wantBodies, gotBodies, "conditions=%d request %d %+v", len(conditions), i, a)
			stats.count(want, len(wantBodies))
		}
		t.Logf("match conditions %d: %d requests compared, %d webhook calls, %d allowed", len(conditions), stats.cases, stats.called, stats.allowed)
		assert.Greater(t, stats.called, 100)
	}
}
