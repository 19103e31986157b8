package admissionmatch

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestWebhookRules(t *testing.T) {
	all := []string{"*"}
	core := []string{""}
	v1 := []string{"v1"}
	exec := func(r *Request) { r.Operation, r.Subresource = admissionv1.Connect, "exec" }
	status := func(r *Request) { r.Operation, r.Subresource = admissionv1.Update, "status" }
	clusterScoped := func(r *Request) { r.Namespace = "" }
	onNamespace := func(r *Request) {
		r.Resource, r.Kind, r.Namespace = namespacesGVR, namespaceGVK, "default"
		r.Object = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	}
	onNamespaceV2 := func(r *Request) {
		onNamespace(r)
		r.Resource.Version = "v2"
	}
	tests := []struct {
		name   string
		rule   admissionregistrationv1.RuleWithOperations
		change func(*Request)
		want   bool
		why    Reason
	}{
		{"exact", ruleOf([]string{"CREATE"}, core, v1, []string{"pods"}), nil, true, ReasonMatched},
		{"other operation", ruleOf([]string{"UPDATE", "DELETE"}, core, v1, []string{"pods"}), nil, false, ReasonRules},
		{"all operations", ruleOf(all, core, v1, []string{"pods"}), nil, true, ReasonMatched},
		{"unknown operation", ruleOf([]string{"PATCH"}, core, v1, []string{"pods"}), nil, false, ReasonRules},
		{"no operations", ruleOf(nil, core, v1, []string{"pods"}), nil, false, ReasonRules},
		{"other group", ruleOf(all, []string{"apps"}, v1, []string{"pods"}), nil, false, ReasonRules},
		{"any group", ruleOf(all, all, v1, []string{"pods"}), nil, true, ReasonMatched},
		{"other version", ruleOf(all, core, []string{"v2"}, []string{"pods"}), nil, false, ReasonRules},
		{"any version among others", ruleOf(all, core, []string{"v2", "*"}, []string{"pods"}), nil, true, ReasonMatched},
		{"star: every resource", ruleOf(all, all, all, []string{"*"}), nil, true, ReasonMatched},
		{"star: no subresource", ruleOf(all, all, all, []string{"*"}), exec, false, ReasonRules},
		{"r/*: r itself", ruleOf(all, all, all, []string{"pods/*"}), nil, true, ReasonMatched},
		{"r/*: subresource", ruleOf(all, all, all, []string{"pods/*"}), exec, true, ReasonMatched},
		{"r/*: other resource", ruleOf(all, all, all, []string{"configmaps/*"}), nil, false, ReasonRules},
		{"*/x: subresource", ruleOf(all, all, all, []string{"*/exec"}), exec, true, ReasonMatched},
		{"*/x: other subresource", ruleOf(all, all, all, []string{"*/exec"}), status, false, ReasonRules},
		{"*/x: main resource", ruleOf(all, all, all, []string{"*/exec"}), nil, false, ReasonRules},
		{"*/*: everything", ruleOf(all, all, all, []string{"*/*"}), status, true, ReasonMatched},
		{"r/x", ruleOf(all, all, all, []string{"pods/status"}), status, true, ReasonMatched},
		{"split at the first slash", ruleOf(all, all, all, []string{"pods/a/b"}), func(r *Request) { r.Subresource = "a/b" }, true, ReasonMatched},
		{"no resources", ruleOf(all, all, all, nil), nil, false, ReasonRules},
		{"Namespaced: namespaced request", scoped(ruleOf(all, all, all, []string{"*"}), admissionregistrationv1.NamespacedScope), nil, true, ReasonMatched},
		{"Namespaced: cluster-scoped request", scoped(ruleOf(all, all, all, []string{"*"}), admissionregistrationv1.NamespacedScope), clusterScoped, false, ReasonScope},
		{"Namespaced: a namespace", scoped(ruleOf(all, all, all, []string{"*"}), admissionregistrationv1.NamespacedScope), onNamespace, false, ReasonScope},
		{"Namespaced: namespaces v2 are not the namespaces", scoped(ruleOf(all, all, all, []string{"*"}), admissionregistrationv1.NamespacedScope), onNamespaceV2, true, ReasonMatched},
		{"Cluster: cluster-scoped request", scoped(ruleOf(all, all, all, []string{"*"}), admissionregistrationv1.ClusterScope), clusterScoped, true, ReasonMatched},
		{"Cluster: a namespace", scoped(ruleOf(all, all, all, []string{"*"}), admissionregistrationv1.ClusterScope), onNamespace, true, ReasonMatched},
		{"Cluster: namespaced request", scoped(ruleOf(all, all, all, []string{"*"}), admissionregistrationv1.ClusterScope), nil, false, ReasonScope},
		{"*: any scope", scoped(ruleOf(all, all, all, []string{"*"}), admissionregistrationv1.AllScopes), clusterScoped, true, ReasonMatched},
		{"unknown scope", scoped(ruleOf(all, all, all, []string{"*"}), "Bogus"), nil, false, ReasonScope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := podCreate()
			if tt.change != nil {
				tt.change(r)
			}
			w := webhookOf([]admissionregistrationv1.RuleWithOperations{tt.rule}, everything, everything, nil)
			res, x := w.Explain(context.Background(), r)
			require.NoError(t, res.Err)
			assert.Equal(t, tt.want, res.Matches)
			assert.Equal(t, tt.why, x.Reason, x.Reason.String())
			if tt.want {
				assert.Equal(t, r.Resource, res.Resource)
				assert.Equal(t, r.Kind, res.Kind)
				assert.Equal(t, 0, x.Rule)
			}
			assert.Equal(t, res, w.Match(context.Background(), r))
		})
	}
}

