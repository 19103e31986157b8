package kubernetes

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apiserver/pkg/apis/apiserver"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	"k8s.io/apiserver/pkg/authorization/union"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// parallelConditions are the webhook's match conditions (KEP-3221's
// example, as conformance's webhook benchmarks have them): resource
// requests in kube-system by anyone but its service accounts.
var parallelConditions = []string{
	"has(request.resourceAttributes)",
	"request.resourceAttributes.namespace == 'kube-system'",
	"!('system:serviceaccounts:kube-system' in request.groups)",
}

// parallelWebhooks builds kube-apiserver's webhook authorizer and
// gatehouse's against one loopback TLS fake webhook that denies, with
// decisions cached for an hour.
func parallelWebhooks(b *testing.B) (kauthorizer.Authorizer, authorizer.Authorizer) {
	srv, err := authorizertest.NewServer(authorizertest.Options{HTTP2: true, DiscardRequests: true,
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
	for _, c := range parallelConditions {
		conditions = append(conditions, apiserver.WebhookMatchCondition{Expression: c})
	}
	kube, err := webhook.New(clientConfig, "v1", time.Hour, time.Hour, *webhook.DefaultRetryBackoff(), kauthorizer.DecisionDeny,
		conditions, "kube-system-protector", webhookmetrics.NoopAuthorizerMetrics{}, authorizationcel.NewDefaultCompiler())
	if err != nil {
		b.Fatal(err)
	}
	compiler, err := matchcond.NewAuthorizationCompiler()
	if err != nil {
		b.Fatal(err)
	}
	ours, err := authorizer.NewWebhook(authorizer.WebhookOptions{
		Name: "kube-system-protector", SubjectAccessReviewVersion: "v1", FailurePolicy: authorizer.FailurePolicyDeny,
		MatchConditions: parallelConditions, Compiler: compiler, AuthorizedTTL: time.Hour, UnauthorizedTTL: time.Hour,
		Timeout: 3 * time.Second, KubeConfigFile: kc,
	})
	if err != nil {
		b.Fatal(err)
	}
	return kube, ours
}

// parallelRequests are the requests of BenchmarkAuthorizerChainParallel,
// asked in turn, with the chain's decision: users allowed by their own
// ClusterRoleBinding (RBAC decides), users RBAC has no opinion on deleting
// in kube-system (the webhook's cached Deny), and one outside kube-system
// (the match conditions exclude it: NoOpinion).
func parallelRequests() ([]*authorizer.Attributes, []authorizer.Decision) {
	groups := []string{"developers", "system:authenticated"}
	var reqs []*authorizer.Attributes
	var want []authorizer.Decision
	for i := range 4 {
		reqs = append(reqs, &authorizer.Attributes{User: &authorizer.User{Name: fmt.Sprintf("user-%d", i*20), Groups: groups},
			Verb: "list", ResourceRequest: true, Namespace: "default", APIVersion: "v1", Resource: "pods",
			Path: "/api/v1/namespaces/default/pods"})
		want = append(want, authorizer.DecisionAllow)
	}
	for i := range 3 {
		reqs = append(reqs, &authorizer.Attributes{User: &authorizer.User{Name: fmt.Sprintf("jane-%d", i), UID: "1f0e", Groups: groups},
			Verb: "delete", ResourceRequest: true, Namespace: "kube-system", APIVersion: "v1", Resource: "configmaps", Name: "coredns",
			Path: "/api/v1/namespaces/kube-system/configmaps/coredns"})
		want = append(want, authorizer.DecisionDeny)
	}
	reqs = append(reqs, &authorizer.Attributes{User: &authorizer.User{Name: "jane-0", UID: "1f0e", Groups: groups},
		Verb: "delete", ResourceRequest: true, Namespace: "default", APIVersion: "v1", Resource: "configmaps", Name: "coredns",
		Path: "/api/v1/namespaces/default/configmaps/coredns"})
	want = append(want, authorizer.DecisionNoOpinion)
	return reqs, want
}

// BenchmarkAuthorizerChainParallel decides requests from a small set
// through an authorizer chain, RBAC (100 ClusterRoleBindings over 100
// ClusterRoles, and 20 RoleBindings) then a webhook authorizer answered
// from its decision cache, from b.RunParallel's goroutines (GOMAXPROCS of
// them: run with -cpu 1,2,4,8): kube-apiserver's union of its RBAC
// authorizer (over informer listers) and its webhook authorizer, against
// gatehouse's Chain of rbac's authorizer and its webhook.
//
//	go test -run '^$' -bench 'Parallel' -cpu 1,2,4,8 -benchmem -count 6 . > parallel.txt
//	benchstat -col /impl parallel.txt
func BenchmarkAuthorizerChainParallel(b *testing.B) {
	objs := benchObjects(100)
	kubeRBAC := newInformerListers(objs).kubeAPIServer()
	ourRBAC, err := rbac.FromObjects(objs, rbac.Options{SkipAggregation: true})
	if err != nil {
		b.Fatal(err)
	}
	kubeWebhook, ourWebhook := parallelWebhooks(b)
	kube, err := union.New(union.NamedAuthorizer{AuthorizerName: "rbac", Authorizer: kubeRBAC}, union.NamedAuthorizer{AuthorizerName: "webhook", Authorizer: kubeWebhook})
	if err != nil {
		b.Fatal(err)
	}
	ours, err := authorizer.NewChain(authorizer.Named{Name: "rbac", Authorizer: ourRBAC}, authorizer.Named{Name: "webhook", Authorizer: ourWebhook})
	if err != nil {
		b.Fatal(err)
	}
	reqs, want := parallelRequests()
	kreqs := make([]kauthorizer.Attributes, len(reqs))
	ctx := context.Background()
	// The webhooks' caches are filled, and both chains decide alike.
	for i, a := range reqs {
		kreqs[i] = kubeAttributes(a)
		kd, _, kerr := kube.Authorize(ctx, kreqs[i])
		d, _, err := ours.Authorize(ctx, a)
		if int(kd) != int(want[i]) || d != want[i] {
			b.Fatalf("%s %s %s: kube-apiserver %v (%v), gatehouse %v (%v), want %v", a.User.Name, a.Verb, a.Namespace, kd, kerr, d, err, want[i])
		}
	}
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				_, _, _ = kube.Authorize(ctx, kreqs[i%len(kreqs)])
			}
		})
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				_, _, _ = ours.Authorize(ctx, reqs[i%len(reqs)])
			}
		})
	})
}
