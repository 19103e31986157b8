package authorizer

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/internal/benchkube"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// benchWebhook is a webhook with KEP-3221's three match conditions in front
// of a loopback TLS fake webhook that denies, answering as kube-apiserver t.
func benchWebhook(b *testing.B, t kube.Target, cacheTTL time.Duration) *Webhook {
	srv, err := authorizertest.NewServer(authorizertest.Options{HTTP2: true, DiscardRequests: true, Decide: authorizertest.Always(status(false, true, "protected"))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	kc := b.TempDir() + "/kc"
	if err := srv.WriteKubeconfig(kc); err != nil {
		b.Fatal(err)
	}
	w, err := NewWebhook(WebhookOptions{Name: "kube-system-protector", SubjectAccessReviewVersion: "v1", FailurePolicy: FailurePolicyDeny,
		MatchConditions: kepConditions, AuthorizedTTL: cacheTTL, UnauthorizedTTL: cacheTTL, KubeConfigFile: kc, Timeout: 3 * time.Second, Kube: t})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

func benchAuthorize(b *testing.B, az Authorizer, a *Attributes, want Decision) {
	ctx := context.Background()
	if d, _, err := az.Authorize(ctx, a); d != want {
		b.Fatalf("got %s, %v", d, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if d, _, _ := az.Authorize(ctx, a); d != want {
			b.Fatal(d)
		}
	}
}

func kubeSystemRequest() *Attributes {
	a := podGet("jane", "developers", "system:authenticated")
	a.Namespace = "kube-system"
	a.Verb = "delete"
	return a
}

// The webhook and chain benchmarks run at each version of benchkube.

func BenchmarkWebhookCachedWithKEPConditions(b *testing.B) {
	benchkube.Run(b, func(b *testing.B, t kube.Target) {
		benchAuthorize(b, benchWebhook(b, t, time.Hour), kubeSystemRequest(), DecisionDeny)
	})
}

func BenchmarkWebhookExcludedByKEPConditions(b *testing.B) {
	benchkube.Run(b, func(b *testing.B, t kube.Target) {
		benchAuthorize(b, benchWebhook(b, t, time.Hour), podGet("jane", "developers", "system:authenticated"), DecisionNoOpinion)
	})
}

func BenchmarkWebhookCacheMissLoopbackTLS(b *testing.B) {
	benchkube.Run(b, func(b *testing.B, t kube.Target) {
		benchAuthorize(b, benchWebhook(b, t, 0), kubeSystemRequest(), DecisionDeny)
	})
}

func BenchmarkChainDecidedByRBACStandIn(b *testing.B) {
	benchkube.Run(b, benchmarkChainDecidedByRBACStandIn)
}

func benchmarkChainDecidedByRBACStandIn(b *testing.B, t kube.Target) {
	chain, err := NewChainFor(t,
		Named{Name: PrivilegedGroupsName, Authorizer: PrivilegedGroups(SystemPrivilegedGroup)},
		Named{Name: "node", Authorizer: WithDecisionMetrics(nil, "Node", "node", AlwaysDeny())},
		Named{Name: "rbac", Authorizer: WithDecisionMetrics(nil, "RBAC", "rbac", AlwaysAllow())},
	)
	if err != nil {
		b.Fatal(err)
	}
	benchAuthorize(b, chain, podGet("jane", "developers"), DecisionAllow)
}

func BenchmarkCacheKey(b *testing.B) {
	a := kubeSystemRequest()
	a.User.Extra = map[string][]string{"scopes": {"a", "b"}}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendCacheKey(buf[:0], a)
	}
}

func BenchmarkAppendSAR(b *testing.B) {
	a := kubeSystemRequest()
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendSAR(buf[:0], a, false)
	}
}
