package conformance

import (
	"context"
	"fmt"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	webhookgeneric "k8s.io/apiserver/pkg/admission/plugin/webhook/generic"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/internal/admissionmatch"
)

// Side-by-side benchmark of admissionmatch and kube-apiserver's webhook
// dispatcher (ShouldCallHook: namespace, object and rule predicates, match
// policy Equivalent) over 100 webhooks with rules and selectors:
//
//	go test -run '^$' -bench 'AdmissionMatch' -benchmem -count 10 . > am.txt
//	benchstat -col /impl am.txt
//
// Each iteration is one admission request matched against every webhook;
// gatehouse's builds its Request (one per admission request) inside the
// loop. impl=gatehouse matches through an Index of the 100 webhooks (the
// way to match a request against many hooks); impl=gatehouse-per-hook calls
// each webhook's Match in turn; impl=gatehouse-admissionmanifest matches
// through the public API, admissionmanifest.WebhookMatcher.

// benchWebhooks returns 100 webhooks in the shapes seen in clusters: pod,
// workload, config and exec hooks and catch-alls, with and without
// namespace and object selectors, matchPolicy Equivalent (the default).
func benchWebhooks() []*admissionregistrationv1.ValidatingWebhook {
	ruleSets := [][]admissionregistrationv1.RuleWithOperations{
		{{Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
		{{Operations: []admissionregistrationv1.OperationType{"CREATE"},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments", "statefulsets", "daemonsets"}}}},
		{{Operations: []admissionregistrationv1.OperationType{"*"},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}, Scope: ptrTo(admissionregistrationv1.NamespacedScope)}}},
		{{Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps", "secrets"}}},
			{Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE", "DELETE"},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"services"}}}},
		{{Operations: []admissionregistrationv1.OperationType{"CONNECT"},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/exec", "pods/attach"}}}},
	}
	namespaceSelectors := []*metav1.LabelSelector{
		{},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "kube-public"}}}},
		{MatchLabels: map[string]string{"env": "prod"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpExists}}},
	}
	objectSelectors := []*metav1.LabelSelector{
		{},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}}}},
		{MatchLabels: map[string]string{"sidecar.istio.io/inject": "true"}},
	}
	hooks := make([]*admissionregistrationv1.ValidatingWebhook, 100)
	for i := range hooks {
		hooks[i] = &admissionregistrationv1.ValidatingWebhook{
			Name:              fmt.Sprintf("hook-%d.example.com", i),
			Rules:             ruleSets[i%len(ruleSets)],
			NamespaceSelector: namespaceSelectors[i%len(namespaceSelectors)],
			ObjectSelector:    objectSelectors[i%len(objectSelectors)],
			MatchPolicy:       ptrTo(admissionregistrationv1.Equivalent),
		}
	}
	return hooks
}

// benchMapper is kube-apiserver's equivalence registry with the resources
// of the benchmark.
func benchMapper() runtime.EquivalentResourceMapper {
	m := runtime.NewEquivalentResourceRegistry()
	for _, r := range []struct{ gvr, kind string }{{"pods", "Pod"}, {"configmaps", "ConfigMap"}, {"secrets", "Secret"}, {"services", "Service"}} {
		m.RegisterKindFor(schema.GroupVersionResource{Version: "v1", Resource: r.gvr}, "", schema.GroupVersionKind{Version: "v1", Kind: r.kind})
	}
	for _, r := range []struct{ gvr, kind string }{{"deployments", "Deployment"}, {"statefulsets", "StatefulSet"}, {"daemonsets", "DaemonSet"}} {
		for _, v := range []string{"v1", "v1beta2"} {
			m.RegisterKindFor(schema.GroupVersionResource{Group: "apps", Version: v, Resource: r.gvr}, "", schema.GroupVersionKind{Group: "apps", Version: v, Kind: r.kind})
		}
	}
	return m
}

