package prometheus

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// kepConditions are the match conditions of KEP-3221's example.
var kepConditions = []string{
	"has(request.resourceAttributes)",
	"request.resourceAttributes.namespace == 'kube-system'",
	"!('system:serviceaccounts:kube-system' in request.groups)",
}

// cachedWebhookDecision is authorizer/bench_test.go's
// BenchmarkWebhookCachedWithKEPConditions, the webhook counted as a chain
// built from a configuration counts it (WithDecisionMetrics), recording into
// sink: each decision records the match conditions' duration and the
// decision.
func cachedWebhookDecision(b *testing.B, sink metrics.Sink) {
	srv, err := authorizertest.NewServer(authorizertest.Options{HTTP2: true, DiscardRequests: true,
		Decide: authorizertest.Always(authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "protected"})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	kc := filepath.Join(b.TempDir(), "kc")
	if err := srv.WriteKubeconfig(kc); err != nil {
		b.Fatal(err)
	}
	w, err := authorizer.NewWebhook(authorizer.WebhookOptions{Name: "kube-system-protector", SubjectAccessReviewVersion: "v1",
		FailurePolicy: authorizer.FailurePolicyDeny, MatchConditions: kepConditions, AuthorizedTTL: time.Hour, UnauthorizedTTL: time.Hour,
		KubeConfigFile: kc, Timeout: 3 * time.Second, Metrics: sink})
	if err != nil {
		b.Fatal(err)
	}
	az := authorizer.WithDecisionMetrics(sink, "Webhook", "kube-system-protector", w)
	a := &authorizer.Attributes{User: &authorizer.User{Name: "jane", Groups: []string{"developers", "system:authenticated"}},
		Verb: "delete", ResourceRequest: true, Namespace: "kube-system", APIVersion: "v1", Resource: "pods", Name: "web"}
	ctx := context.Background()
	if d, _, err := az.Authorize(ctx, a); d != authorizer.DecisionDeny {
		b.Fatalf("got %s, %v", d, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if d, _, _ := az.Authorize(ctx, a); d != authorizer.DecisionDeny {
			b.Fatal(d)
		}
	}
}

// BenchmarkCachedWebhookDecision compares the sinks on a cached webhook
// decision: sink=noop is the decision alone.
func BenchmarkCachedWebhookDecision(b *testing.B) {
	b.Run("sink=noop", func(b *testing.B) { cachedWebhookDecision(b, metrics.Noop{}) })
	b.Run("sink=memory", func(b *testing.B) { cachedWebhookDecision(b, metrics.NewMemory()) })
	b.Run("sink=prometheus", func(b *testing.B) {
		s, err := New(prom.NewRegistry(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		cachedWebhookDecision(b, s)
	})
}

// BenchmarkRecord is one sample of each kind, from concurrent goroutines,
// through series bound ahead of time as the engines bind theirs.
func BenchmarkRecord(b *testing.B) {
	s, err := New(prom.NewRegistry(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	counter := metrics.NewSeries(s, metrics.AuthorizationDecisions, "Webhook", "w", "denied")
	histogram := metrics.NewSeries(s, metrics.AuthorizationMatchConditionDuration, "Webhook", "w")
	b.Run("kind=counter", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				counter.Add(1)
			}
		})
	})
	b.Run("kind=histogram", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				histogram.Observe(0.0004)
			}
		})
	})
}

// BenchmarkDecisionSamples is what a cached webhook decision records, alone:
// the match conditions' duration and the decision, through series bound
// ahead of time as the engines bind theirs.
func BenchmarkDecisionSamples(b *testing.B) {
	run := func(b *testing.B, sink metrics.Sink) {
		seconds := metrics.NewSeries(sink, metrics.AuthorizationMatchConditionDuration, "Webhook", "kube-system-protector")
		denied := metrics.NewSeries(sink, metrics.AuthorizationDecisions, "Webhook", "kube-system-protector", "denied")
		b.ReportAllocs()
		for b.Loop() {
			seconds.Observe(0.0004)
			denied.Add(1)
		}
	}
	b.Run("sink=noop", func(b *testing.B) { run(b, metrics.Noop{}) })
	b.Run("sink=memory", func(b *testing.B) { run(b, metrics.NewMemory()) })
	b.Run("sink=prometheus", func(b *testing.B) {
		s, err := New(prom.NewRegistry(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		run(b, s)
	})
}

// BenchmarkSeriesLookup justifies the Sink's own cache: a histogram
// observation through the Sink (lookup=sink: a slot, no lock, no hashing)
// against client_golang's vector finding the series itself (lookup=vec:
// hashing the label values, a read lock), each from concurrent goroutines.
func BenchmarkSeriesLookup(b *testing.B) {
	s, err := New(prom.NewRegistry(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	d := metrics.AuthorizationMatchConditionDuration
	labels := []string{"Webhook", "kube-system-protector"}
	vec := s.families.get(d).histogram
	b.Run("lookup=sink", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s.Observe(d, 0.0004, labels...)
			}
		})
	})
	b.Run("lookup=vec", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				h, err := vec.GetMetricWithLabelValues(labels...)
				if err != nil {
					b.Fatal(err)
				}
				h.Observe(0.0004)
			}
		})
	})
}