func TestWebhookSelectors(t *testing.T) {
	allRules := []admissionregistrationv1.RuleWithOperations{ruleOf([]string{"*"}, []string{"*"}, []string{"*"}, []string{"*/*"})}
	notFound := apierrors.NewNotFound(corev1.Resource("namespaces"), "gone")
	// notApp matches every object with metadata that has no app label.
	notApp := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	tests := []struct {
		name    string
		ns, obj *metav1.LabelSelector
		change  func(*Request)
		want    bool
		why     Reason
		wantErr string
		code    int32
	}{
		{"namespace selected", prod, everything, nil, true, ReasonMatched, "", 0},
		{"namespace not selected", prod, everything, func(r *Request) { r.Namespace = "dev" }, false, ReasonNamespaceSelector, "", 0},
		{"nil namespace selector selects nothing", nil, everything, nil, false, ReasonNamespaceSelector, "", 0},
		{"cluster-scoped always selected", &metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}}, everything,
			func(r *Request) { r.Namespace = "" }, true, ReasonMatched, "", 0},
		{"cluster-scoped: invalid selector ignored", badLabel, everything, func(r *Request) { r.Namespace = "" }, true, ReasonMatched, "", 0},
		{"namespace not found", prod, everything, func(r *Request) { r.Namespace = "gone" }, false, ReasonError, notFound.Error(), http.StatusNotFound},
		{"empty selector needs no lookup", everything, everything, func(r *Request) { r.Namespace, r.Namespaces = "gone", nil }, true, ReasonMatched, "", 0},
		{"lookup fails", prod, everything, func(r *Request) { r.Namespace = "broken" }, false, ReasonError, "Internal error occurred: lookup failed", http.StatusInternalServerError},
		{"no lookup", prod, everything, func(r *Request) { r.Namespaces = nil }, false, ReasonError,
			"Internal error occurred: no namespace lookup to evaluate a namespaceSelector with", http.StatusInternalServerError},
		{"a namespace's own labels on create", prod, everything, func(r *Request) {
			r.Resource, r.Kind, r.Namespace = namespacesGVR, namespaceGVK, "gone"
			r.Object = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone", Labels: map[string]string{"env": "prod"}}}
		}, true, ReasonMatched, "", 0},
		{"a namespace's stored labels on delete", prod, everything, func(r *Request) {
			r.Operation, r.Resource, r.Kind, r.Namespace, r.Object = admissionv1.Delete, namespacesGVR, namespaceGVK, "dev", nil
		}, false, ReasonNamespaceSelector, "", 0},
		{"a namespace's status: stored labels", prod, everything, func(r *Request) {
			r.Operation, r.Resource, r.Subresource, r.Kind, r.Namespace = admissionv1.Update, namespacesGVR, "status", namespaceGVK, "dev"
			r.Object = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dev", Labels: map[string]string{"env": "prod"}}}
		}, false, ReasonNamespaceSelector, "", 0},
		{"a namespace created without object", prod, everything, func(r *Request) {
			r.Resource, r.Kind, r.Namespace, r.Object = namespacesGVR, namespaceGVK, "x", nil
		}, false, ReasonError, "Internal error occurred: object does not implement the Object interfaces", http.StatusInternalServerError},
		{"a namespace created as a typed nil", prod, everything, func(r *Request) {
			r.Resource, r.Kind, r.Namespace, r.Object = namespacesGVR, namespaceGVK, "x", (*corev1.Namespace)(nil)
		}, false, ReasonError, "Internal error occurred: object does not implement the Object interfaces", http.StatusInternalServerError},
		{"invalid namespace selector", badLabel, everything, nil, false, ReasonError, "Internal error occurred: key: Invalid value: \"bad key!\"", http.StatusInternalServerError},
		{"object selected", everything, web, nil, true, ReasonMatched, "", 0},
		{"object not selected", everything, prod, nil, false, ReasonObjectSelector, "", 0},
		{"old object selected", everything, prod, func(r *Request) { r.OldObject = pod(map[string]string{"env": "prod"}) }, true, ReasonMatched, "", 0},
		{"no object", everything, web, func(r *Request) { r.Object = nil }, false, ReasonObjectSelector, "", 0},
		{"typed nil object", everything, web, func(r *Request) { r.Object = (*corev1.Pod)(nil) }, false, ReasonObjectSelector, "", 0},
		{"object without metadata", everything, web, func(r *Request) { r.Object = &metav1.Status{} }, false, ReasonObjectSelector, "", 0},
		{"nil object selector", everything, nil, nil, false, ReasonObjectSelector, "", 0},
		// kube-apiserver holds a CONNECT's options typed: its accessor fails
		// whatever the object's unstructured form says.
		{"a built-in kind without metadata, unstructured", everything, notApp, func(r *Request) {
			r.Operation, r.Subresource, r.Kind = admissionv1.Connect, "exec", corev1.SchemeGroupVersion.WithKind("PodExecOptions")
			r.Object = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "PodExecOptions", "stdout": true}}
		}, false, ReasonObjectSelector, "", 0},
		{"a built-in kind without metadata matches the empty selector", everything, everything, func(r *Request) {
			r.Operation, r.Subresource, r.Kind = admissionv1.Connect, "exec", corev1.SchemeGroupVersion.WithKind("PodExecOptions")
			r.Object = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "PodExecOptions"}}
		}, true, ReasonMatched, "", 0},
		{"objects said to be without metadata", everything, web, func(r *Request) { r.WithoutMetadata = true }, false, ReasonObjectSelector, "", 0},
		{"a pod without metadata in its content still has it", everything, notApp, func(r *Request) {
			r.Object = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod"}}
		}, true, ReasonMatched, "", 0},
		{"invalid object selector", everything, badLabel, nil, false, ReasonError, "Internal error occurred: key: Invalid value: \"bad key!\"", http.StatusInternalServerError},
		{"a selector that does not match wins over errors", badLabel, prod, nil, false, ReasonObjectSelector, "", 0},
		{"namespace errors before object errors", prod, badLabel, func(r *Request) { r.Namespace = "gone" }, false, ReasonError, notFound.Error(), http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := podCreate()
			if tt.change != nil {
				tt.change(r)
			}
			w := webhookOf(allRules, tt.ns, tt.obj, nil)
			res, x := w.Explain(context.Background(), r)
			assert.Equal(t, tt.want, res.Matches)
			assert.Equal(t, tt.why, x.Reason, x.Reason.String())
			if tt.wantErr == "" {
				require.NoError(t, res.Err)
				return
			}
			require.Error(t, res.Err)
			assert.Contains(t, res.Err.Error(), tt.wantErr)
			status, ok := res.Err.(*apierrors.StatusError)
			require.True(t, ok, "%T", res.Err)
			assert.Equal(t, tt.code, status.ErrStatus.Code)
		})
	}
}

