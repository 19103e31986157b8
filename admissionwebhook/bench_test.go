package admissionwebhook_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/internal/benchkube"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// BenchmarkValidate is one request through a validating webhook on
// loopback TLS (connections reused), the server's time included. Each
// benchmark runs at each version of benchkube.
func BenchmarkValidate(b *testing.B) { benchkube.Run(b, benchmarkValidate) }

func benchmarkValidate(b *testing.B, t kube.Target) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{DiscardRequests: true})
	require.NoError(b, err)
	defer srv.Close()
	w := validating(srv, "w.example.com", "/allow")
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{Metrics: metrics.NewMemory(), Kube: t})
	require.NoError(b, err)
	req := createPod()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Validate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmit is one request through a mutating webhook whose JSON patch
// adds a label.
func BenchmarkAdmit(b *testing.B) { benchkube.Run(b, benchmarkAdmit) }

func benchmarkAdmit(b *testing.B, t kube.Target) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{DiscardRequests: true})
	require.NoError(b, err)
	defer srv.Close()
	srv.Handle("/label", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/labels/team","value":"a"}]`))
	w := mutating(srv, "m.example.com", "/label")
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{Metrics: metrics.NewMemory(), Kube: t})
	require.NoError(b, err)
	req := createPod()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Admit(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmitNoMatch is a request no mutating webhook matches, the
// common case: no call, no conversion.
func BenchmarkAdmitNoMatch(b *testing.B) { benchkube.Run(b, benchmarkAdmitNoMatch) }

func benchmarkAdmitNoMatch(b *testing.B, t kube.Target) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{DiscardRequests: true})
	require.NoError(b, err)
	defer srv.Close()
	var hooks []admissionmanifest.Webhook
	for range 10 {
		hooks = append(hooks, mutating(srv, "m.example.com", "/label"))
	}
	d, err := admissionwebhook.NewDispatcher(hooks, admissionwebhook.Options{Metrics: metrics.NewMemory(), Kube: t})
	require.NoError(b, err)
	req := createPod()
	req.Resource.Resource = "configmaps"
	req.Kind.Kind = "ConfigMap"
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Admit(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateFiveWebhooks is one request through five validating
// webhooks of one kind (called in parallel, as kube-apiserver calls them):
// the objects are encoded once for the five AdmissionReviews.
func BenchmarkValidateFiveWebhooks(b *testing.B) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{DiscardRequests: true})
	require.NoError(b, err)
	defer srv.Close()
	var hooks []admissionmanifest.Webhook
	for _, name := range []string{"a.example.com", "b.example.com", "c.example.com", "d.example.com", "e.example.com"} {
		hooks = append(hooks, validating(srv, name, "/allow"))
	}
	d, err := admissionwebhook.NewDispatcher(hooks, admissionwebhook.Options{Metrics: metrics.NewMemory()})
	require.NoError(b, err)
	req := createPod()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Validate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
