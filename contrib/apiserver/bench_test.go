package apiserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
)

// benchChain is authorizer/bench_test.go's chain decided by an RBAC
// stand-in.
func benchChain(b *testing.B) authorizer.Authorizer {
	chain, err := authorizer.NewChain(
		authorizer.Named{Name: authorizer.PrivilegedGroupsName, Authorizer: authorizer.PrivilegedGroups(authorizer.SystemPrivilegedGroup)},
		authorizer.Named{Name: "node", Authorizer: authorizer.WithDecisionMetrics(nil, "Node", "node", authorizer.AlwaysDeny())},
		authorizer.Named{Name: "rbac", Authorizer: authorizer.WithDecisionMetrics(nil, "RBAC", "rbac", authorizer.AlwaysAllow())},
	)
	if err != nil {
		b.Fatal(err)
	}
	return chain
}

// benchCachedWebhook is authorizer/bench_test.go's webhook behind KEP-3221's
// match conditions, its decision cached.
func benchCachedWebhook(b *testing.B) authorizer.Authorizer {
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
		FailurePolicy: authorizer.FailurePolicyDeny, AuthorizedTTL: time.Hour, UnauthorizedTTL: time.Hour, KubeConfigFile: kc, Timeout: 3 * time.Second,
		MatchConditions: []string{
			"has(request.resourceAttributes)",
			"request.resourceAttributes.namespace == 'kube-system'",
			"!('system:serviceaccounts:kube-system' in request.groups)",
		}})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

func benchRequest(selectors bool) *authorizer.Attributes {
	a := &authorizer.Attributes{User: &authorizer.User{Name: "jane", Groups: []string{"developers", "system:authenticated"}},
		Verb: "list", ResourceRequest: true, Namespace: "kube-system", APIVersion: "v1", Resource: "pods",
		Path: "/api/v1/namespaces/kube-system/pods"}
	if selectors {
		rec := kauthorizer.AttributesRecord{}
		setSelectors(&rec, "spec.nodeName=node-1", "app in (web,api),tier!=db")
		conv := FromKubeAttributes(rec)
		a.FieldSelector, a.LabelSelector = conv.FieldSelector, conv.LabelSelector
	}
	return a
}

// BenchmarkToKube compares a decision asked of gatehouse directly
// (impl=gatehouse) with the same decision asked through ToKube with the
// attributes k8s.io/apiserver's filter builds (impl=adapter).
func BenchmarkToKube(b *testing.B) {
	for _, dec := range []struct {
		name  string
		build func(*testing.B) authorizer.Authorizer
		want  authorizer.Decision
	}{
		{"chain", benchChain, authorizer.DecisionAllow},
		{"cachedWebhook", benchCachedWebhook, authorizer.DecisionDeny},
	} {
		for _, selectors := range []bool{false, true} {
			name := "decision=" + dec.name + "/selectors=no"
			if selectors {
				name = "decision=" + dec.name + "/selectors=yes"
			}
			b.Run(name, func(b *testing.B) {
				az := dec.build(b)
				a := benchRequest(selectors)
				rec := ToKubeAttributes(a)
				var kubeAttrs kauthorizer.Attributes = &rec // as the filter passes them
				adapter := ToKube(az)
				ctx := context.Background()
				b.Run("impl=gatehouse", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if d, _, _ := az.Authorize(ctx, a); d != dec.want {
							b.Fatal(d)
						}
					}
				})
				b.Run("impl=adapter", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if d, _, _ := adapter.Authorize(ctx, kubeAttrs); d != kauthorizer.Decision(dec.want) {
							b.Fatal(d)
						}
					}
				})
			})
		}
	}
}

// BenchmarkFromKube compares a k8s.io/apiserver authorizer asked directly
// with the same authorizer asked through FromKube.
func BenchmarkFromKube(b *testing.B) {
	k := kauthorizer.AuthorizerFunc(func(_ context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
		if a.IsReadOnly() && a.GetUser().GetName() != "" {
			return kauthorizer.DecisionAllow, "", nil
		}
		return kauthorizer.DecisionNoOpinion, "", nil
	})
	a := benchRequest(false)
	rec := ToKubeAttributes(a)
	var kubeAttrs kauthorizer.Attributes = &rec
	adapter := FromKube(k)
	ctx := context.Background()
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if d, _, _ := k.Authorize(ctx, kubeAttrs); d != kauthorizer.DecisionAllow {
				b.Fatal(d)
			}
		}
	})
	b.Run("impl=adapter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if d, _, _ := adapter.Authorize(ctx, a); d != authorizer.DecisionAllow {
				b.Fatal(d)
			}
		}
	})
}