func TestWebhookErrorsOnlyWhenRulesMatch(t *testing.T) {
	w := webhookOf([]admissionregistrationv1.RuleWithOperations{ruleOf([]string{"DELETE"}, []string{""}, []string{"v1"}, []string{"pods"})}, badLabel, badLabel, nil)
	res, x := w.Explain(context.Background(), podCreate())
	assert.Equal(t, Result{}, res)
	assert.Equal(t, ReasonRules, x.Reason)
}

func TestWebhookLooksUpTheNamespaceOncePerRequest(t *testing.T) {
	calls := 0
	lookup := NamespaceLookupFunc(func(ctx context.Context, name string) (map[string]string, error) {
		calls++
		return testNamespaces(ctx, name)
	})
	allRules := []admissionregistrationv1.RuleWithOperations{ruleOf([]string{"*"}, []string{"*"}, []string{"*"}, []string{"*"})}
	podsOnly := []admissionregistrationv1.RuleWithOperations{ruleOf([]string{"*"}, []string{"apps"}, []string{"*"}, []string{"*"})}
	hooks := []*Webhook{webhookOf(allRules, prod, everything, nil), webhookOf(allRules, prod, web, nil), webhookOf(podsOnly, prod, everything, nil)}
	r := podCreate()
	r.Namespaces = lookup
	for _, h := range hooks[:2] {
		assert.True(t, h.Match(context.Background(), r).Matches)
	}
	assert.False(t, hooks[2].Match(context.Background(), r).Matches)
	assert.Equal(t, 1, calls)

	// A hook whose rules do not match needs no lookup.
	r = podCreate()
	r.Namespaces = lookup
	assert.False(t, hooks[2].Match(context.Background(), r).Matches)
	assert.Equal(t, 1, calls)
}

