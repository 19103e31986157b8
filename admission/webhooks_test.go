package admission

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// webhookConfigs are a mutating webhook that adds a label to pods (the
// mutating policy of labelPolicies then sees it in the reinvocation) and a
// validating webhook that refuses team "forbidden".
func webhookConfigs(t *testing.T, srv *admissionwebhooktest.Server) ([]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration) {
	t.Helper()
	rules := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}
	none := admissionregistrationv1.SideEffectClassNone
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
		Name: "label.example.com", ClientConfig: srv.ClientConfig("/label"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		ReinvocationPolicy: new(admissionregistrationv1.IfNeededReinvocationPolicy)}}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "teams.example.com", ClientConfig: srv.ClientConfig("/teams"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}}}
	admissionmanifest.SetDefaultsMutatingWebhookConfiguration(m)
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(v)
	return []*admissionregistrationv1.MutatingWebhookConfiguration{m}, []*admissionregistrationv1.ValidatingWebhookConfiguration{v}
}

func TestChainWithWebhooks(t *testing.T) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	require.NoError(t, err)
	defer srv.Close()
	srv.Handle("/label", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/annotations","value":{"webhook":"seen"}}]`))
	srv.Handle("/teams", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		if strings.Contains(string(r.Object.Raw), `"team":"forbidden"`) {
			return admissionwebhooktest.Answer{Status: &metav1.Status{Code: 403, Message: "team forbidden"}}
		}
		return admissionwebhooktest.Answer{Allowed: true, Warnings: []string{"checked by the webhook"}}
	})
	cfg, err := Decode([]byte(labelPolicies))
	require.NoError(t, err)
	cfg.MutatingWebhooks, cfg.ValidatingWebhooks = webhookConfigs(t, srv)
	c, err := New(*cfg, Options{})
	require.NoError(t, err)

	req := podRequest(admissionv1.Create, nil)
	req.Object.SetAnnotations(map[string]string{"a": "b"}) // shared with the normalized object, then patched
	before := fmt.Sprintf("%#v", req.Object.Object)
	res, trace, err := c.Explain(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, before, fmt.Sprintf("%#v", req.Object.Object), "the caller's object is not modified")
	assert.Equal(t, "unknown", res.Object.GetLabels()["team"], "the policy's label")
	assert.Equal(t, "seen", res.Object.GetAnnotations()["webhook"], "the webhook's patch")
	assert.True(t, trace.Reinvoked)
	assert.Len(t, trace.MutatingWebhooks, 2, "both passes called the webhooks")
	assert.Equal(t, []string{"checked by the webhook"}, res.Warnings)
	assert.Contains(t, res.AuditAnnotations, "mutation.webhook.admission.k8s.io/round_0_index_0")
	assert.Contains(t, res.RequestAuditAnnotations, "patch.webhook.admission.k8s.io/round_0_index_0")

	_, trace, err = c.Explain(context.Background(), podRequest(admissionv1.Create, map[string]string{"team": "forbidden"}))
	var status *apierrors.StatusError
	require.ErrorAs(t, err, &status)
	assert.Equal(t, PluginValidatingAdmissionWebhook, trace.DeniedBy)
	assert.Contains(t, status.ErrStatus.Message, "team forbidden")
}
