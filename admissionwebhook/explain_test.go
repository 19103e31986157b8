package admissionwebhook_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// TestExplain traces each webhook: called or why not, its answer, the
// fields its patch changed, a failure admitted by failurePolicy Ignore.
func TestExplain(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/label", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`))
	srv.Handle("/deny", admissionwebhooktest.Deny(403, "no"))
	srv.Inject(admissionwebhooktest.Fault{Path: "/flaky", Status: 500})
	deployments := func(w *admissionregistrationv1.MutatingWebhook) { w.Rules[0].Resources = []string{"deployments"} }
	skipAll := func(w *admissionregistrationv1.ValidatingWebhook) {
		w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "never", Expression: "false"}}
	}
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{
		mutating(srv, "label.example.com", "/label"),
		mutating(srv, "deployments.example.com", "/label", deployments),
		validating(srv, "flaky.example.com", "/flaky", ignore),
		validating(srv, "skip.example.com", "/deny", skipAll),
		validating(srv, "deny.example.com", "/deny"),
	}, admissionwebhook.Options{UID: fixedUID})
	require.NoError(t, err)

	res, mt, err := d.ExplainAdmit(context.Background(), createPod())
	require.NoError(t, err)
	require.Len(t, mt.Webhooks, 2)
	assert.True(t, mt.Webhooks[0].Called)
	assert.True(t, mt.Webhooks[0].Patched)
	// The patch's add replaces the labels: app is gone, a is new.
	assert.Equal(t, []string{".metadata.labels.a", ".metadata.labels.app"}, mt.Webhooks[0].Changed)
	assert.False(t, mt.Webhooks[1].Called)
	assert.Equal(t, admissionmanifest.ReasonRules, mt.Webhooks[1].Reason)
	assert.Contains(t, mt.String(), "patched .metadata.labels.a, .metadata.labels.app")

	req := createPod()
	req.Object = res.Object
	_, vt, err := d.ExplainValidate(context.Background(), req)
	require.Error(t, err)
	require.Len(t, vt.Webhooks, 3)
	flaky, skip, deny := vt.Webhooks[0], vt.Webhooks[1], vt.Webhooks[2]
	assert.True(t, flaky.Called)
	assert.True(t, flaky.FailedOpen, "failurePolicy Ignore admitted the failed call")
	assert.False(t, skip.Called)
	assert.Equal(t, "never", skip.FailedCondition)
	assert.True(t, deny.Called)
	require.Error(t, deny.Err)
	assert.Contains(t, deny.Err.Error(), "no")
	assert.Contains(t, vt.String(), `not called (match condition "never" is false)`)
}