func TestWebhookEquivalent(t *testing.T) {
	extRule := ruleOf([]string{"*"}, []string{"extensions"}, []string{"v1beta1"}, []string{"deployments", "deployments/scale"})
	appsRule := ruleOf([]string{"*"}, []string{"apps"}, []string{"v1"}, []string{"deployments"})
	deploymentUpdate := func() *Request {
		r := podCreate()
		r.Operation, r.Resource, r.Kind = admissionv1.Update, deploymentsV1, deploymentV1
		return r
	}
	tests := []struct {
		name      string
		rules     []admissionregistrationv1.RuleWithOperations
		policy    *admissionregistrationv1.MatchPolicyType
		sub       string
		want      bool
		resource  schema.GroupVersionResource
		kind      schema.GroupVersionKind
		wantErr   string
		equivalen bool
	}{
		{"exact", []admissionregistrationv1.RuleWithOperations{appsRule}, nil, "", true, deploymentsV1, deploymentV1, "", false},
		{"exact policy: no equivalent", []admissionregistrationv1.RuleWithOperations{extRule}, ptr(admissionregistrationv1.Exact), "", false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, "", false},
		{"nil policy: no equivalent", []admissionregistrationv1.RuleWithOperations{extRule}, nil, "", false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, "", false},
		{"unknown policy: no equivalent for webhooks", []admissionregistrationv1.RuleWithOperations{extRule}, ptr(admissionregistrationv1.MatchPolicyType("Fuzzy")), "", false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, "", false},
		{"equivalent", []admissionregistrationv1.RuleWithOperations{extRule}, ptr(admissionregistrationv1.Equivalent), "", true, deploymentsExt, deploymentExt, "", true},
		{"exact wins over an earlier equivalent rule", []admissionregistrationv1.RuleWithOperations{extRule, appsRule}, ptr(admissionregistrationv1.Equivalent), "", true, deploymentsV1, deploymentV1, "", false},
		{"unknown kind", []admissionregistrationv1.RuleWithOperations{extRule}, ptr(admissionregistrationv1.Equivalent), "scale", false, schema.GroupVersionResource{}, schema.GroupVersionKind{},
			"Internal error occurred: unable to convert to extensions/v1beta1, Resource=deployments: unknown kind", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := deploymentUpdate()
			r.Subresource = tt.sub
			w := webhookOf(tt.rules, everything, everything, tt.policy)
			res, x := w.Explain(context.Background(), r)
			assert.Equal(t, tt.want, res.Matches)
			assert.Equal(t, tt.resource, res.Resource)
			assert.Equal(t, tt.kind, res.Kind)
			assert.Equal(t, tt.equivalen, x.Equivalent)
			if tt.wantErr != "" {
				require.EqualError(t, res.Err, tt.wantErr)
				assert.IsType(t, &apierrors.StatusError{}, res.Err)
			} else {
				require.NoError(t, res.Err)
			}
		})
	}
}

func TestWebhookExemptions(t *testing.T) {
	allRules := []admissionregistrationv1.RuleWithOperations{ruleOf([]string{"*"}, []string{"*"}, []string{"*"}, []string{"*/*"})}
	criteria := WebhookCriteria{Rules: allRules, NamespaceSelector: everything, ObjectSelector: everything}
	api := CompileWebhook(criteria, Options{})
	static := CompileWebhook(criteria, Options{Static: true})
	noneExcluded := CompileWebhook(criteria, Options{ExcludedResources: []schema.GroupResource{}})
	tokenReview := &Request{Operation: admissionv1.Create, Resource: schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"},
		Kind: schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}}
	webhookConfig := func(kind string, sub string) *Request {
		return &Request{Operation: admissionv1.Update, Subresource: sub,
			Resource: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "whatever"},
			Kind:     schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: kind}}
	}
	ctx := context.Background()

	res, x := api.Explain(ctx, tokenReview)
	assert.False(t, res.Matches)
	assert.Equal(t, ReasonExcludedResource, x.Reason)
	assert.False(t, static.Match(ctx, tokenReview).Matches, "no hook sees an excluded resource")
	assert.True(t, noneExcluded.Match(ctx, tokenReview).Matches)

	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} {
		res, x := api.Explain(ctx, webhookConfig(kind, "status"))
		assert.False(t, res.Matches, kind)
		assert.Equal(t, ReasonAdmissionConfiguration, x.Reason)
		assert.True(t, static.Match(ctx, webhookConfig(kind, "status")).Matches, kind)
	}
	assert.True(t, api.Match(ctx, webhookConfig("SomethingElse", "")).Matches)
}