func BenchmarkAdmissionMatch100Webhooks(b *testing.B) {
	world := map[string]amNamespace{
		"default": {labels: map[string]string{"kubernetes.io/metadata.name": "default", "env": "prod", "team": "a"}, listed: true, inClient: true},
	}
	ctx := context.Background()
	hooks := benchWebhooks()
	mapper := benchMapper()
	requests := []struct {
		name string
		req  amRequest
	}{
		{"pod-create", amRequest{op: admission.Create, kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
			resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, name: "web-1", namespace: "default",
			object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", Labels: map[string]string{"app": "web", "pod-template-hash": "5d4f"}}}}},
		{"deployment-update", amRequest{op: admission.Update, kind: schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"},
			resource: schema.GroupVersionResource{Group: "apps", Version: "v1beta2", Resource: "deployments"}, name: "web", namespace: "default",
			object:    &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}}},
			oldObject: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}}}}},
	}
	for _, rc := range requests {
		kube := kubeWebhookDispatcher(b, world)
		o := amObjectInterfaces{mapper: mapper}
		accessors := make([]webhook.WebhookAccessor, len(hooks))
		compiled := make([]*admissionmatch.Webhook, len(hooks))
		for i, h := range hooks {
			accessors[i] = webhook.NewValidatingWebhookAccessor(h.Name, "config", h)
			compiled[i] = admissionmatch.CompileWebhook(admissionmatch.ValidatingWebhookCriteria(h), admissionmatch.Options{Static: true})
		}
		attr := rc.req.attributes()
		lookup := amLookup(world)

		// Both must agree on what they benchmark.
		wantMatched := 0
		for _, a := range accessors {
			if inv, err := kube.ShouldCallHook(ctx, a, attr, o, nil); err != nil {
				b.Fatal(err)
			} else if inv != nil {
				wantMatched++
			}
		}
		gotMatched := 0
		r := rc.req.gatehouse(world, mapper)
		for _, w := range compiled {
			if w.Match(ctx, r).Matches {
				gotMatched++
			}
		}
		if gotMatched != wantMatched || wantMatched == 0 || wantMatched == len(hooks) {
			b.Fatalf("%s: gatehouse matched %d webhooks, kube-apiserver %d", rc.name, gotMatched, wantMatched)
		}
		b.Logf("%s: %d of %d webhooks match", rc.name, wantMatched, len(hooks))

		b.Run("request="+rc.name+"/impl=kube-apiserver", func(b *testing.B) {
			b.ReportAllocs()
			var invocations []*webhookgeneric.WebhookInvocation
			for b.Loop() {
				invocations = invocations[:0]
				for _, a := range accessors {
					inv, err := kube.ShouldCallHook(ctx, a, attr, o, nil)
					if err != nil {
						b.Fatal(err)
					}
					if inv != nil {
						invocations = append(invocations, inv)
					}
				}
			}
		})
		newRequest := func() *admissionmatch.Request {
			return &admissionmatch.Request{
				Operation: admissionv1Operation(rc.req.op), Kind: rc.req.kind, Resource: rc.req.resource,
				Name: rc.req.name, Namespace: rc.req.namespace, Object: rc.req.object, OldObject: rc.req.oldObject,
				Namespaces: lookup, Equivalents: mapper,
			}
		}
		index := admissionmatch.NewIndex(hooksOf(compiled)...)
		gotMatched = 0
		index.Match(ctx, newRequest(), func(int, admissionmatch.Result) bool { gotMatched++; return true })
		if gotMatched != wantMatched {
			b.Fatalf("%s: gatehouse's index matched %d webhooks, kube-apiserver %d", rc.name, gotMatched, wantMatched)
		}
		// The index: the way to match a request against many hooks.
		b.Run("request="+rc.name+"/impl=gatehouse", func(b *testing.B) {
			b.ReportAllocs()
			results := make([]admissionmatch.Result, 0, len(compiled))
			for b.Loop() {
				results = results[:0]
				index.Match(ctx, newRequest(), func(_ int, res admissionmatch.Result) bool {
					results = append(results, res)
					return true
				})
			}
		})
		// The public API: admissionmanifest's WebhookMatcher (the index,
		// and match conditions, of which these webhooks have none).
		webhooks := make([]admissionmanifest.Webhook, len(hooks))
		for i, h := range hooks {
			webhooks[i] = admissionmanifest.Webhook{Validating: h}
		}
		matcher, err := admissionmanifest.NewWebhookMatcher(webhooks, admissionmanifest.MatchOptions{Namespaces: lookup, Equivalents: mapper})
		if err != nil {
			b.Fatal(err)
		}
		public := &admissionmanifest.Request{Operation: admissionv1Operation(rc.req.op), Kind: rc.req.kind, Resource: rc.req.resource,
			Name: rc.req.name, Namespace: rc.req.namespace, Object: rc.req.object, OldObject: rc.req.oldObject}
		if got := len(matcher.Match(ctx, public)); got != wantMatched {
			b.Fatalf("%s: gatehouse's WebhookMatcher matched %d webhooks, kube-apiserver %d", rc.name, got, wantMatched)
		}
		b.Run("request="+rc.name+"/impl=gatehouse-admissionmanifest", func(b *testing.B) {
			b.ReportAllocs()
			matches := make([]admissionmanifest.WebhookMatch, 0, len(hooks))
			for b.Loop() {
				matches = matcher.AppendMatches(ctx, matches[:0], public)
			}
		})
		// Each webhook's Match, one after the other.
		b.Run("request="+rc.name+"/impl=gatehouse-per-hook", func(b *testing.B) {
			b.ReportAllocs()
			results := make([]admissionmatch.Result, 0, len(compiled))
			for b.Loop() {
				results = results[:0]
				req := newRequest()
				for _, w := range compiled {
					if res := w.Match(ctx, req); res.Matches {
						results = append(results, res)
					}
				}
			}
		})
	}
}

func hooksOf(webhooks []*admissionmatch.Webhook) []admissionmatch.Hook {
	hooks := make([]admissionmatch.Hook, len(webhooks))
	for i, w := range webhooks {
		hooks[i] = w
	}
	return hooks
}
