package admissionwebhook_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// Webhooks matching TokenReviews are called before 1.37 and skipped from
// 1.37 (gate ExcludeAdmissionWebhookVirtualResources; k8s.io/apiserver
// v0.36.6's generic webhook has no such exclusion).
func TestWebhooksOnReviewsPerVersion(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/reviews", admissionwebhooktest.Allow())
	hook := validating(srv, "reviews.example.com", "/reviews", func(w *admissionregistrationv1.ValidatingWebhook) {
		w.Rules[0].APIGroups, w.Rules[0].Resources = []string{"authentication.k8s.io"}, []string{"tokenreviews"}
	})
	gvr := schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}
	req := &admissionwebhook.Request{Operation: admissionv1.Create, Kind: gvr.GroupVersion().WithKind("TokenReview"), Resource: gvr,
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "metadata": map[string]any{}}}}
	for _, tt := range []struct {
		version, gates string
		called         bool
	}{
		{"1.35", "", true},
		{"1.36", "", true},
		{"1.37", "", false},
		{"1.37", "ExcludeAdmissionWebhookVirtualResources=false", true},
		{"1.38", "", false},
	} {
		target, err := kube.ParseTarget(tt.version)
		require.NoError(t, err)
		target, err = target.WithFeatureGates(tt.gates)
		require.NoError(t, err)
		d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{hook}, admissionwebhook.Options{Kube: target})
		require.NoError(t, err)
		_, trace, err := d.ExplainValidate(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, tt.called, trace.Webhooks[0].Called, "%s %s: %s", tt.version, tt.gates, trace)
		if !tt.called {
			assert.Equal(t, admissionmanifest.ReasonExcludedResource, trace.Webhooks[0].Reason)
		}
	}
}