func TestExcludedResourcesIsAFreshCopy(t *testing.T) {
	list := ExcludedResources()
	list[0].Resource = "changed"
	assert.Equal(t, "selfsubjectreviews", ExcludedResources()[0].Resource)
}

func TestReasonStrings(t *testing.T) {
	seen := map[string]bool{}
	for r := ReasonMatched; r <= ReasonError; r++ {
		s := r.String()
		assert.NotEqual(t, "unknown", s, "reason %d", r)
		assert.False(t, seen[s], "duplicate %q", s)
		seen[s] = true
	}
	assert.Equal(t, "unknown", Reason(200).String())
}

func TestRequestConcurrentUse(t *testing.T) {
	allRules := []admissionregistrationv1.RuleWithOperations{ruleOf([]string{"*"}, []string{"*"}, []string{"*"}, []string{"*"})}
	w := webhookOf(allRules, prod, web, ptr(admissionregistrationv1.Equivalent))
	r := podCreate()
	done := make(chan Result)
	for range 8 {
		go func() { done <- w.Match(context.Background(), r) }()
	}
	for range 8 {
		assert.True(t, (<-done).Matches)
	}
}

func TestEquivalentsFuncsNil(t *testing.T) {
	var f EquivalentsFuncs
	assert.Nil(t, f.EquivalentResourcesFor(deploymentsV1, ""))
	assert.True(t, f.KindFor(deploymentsV1, "").Empty())
}

func TestMatchAllocatesNothing(t *testing.T) {
	allRules := []admissionregistrationv1.RuleWithOperations{
		ruleOf([]string{"CREATE", "UPDATE"}, []string{"apps"}, []string{"v1"}, []string{"deployments"}),
		ruleOf([]string{"CREATE"}, []string{""}, []string{"v1"}, []string{"pods", "pods/exec"}),
	}
	hooks := []*Webhook{
		webhookOf(allRules, prod, web, ptr(admissionregistrationv1.Equivalent)),
		webhookOf(allRules, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"dev"}}}}, everything, nil),
		webhookOf(allRules[:1], prod, web, ptr(admissionregistrationv1.Equivalent)),
	}
	var r Request
	ctx := context.Background()
	object := pod(map[string]string{"app": "web"})
	nsLabels := map[string]string{"env": "prod"}
	lookup := NamespaceLookupFunc(func(context.Context, string) (map[string]string, error) { return nsLabels, nil })
	var mapper runtime.EquivalentResourceMapper = testEquivalents
	matched := 0
	allocs := testing.AllocsPerRun(100, func() {
		r = Request{Operation: admissionv1.Create, Kind: podGVK, Resource: podsGVR, Name: "p", Namespace: "default",
			Object: object, Namespaces: lookup, Equivalents: mapper}
		matched = 0
		for _, h := range hooks {
			if h.Match(ctx, &r).Matches {
				matched++
			}
		}
	})
	assert.Equal(t, 2, matched)
	assert.Zero(t, allocs)

	index := NewIndex(hooks[0], hooks[1], hooks[2])
	count := func(int, Result) bool { matched++; return true }
	allocs = testing.AllocsPerRun(100, func() {
		r = Request{Operation: admissionv1.Create, Kind: podGVK, Resource: podsGVR, Name: "p", Namespace: "default",
			Object: object, Namespaces: lookup, Equivalents: mapper}
		matched = 0
		index.Match(ctx, &r, count)
	})
	assert.Equal(t, 2, matched)
	assert.Zero(t, allocs)
}

var _ runtime.Object = &metav1.Status{}

func TestDefaultExclusionIsTheList(t *testing.T) {
	for _, gr := range ExcludedResources() {
		assert.True(t, isDefaultExcluded(&schema.GroupVersionResource{Group: gr.Group, Version: "v9", Resource: gr.Resource}), gr)
		assert.False(t, isDefaultExcluded(&schema.GroupVersionResource{Group: gr.Group + "x", Resource: gr.Resource}), gr)
		assert.False(t, isDefaultExcluded(&schema.GroupVersionResource{Group: gr.Group, Resource: gr.Resource + "x"}), gr)
	}
	assert.False(t, isDefaultExcluded(&podsGVR))
}
