package conformance

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apiserver/pkg/apis/apiserver"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// The side-by-side benchmarks of the webhook authorizer: the same request,
// the same webhook configuration (KEP-3221's three match conditions,
// failurePolicy Deny) and the same loopback TLS fake webhook (HTTP/2, as a
// Go webhook serves by default), through kube-apiserver's webhook authorizer
// and gatehouse's. Compare with
//
//	go test -run '^$' -bench 'Webhook' -benchmem -count 6 . > bench.txt
//	benchstat -col /impl bench.txt

var azKepConditions = []string{
	"has(request.resourceAttributes)",
	"request.resourceAttributes.namespace == 'kube-system'",
	"!('system:serviceaccounts:kube-system' in request.groups)",
}

// azBenchPair builds both webhooks against one fake webhook that denies.
func azBenchPair(b *testing.B, ttl time.Duration) (kauthorizer.Authorizer, authorizer.Authorizer) {
	return azBenchPairProto(b, ttl, true)
}

func azBenchPairProto(b *testing.B, ttl time.Duration, http2 bool) (kauthorizer.Authorizer, authorizer.Authorizer) {
	srv, err := authorizertest.NewServer(authorizertest.Options{HTTP2: http2, DiscardRequests: true,
		Decide: authorizertest.Always(authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "kube-system is protected"})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	kc := filepath.Join(b.TempDir(), "kc")
	if err := srv.WriteKubeconfig(kc); err != nil {
		b.Fatal(err)
	}
	clientConfig, err := webhookutil.LoadKubeconfig(kc, nil)
	if err != nil {
		b.Fatal(err)
	}
	clientConfig.Timeout = 3 * time.Second
	var conditions []apiserver.WebhookMatchCondition
	for _, c := range azKepConditions {
		conditions = append(conditions, apiserver.WebhookMatchCondition{Expression: c})
	}
	kube, err := webhook.New(clientConfig, "v1", ttl, ttl, *webhook.DefaultRetryBackoff(), kauthorizer.DecisionDeny,
		conditions, "kube-system-protector", webhookmetrics.NoopAuthorizerMetrics{}, authorizationcel.NewDefaultCompiler())
	if err != nil {
		b.Fatal(err)
	}
	azCompiler, err := matchcond.NewAuthorizationCompiler()
	if err != nil {
		b.Fatal(err)
	}
	ours, err := authorizer.NewWebhook(authorizer.WebhookOptions{
		Name: "kube-system-protector", SubjectAccessReviewVersion: "v1", FailurePolicy: authorizer.FailurePolicyDeny,
		MatchConditions: azKepConditions, Compiler: azCompiler, AuthorizedTTL: ttl, UnauthorizedTTL: ttl,
		Timeout: 3 * time.Second, KubeConfigFile: kc,
	})
	if err != nil {
		b.Fatal(err)
	}
	return kube, ours
}

func azBenchRequest(namespace string) *authorizer.Attributes {
	return &authorizer.Attributes{
		User: &authorizer.User{Name: "jane", UID: "1f0e", Groups: []string{"developers", "system:authenticated"}},
		Verb: "delete", ResourceRequest: true, Namespace: namespace, APIVersion: "v1", Resource: "configmaps", Name: "coredns",
		Path: "/api/v1/namespaces/" + namespace + "/configmaps/coredns",
	}
}

func azRunBench(b *testing.B, kube kauthorizer.Authorizer, ours authorizer.Authorizer, a *authorizer.Attributes, want string) {
	ctx := context.Background()
	kattrs := azKubeAttributes(b, a)
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		if d, _, err := kube.Authorize(ctx, kattrs); d.String() != want {
			b.Fatalf("%s %v", d, err)
		}
		b.ReportAllocs()
		for b.Loop() {
			_, _, _ = kube.Authorize(ctx, kattrs)
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		if d, _, err := ours.Authorize(ctx, a); d.String() != want {
			b.Fatalf("%s %v", d, err)
		}
		b.ReportAllocs()
		for b.Loop() {
			_, _, _ = ours.Authorize(ctx, a)
		}
	})
}

// BenchmarkWebhookCachedDecision: the request passes the three conditions and
// its decision is in the cache. Target: gatehouse at least 10 times faster.
func BenchmarkWebhookCachedDecision(b *testing.B) {
	kube, ours := azBenchPair(b, time.Hour)
	azRunBench(b, kube, ours, azBenchRequest("kube-system"), "Deny")
}

// BenchmarkWebhookExcludedByMatchConditions: the second condition is false.
// Target: at least 10 times faster.
func BenchmarkWebhookExcludedByMatchConditions(b *testing.B) {
	kube, ours := azBenchPair(b, time.Hour)
	azRunBench(b, kube, ours, azBenchRequest("default"), "NoOpinion")
}

// BenchmarkWebhookCacheMiss: no cache, every request goes to the loopback TLS
// webhook, over HTTP/2 (a Go webhook's default) and over HTTP/1.1. Target: at
// least 1.5 times faster.
func BenchmarkWebhookCacheMiss(b *testing.B) {
	for _, proto := range []struct {
		name  string
		http2 bool
	}{{"h2", true}, {"http1", false}} {
		b.Run("proto="+proto.name, func(b *testing.B) {
			kube, ours := azBenchPairProto(b, 0, proto.http2)
			azRunBench(b, kube, ours, azBenchRequest("kube-system"), "Deny")
		})
	}
}

// BenchmarkWebhookRoundTripFloor is the floor under BenchmarkWebhookCacheMiss
// (proto=h2): the same loopback TLS webhook asked over HTTP/2 by a bare
// net/http client — gatehouse's transport for the kubeconfig, the body
// gatehouse posts, the answer read and not decoded, no match conditions,
// retries, timeout context or metrics. What gatehouse spends above it is its
// own; the rest is the Go HTTP/2 client, TLS, the kernel and the server.
func BenchmarkWebhookRoundTripFloor(b *testing.B) {
	decide := authorizertest.Always(authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "kube-system is protected"})
	// The body gatehouse posts for the benchmarks' request, as received.
	recorder, err := authorizertest.NewServer(authorizertest.Options{HTTP2: true, Decide: decide})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(recorder.Close)
	w, err := authorizer.NewWebhook(authorizer.WebhookOptions{Name: "floor", SubjectAccessReviewVersion: "v1",
		FailurePolicy: authorizer.FailurePolicyDeny, Timeout: 3 * time.Second, Connection: &authorizer.Connection{
			Server: recorder.URL(), Transport: recorder.Transport()}})
	if err != nil {
		b.Fatal(err)
	}
	if d, _, err := w.Authorize(context.Background(), azBenchRequest("kube-system")); d != authorizer.DecisionDeny {
		b.Fatal(d, err)
	}
	body := recorder.Requests()[0].Body

	srv, err := authorizertest.NewServer(authorizertest.Options{HTTP2: true, DiscardRequests: true, Decide: decide})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	kc := filepath.Join(b.TempDir(), "kc")
	if err := srv.WriteKubeconfig(kc); err != nil {
		b.Fatal(err)
	}
	conn, err := authorizer.ConnectionFromKubeconfig(kc)
	if err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: conn.Transport}
	ctx := context.Background()
	b.Run("impl=net-http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"?timeout=3s", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}
