package conformance

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	webhookgeneric "k8s.io/apiserver/pkg/admission/plugin/webhook/generic"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/namespace"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/object"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse-dev/gatehouse/internal/admissionmatch"
)

// The differential tests of internal/admissionmatch against k8s.io/apiserver
// v0.37.2: its rule, namespace and object predicates
// (plugin/webhook/predicates/...), the webhook dispatcher's ShouldCallHook
// (plugin/webhook/generic) with the exemptions of its Dispatch, and the
// policy matcher (plugin/policy/generic's DefinitionMatches and
// BindingMatches over plugin/policy/matching) with the exemptions of the
// policy plugin's Dispatch. Over a generated corpus (admissionmatch_corpus_test.go)
// of rules, selectors, match policies and requests, every decision, matched
// kind and resource, and error (text and status) must be the same.

func admissionv1Operation(op admission.Operation) admissionv1.Operation {
	return admissionv1.Operation(op)
}

// kubeExcludedResources is Kubernetes 1.37's exclusion.Excluded() (package
// pkg/kubeapiserver/admission/exclusion of k8s.io/kubernetes, which is not
// importable): the resources kube-apiserver configures its admission plugins
// to exclude.
var kubeExcludedResources = []schema.GroupResource{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
	{Group: "authentication.k8s.io", Resource: "tokenreviews"},
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
}

// kubePolicyConfigResources is the policy plugin's admissionResources
// (unexported in plugin/policy/generic).
var kubePolicyConfigResources = []schema.GroupResource{
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"},
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"},
}

// pure are the options that make a gatehouse hook exactly kube-apiserver's
// predicates: no exemption.
var pure = admissionmatch.Options{Static: true, ExcludedResources: []schema.GroupResource{}}

// amCorpus is the shared corpus: requests and the world they are made in.
type amCorpus struct {
	world    map[string]amNamespace
	requests []amRequest
	gen      *amGen
}

func newAMCorpus(seed uint64, requests int) *amCorpus {
	c := &amCorpus{world: amNamespaces(), gen: newAMGen(seed)}
	for range requests {
		c.requests = append(c.requests, c.gen.request())
	}
	return c
}

// sameError compares two errors: the same text, and when kube-apiserver's
// is a StatusError, the same status.
func (d *diffs) sameError(what string, got, want error) {
	if (got == nil) != (want == nil) {
		d.add("%s: error %v, kube-apiserver %v", what, got, want)
		return
	}
	if want == nil {
		return
	}
	if got.Error() != want.Error() {
		d.add("%s: error %q, kube-apiserver %q", what, got.Error(), want.Error())
	}
	var wantStatus *apierrors.StatusError
	if errors.As(want, &wantStatus) {
		gotStatus, ok := got.(*apierrors.StatusError)
		if !ok {
			d.add("%s: error of type %T, kube-apiserver %T", what, got, want)
		} else if !reflect.DeepEqual(gotStatus.ErrStatus, wantStatus.ErrStatus) {
			d.add("%s: status %#v, kube-apiserver %#v", what, gotStatus.ErrStatus, wantStatus.ErrStatus)
		}
	} else if _, ok := got.(*apierrors.StatusError); ok {
		d.add("%s: error of type %T, kube-apiserver %T", what, got, want)
	}
}

// matchAll is a rule that matches every request.
var matchAll = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{"*"},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}},
}}

func TestAdmissionMatchRulesMatchKubeAPIServer(t *testing.T) {
	d := newDiffs(t)
	c := newAMCorpus(1, 200)
	ctx := context.Background()
	for range 1500 {
		rule := c.gen.rule()
		hook := admissionmatch.CompileWebhook(admissionmatch.WebhookCriteria{
			Rules: []admissionregistrationv1.RuleWithOperations{rule}, NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
		}, pure)
		for i := range c.requests {
			req := &c.requests[i]
			d.cases++
			want := (&rules.Matcher{Rule: rule, Attr: req.attributes()}).Matches()
			got := hook.Match(ctx, req.gatehouse(c.world, nil))
			if got.Matches != want || got.Err != nil {
				d.add("rule %+v on %s: %+v, kube-apiserver %v", rule, req, got, want)
			}
		}
	}
}

// selectorProvider gives kube-apiserver's predicates a selector.
type selectorProvider struct{ s *metav1.LabelSelector }

func (p selectorProvider) GetParsedNamespaceSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(p.s)
}

func (p selectorProvider) GetParsedObjectSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(p.s)
}

func TestAdmissionMatchSelectorsMatchKubeAPIServer(t *testing.T) {
	d := newDiffs(t)
	c := newAMCorpus(2, 400)
	ctx := context.Background()
	nsMatcher := &namespace.Matcher{NamespaceLister: amLister{c.world}, Client: amClient(c.world)}
	objMatcher := &object.Matcher{}
	for range 300 {
		sel := c.gen.selector()
		nsHook := admissionmatch.CompileWebhook(admissionmatch.WebhookCriteria{Rules: matchAll, NamespaceSelector: sel, ObjectSelector: &metav1.LabelSelector{}}, pure)
		objHook := admissionmatch.CompileWebhook(admissionmatch.WebhookCriteria{Rules: matchAll, NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: sel}, pure)
		for i := range c.requests {
			req := &c.requests[i]
			attr := req.attributes()

			d.cases++
			want, wantErr := nsMatcher.MatchNamespaceSelector(selectorProvider{sel}, attr)
			got := nsHook.Match(ctx, req.gatehouse(c.world, nil))
			what := fmt.Sprintf("namespaceSelector %v on %s", sel, req)
			if wantErr != nil {
				d.sameError(what, got.Err, wantErr)
			} else if got.Matches != want || got.Err != nil {
				d.add("%s: %+v, kube-apiserver %v", what, got, want)
			}

			d.cases++
			want, wantErr = objMatcher.MatchObjectSelector(selectorProvider{sel}, attr)
			got = objHook.Match(ctx, req.gatehouse(c.world, nil))
			what = fmt.Sprintf("objectSelector %v on %s", sel, req)
			if wantErr != nil {
				d.sameError(what, got.Err, wantErr)
			} else if got.Matches != want || got.Err != nil {
				d.add("%s: %+v, kube-apiserver %v", what, got, want)
			}
		}
	}
}

// kubeWebhookDispatcher is kube-apiserver's generic webhook, for
// ShouldCallHook, over the corpus's world.
func kubeWebhookDispatcher(t testing.TB, world map[string]amNamespace) *webhookgeneric.Webhook {
	handler := admission.NewHandler(admission.Create, admission.Update, admission.Delete, admission.Connect)
	w, err := webhookgeneric.NewWebhook(handler, nil, nil, func(*webhookutil.ClientManager) webhookgeneric.Dispatcher { return nil })
	if err != nil {
		t.Fatal(err)
	}
	w.SetExternalKubeClientSet(amClient(world))
	w.SetExternalKubeInformerFactory(amInformerFactory(world))
	return w
}

// amWebhook is one generated webhook, as gatehouse and as kube-apiserver see
// it.
type amWebhook struct {
	criteria admissionmatch.WebhookCriteria
	accessor webhook.WebhookAccessor
}

func (g *amGen) webhook(i int) amWebhook {
	c := admissionmatch.WebhookCriteria{
		Rules:             g.rules(3),
		NamespaceSelector: g.selector(),
		ObjectSelector:    g.selector(),
		MatchPolicy:       g.matchPolicy(),
	}
	if i%3 == 0 {
		// Every third webhook is about equivalent resources.
		g.equivalents = true
		c.Rules = g.rules(3)
		g.equivalents = false
		c.NamespaceSelector, c.ObjectSelector = &metav1.LabelSelector{}, &metav1.LabelSelector{}
		c.MatchPolicy = ptrTo(admissionregistrationv1.Equivalent)
	}
	name := fmt.Sprintf("hook-%d.example.com", i)
	if i%2 == 0 {
		h := &admissionregistrationv1.ValidatingWebhook{Name: name, Rules: c.Rules, NamespaceSelector: c.NamespaceSelector, ObjectSelector: c.ObjectSelector, MatchPolicy: c.MatchPolicy}
		return amWebhook{criteria: admissionmatch.ValidatingWebhookCriteria(h), accessor: webhook.NewValidatingWebhookAccessor(name, "config", h)}
	}
	h := &admissionregistrationv1.MutatingWebhook{Name: name, Rules: c.Rules, NamespaceSelector: c.NamespaceSelector, ObjectSelector: c.ObjectSelector, MatchPolicy: c.MatchPolicy}
	return amWebhook{criteria: admissionmatch.MutatingWebhookCriteria(h), accessor: webhook.NewMutatingWebhookAccessor(name, "config", h)}
}

func TestAdmissionMatchWebhooksMatchKubeAPIServer(t *testing.T) {
	d := newDiffs(t)
	c := newAMCorpus(3, 300)
	ctx := context.Background()
	kube := kubeWebhookDispatcher(t, c.world)
	o := amObjectInterfaces{mapper: amMapper{}}
	matched, failed, equivalent := 0, 0, 0
	type kubeResult struct {
		invocation *webhookgeneric.WebhookInvocation
		err        *apierrors.StatusError
	}
	// kubeResults[j][i]: what kube-apiserver decided for request j and
	// webhook i, when it called it or failed.
	kubeResults := make([]map[int]kubeResult, len(c.requests))
	for j := range kubeResults {
		kubeResults[j] = map[int]kubeResult{}
	}
	var statics []admissionmatch.Hook
	for i := range 600 {
		h := c.gen.webhook(i)
		static := admissionmatch.CompileWebhook(h.criteria, pure)
		statics = append(statics, static)
		api := admissionmatch.CompileWebhook(h.criteria, admissionmatch.Options{})
		for j := range c.requests {
			req := &c.requests[j]
			attr := req.attributes()
			invocation, wantErr := kube.ShouldCallHook(ctx, h.accessor, attr, o, nil)
			what := fmt.Sprintf("webhook %+v on %s", h.criteria, req)

			d.cases++
			got := static.Match(ctx, req.gatehouse(c.world, amMapper{}))
			d.compareInvocation(what, got, invocation, wantErr)
			switch {
			case invocation != nil:
				matched++
				if invocation.Resource != attr.GetResource() {
					equivalent++
				}
			case wantErr != nil:
				failed++
			}
			if invocation != nil || wantErr != nil {
				kubeResults[j][i] = kubeResult{invocation, wantErr}
			}

			// An API webhook: kube-apiserver's Dispatch sends the
			// excluded resources to no webhook, the admission
			// configuration kinds to static webhooks only.
			d.cases++
			got = api.Match(ctx, req.gatehouse(c.world, amMapper{}))
			if slices.Contains(kubeExcludedResources, attr.GetResource().GroupResource()) || rules.IsExemptAdmissionConfigurationResource(attr) {
				invocation, wantErr = nil, nil
			}
			d.compareInvocation("API "+what, got, invocation, wantErr)

			// Explain decides as Match does.
			res, x := static.Explain(ctx, req.gatehouse(c.world, amMapper{}))
			if !sameResult(res, static.Match(ctx, req.gatehouse(c.world, amMapper{}))) || (x.Reason == admissionmatch.ReasonMatched) != res.Matches {
				d.add("%s: Explain %+v %+v differs from Match", what, res, x)
			}
		}
	}
	// The index of the 600 webhooks calls back exactly for the webhooks
	// kube-apiserver calls or fails on, in order.
	index := admissionmatch.NewIndex(statics...)
	for j := range c.requests {
		req := &c.requests[j]
		d.cases++
		seen := 0
		last := -1
		index.Match(ctx, req.gatehouse(c.world, amMapper{}), func(i int, got admissionmatch.Result) bool {
			want, ok := kubeResults[j][i]
			if !ok {
				d.add("index on %s: webhook %d matched or failed: %+v, kube-apiserver did not call it", req, i, got)
				return true
			}
			if i <= last {
				d.add("index on %s: webhook %d after %d", req, i, last)
			}
			last = i
			seen++
			d.compareInvocation(fmt.Sprintf("index on %s, webhook %d", req, i), got, want.invocation, want.err)
			return true
		})
		if seen != len(kubeResults[j]) {
			d.add("index on %s: %d webhooks matched or failed, kube-apiserver %d", req, seen, len(kubeResults[j]))
		}
	}
	t.Logf("%d webhook cases matched (%d through an equivalent resource), %d failed", matched, equivalent, failed)
	if matched < 1000 || failed < 1000 || equivalent < 50 {
		t.Errorf("the corpus exercises too few matches (%d) or errors (%d)", matched, failed)
	}
}

func sameResult(a, b admissionmatch.Result) bool {
	return a.Matches == b.Matches && a.Kind == b.Kind && a.Resource == b.Resource && fmt.Sprint(a.Err) == fmt.Sprint(b.Err)
}

func (d *diffs) compareInvocation(what string, got admissionmatch.Result, want *webhookgeneric.WebhookInvocation, wantErr *apierrors.StatusError) {
	if wantErr != nil {
		d.sameError(what, got.Err, wantErr)
		if got.Matches {
			d.add("%s: matches with an error", what)
		}
		return
	}
	if got.Err != nil {
		d.add("%s: error %v, kube-apiserver none", what, got.Err)
		return
	}
	if got.Matches != (want != nil) {
		d.add("%s: matches %v, kube-apiserver %v", what, got.Matches, want != nil)
		return
	}
	if want != nil && (got.Resource != want.Resource || got.Kind != want.Kind) {
		d.add("%s: matched %v %v, kube-apiserver %v %v", what, got.Resource, got.Kind, want.Resource, want.Kind)
	}
}

// amPolicy and amBinding are kube-apiserver's accessors of a policy's match
// constraints and of a binding's match resources.
type amPolicy struct {
	constraints *admissionregistrationv1.MatchResources
}

func (p amPolicy) GetName() string                                              { return "policy" }
func (p amPolicy) GetNamespace() string                                         { return "" }
func (p amPolicy) GetParamKind() *admissionregistrationv1.ParamKind             { return nil }
func (p amPolicy) GetMatchConstraints() *admissionregistrationv1.MatchResources { return p.constraints }
func (p amPolicy) GetFailurePolicy() *admissionregistrationv1.FailurePolicyType { return nil }

type amBinding struct {
	resources *admissionregistrationv1.MatchResources
}

func (b amBinding) GetName() string                                            { return "binding" }
func (b amBinding) GetNamespace() string                                       { return "" }
func (b amBinding) GetPolicyName() types.NamespacedName                        { return types.NamespacedName{Name: "policy"} }
func (b amBinding) GetParamRef() *admissionregistrationv1.ParamRef             { return nil }
func (b amBinding) GetMatchResources() *admissionregistrationv1.MatchResources { return b.resources }

var (
	_ generic.PolicyAccessor  = amPolicy{}
	_ generic.BindingAccessor = amBinding{}
)

func (g *amGen) matchResources() *admissionregistrationv1.MatchResources {
	if g.r.IntN(40) == 0 {
		return nil
	}
	mr := &admissionregistrationv1.MatchResources{
		NamespaceSelector:    g.selector(),
		ObjectSelector:       g.selector(),
		ResourceRules:        g.namedRules(3),
		ExcludeResourceRules: g.namedRules(2),
		MatchPolicy:          g.matchPolicy(),
	}
	// Fewer nil selectors than in webhooks: each fails the policy.
	if mr.NamespaceSelector == nil && g.r.IntN(3) != 0 {
		mr.NamespaceSelector = &metav1.LabelSelector{}
	}
	if mr.ObjectSelector == nil && g.r.IntN(3) != 0 {
		mr.ObjectSelector = &metav1.LabelSelector{}
	}
	return mr
}

func TestAdmissionMatchPoliciesMatchKubeAPIServer(t *testing.T) {
	d := newDiffs(t)
	c := newAMCorpus(4, 300)
	ctx := context.Background()
	kube := generic.NewPolicyMatcher(matching.NewMatcher(amLister{c.world}, amClient(c.world)))
	o := amObjectInterfaces{mapper: amMapper{}}
	matched, failed, equivalent := 0, 0, 0
	type kubeResult struct {
		resource schema.GroupVersionResource
		kind     schema.GroupVersionKind
		err      error
	}
	kubeResults := make([]map[int]kubeResult, len(c.requests))
	for j := range kubeResults {
		kubeResults[j] = map[int]kubeResult{}
	}
	var policies []admissionmatch.Hook
	for i := range 600 {
		c.gen.equivalents = i%3 == 0
		mr := c.gen.matchResources()
		c.gen.equivalents = false
		policy := admissionmatch.CompilePolicy(mr, pure)
		policies = append(policies, policy)
		apiPolicy := admissionmatch.CompilePolicy(mr, admissionmatch.Options{})
		binding := admissionmatch.CompileBinding(mr, pure)
		for j := range c.requests {
			req := &c.requests[j]
			attr := req.attributes()
			what := fmt.Sprintf("matchResources %+v on %s", mr, req)

			d.cases++
			want, wantResource, wantKind, wantErr := kube.DefinitionMatches(attr, o, amPolicy{mr})
			got := policy.Match(ctx, req.gatehouse(c.world, amMapper{}))
			d.comparePolicy("policy "+what, got, want, wantResource, wantKind, wantErr)
			switch {
			case want:
				matched++
				if wantResource != attr.GetResource() {
					equivalent++
				}
			case wantErr != nil:
				failed++
			}
			if want || wantErr != nil {
				kubeResults[j][i] = kubeResult{wantResource, wantKind, wantErr}
			}

			d.cases++
			if slices.Contains(kubeExcludedResources, attr.GetResource().GroupResource()) ||
				slices.Contains(kubePolicyConfigResources, attr.GetResource().GroupResource()) {
				want, wantErr = false, nil
			}
			got = apiPolicy.Match(ctx, req.gatehouse(c.world, amMapper{}))
			d.comparePolicy("API policy "+what, got, want, wantResource, wantKind, wantErr)

			d.cases++
			want, wantErr = kube.BindingMatches(attr, o, amBinding{mr})
			got = binding.Match(ctx, req.gatehouse(c.world, amMapper{}))
			d.sameError("binding "+what, got.Err, wantErr)
			if wantErr == nil && got.Matches != want {
				d.add("binding %s: matches %v, kube-apiserver %v", what, got.Matches, want)
			}

			res, x := policy.Explain(ctx, req.gatehouse(c.world, amMapper{}))
			if !sameResult(res, policy.Match(ctx, req.gatehouse(c.world, amMapper{}))) || (x.Reason == admissionmatch.ReasonMatched) != res.Matches {
				d.add("%s: Explain %+v %+v differs from Match", what, res, x)
			}
		}
	}
	index := admissionmatch.NewIndex(policies...)
	for j := range c.requests {
		req := &c.requests[j]
		d.cases++
		seen := 0
		index.Match(ctx, req.gatehouse(c.world, amMapper{}), func(i int, got admissionmatch.Result) bool {
			want, ok := kubeResults[j][i]
			if !ok {
				d.add("index on %s: policy %d matched or failed: %+v, kube-apiserver did not", req, i, got)
				return true
			}
			seen++
			d.comparePolicy(fmt.Sprintf("index on %s, policy %d", req, i), got, want.err == nil, want.resource, want.kind, want.err)
			return true
		})
		if seen != len(kubeResults[j]) {
			d.add("index on %s: %d policies matched or failed, kube-apiserver %d", req, seen, len(kubeResults[j]))
		}
	}
	t.Logf("%d policy cases matched (%d through an equivalent resource), %d failed", matched, equivalent, failed)
	if matched < 1000 || failed < 1000 || equivalent < 50 {
		t.Errorf("the corpus exercises too few matches (%d) or errors (%d)", matched, failed)
	}
}

func (d *diffs) comparePolicy(what string, got admissionmatch.Result, want bool, wantResource schema.GroupVersionResource, wantKind schema.GroupVersionKind, wantErr error) {
	d.sameError(what, got.Err, wantErr)
	if wantErr != nil {
		return
	}
	if got.Matches != want {
		d.add("%s: matches %v, kube-apiserver %v", what, got.Matches, want)
		return
	}
	if want && (got.Resource != wantResource || got.Kind != wantKind) {
		d.add("%s: matched %v %v, kube-apiserver %v %v", what, got.Resource, got.Kind, wantResource, wantKind)
	}
}

// recordingDispatcher records whether kube-apiserver's webhook plugin
// dispatched a request to its webhooks.
type recordingDispatcher struct{ hooks []webhook.WebhookAccessor }

func (d *recordingDispatcher) Dispatch(_ context.Context, _ admission.Attributes, _ admission.ObjectInterfaces, hooks []webhook.WebhookAccessor) error {
	d.hooks = hooks
	return nil
}

// staticWebhookSource is an API webhook source that lists fixed webhooks.
type staticWebhookSource struct{ hooks []webhook.WebhookAccessor }

func (s staticWebhookSource) Webhooks() []webhook.WebhookAccessor { return s.hooks }
func (s staticWebhookSource) HasSynced() bool                     { return true }

// TestAdmissionMatchWebhookExemptionsMatchKubeAPIServer runs kube-apiserver's
// webhook plugin itself (generic.Webhook.Dispatch, with kube-apiserver's
// excluded resources and the feature gates' defaults) on every request of
// the corpus, with API webhooks only: the requests it does not dispatch are
// those an API webhook of gatehouse never matches.
func TestAdmissionMatchWebhookExemptionsMatchKubeAPIServer(t *testing.T) {
	d := newDiffs(t)
	c := newAMCorpus(5, 2000)
	ctx := context.Background()
	world := map[string]amNamespace{}
	dispatcher := &recordingDispatcher{}
	apiHook := webhook.NewValidatingWebhookAccessor("api", "config", &admissionregistrationv1.ValidatingWebhook{Name: "api.example.com"})
	handler := admission.NewHandler(admission.Create, admission.Update, admission.Delete, admission.Connect)
	kube, err := webhookgeneric.NewWebhook(handler, nil,
		func(informers.SharedInformerFactory, sets.Set[schema.GroupResource]) webhookgeneric.Source {
			return staticWebhookSource{hooks: []webhook.WebhookAccessor{apiHook}}
		},
		func(*webhookutil.ClientManager) webhookgeneric.Dispatcher { return dispatcher })
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	kube.SetExternalKubeClientSet(amClient(world))
	kube.SetExternalKubeInformerFactory(factory)
	kube.SetDrainedNotification(ctx.Done())
	kube.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	kube.SetExcludedAdmissionResources(kubeExcludedResources)
	if err := kube.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	factory.WaitForCacheSync(stop)

	everything := &metav1.LabelSelector{}
	api := admissionmatch.CompileWebhook(admissionmatch.WebhookCriteria{Rules: matchAll, NamespaceSelector: everything, ObjectSelector: everything}, admissionmatch.Options{})
	static := admissionmatch.CompileWebhook(admissionmatch.WebhookCriteria{Rules: matchAll, NamespaceSelector: everything, ObjectSelector: everything}, admissionmatch.Options{Static: true})
	exempt := 0
	for i := range c.requests {
		req := &c.requests[i]
		attr := req.attributes()
		dispatcher.hooks = nil
		if err := kube.Dispatch(ctx, attr, amObjectInterfaces{mapper: amMapper{}}); err != nil {
			t.Fatal(err)
		}
		dispatched := len(dispatcher.hooks) > 0
		d.cases++
		got := api.Match(ctx, req.gatehouse(world, amMapper{}))
		if got.Matches != dispatched {
			d.add("API webhook on %s: matches %v, kube-apiserver dispatches %v", req, got.Matches, dispatched)
		}
		if !dispatched {
			exempt++
		}
		// kube-apiserver's static webhooks see the admission configuration
		// objects, not the excluded resources.
		d.cases++
		excluded := slices.Contains(kubeExcludedResources, attr.GetResource().GroupResource())
		if got := static.Match(ctx, req.gatehouse(world, amMapper{})); got.Matches == excluded {
			d.add("static webhook on %s: matches %v", req, got.Matches)
		}
	}
	t.Logf("%d of %d requests exempt from API webhooks", exempt, len(c.requests))
	if exempt < 100 {
		t.Errorf("too few exempt requests (%d)", exempt)
	}
}

// allowAll is the policy plugin's authorizer (never asked here).
type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

// recordingPolicyDispatcher records the policies kube-apiserver's policy
// plugin dispatched a request to.
type recordingPolicyDispatcher struct{ hooks []string }

func (d *recordingPolicyDispatcher) Start(context.Context) error { return nil }
func (d *recordingPolicyDispatcher) Dispatch(_ context.Context, _ admission.Attributes, _ admission.ObjectInterfaces, hooks []string) error {
	d.hooks = hooks
	return nil
}

// fixedPolicySource is a policy source that lists fixed hooks.
type fixedPolicySource struct{ hooks []string }

func (s fixedPolicySource) Hooks() []string               { return s.hooks }
func (s fixedPolicySource) Run(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
func (s fixedPolicySource) HasSynced() bool               { return true }

// TestAdmissionMatchPolicyExemptionsMatchKubeAPIServer runs kube-apiserver's
// policy plugin itself (policy/generic.Plugin.Dispatch, with kube-apiserver's
// excluded resources) on every request of the corpus, with API policies
// only: the requests it does not dispatch are those an API policy or binding
// of gatehouse never matches.
func TestAdmissionMatchPolicyExemptionsMatchKubeAPIServer(t *testing.T) {
	d := newDiffs(t)
	c := newAMCorpus(6, 2000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dispatcher := &recordingPolicyDispatcher{}
	handler := admission.NewHandler(admission.Create, admission.Update, admission.Delete, admission.Connect)
	kube := generic.NewPlugin[string](handler,
		func(informers.SharedInformerFactory, kubernetes.Interface, dynamic.Interface, meta.RESTMapper) generic.Source[string] {
			return fixedPolicySource{hooks: []string{"api-policy"}}
		},
		func(authorizer.UnconditionalAuthorizer, *matching.Matcher, kubernetes.Interface) generic.Dispatcher[string] {
			return dispatcher
		})
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	kube.SetExternalKubeInformerFactory(factory)
	kube.SetExternalKubeClientSet(fake.NewClientset())
	kube.SetRESTMapper(meta.NewDefaultRESTMapper(nil))
	kube.SetDynamicClient(dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()))
	kube.SetDrainedNotification(ctx.Done())
	kube.SetUnconditionalAuthorizer(allowAll{})
	kube.SetEnabled(true)
	kube.SetExcludedAdmissionResources(kubeExcludedResources)
	if err := kube.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	everything := &metav1.LabelSelector{}
	mr := &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything}
	api := admissionmatch.CompilePolicy(mr, admissionmatch.Options{})
	apiBinding := admissionmatch.CompileBinding(nil, admissionmatch.Options{})
	static := admissionmatch.CompilePolicy(mr, admissionmatch.Options{Static: true})
	exempt := 0
	for i := range c.requests {
		req := &c.requests[i]
		attr := req.attributes()
		dispatcher.hooks = nil
		if err := kube.Dispatch(ctx, attr, amObjectInterfaces{mapper: amMapper{}}); err != nil {
			t.Fatal(err)
		}
		dispatched := len(dispatcher.hooks) > 0
		if !dispatched {
			exempt++
		}
		d.cases++
		if got := api.Match(ctx, req.gatehouse(map[string]amNamespace{}, amMapper{})); got.Matches != dispatched {
			d.add("API policy on %s: matches %v, kube-apiserver dispatches %v", req, got.Matches, dispatched)
		}
		d.cases++
		if got := apiBinding.Match(ctx, req.gatehouse(map[string]amNamespace{}, amMapper{})); got.Matches != dispatched {
			d.add("API binding on %s: matches %v, kube-apiserver dispatches %v", req, got.Matches, dispatched)
		}
		d.cases++
		excluded := slices.Contains(kubeExcludedResources, attr.GetResource().GroupResource())
		if got := static.Match(ctx, req.gatehouse(map[string]amNamespace{}, amMapper{})); got.Matches == excluded {
			d.add("static policy on %s: matches %v", req, got.Matches)
		}
	}
	t.Logf("%d of %d requests exempt from API policies", exempt, len(c.requests))
	if exempt < 100 {
		t.Errorf("too few exempt requests (%d)", exempt)
	}
}

// FuzzAdmissionMatchMatchesKubeAPIServer compares a webhook and a policy
// generated from the fuzzer's seed with kube-apiserver's ShouldCallHook and
// DefinitionMatches on requests generated from the same seed.
func FuzzAdmissionMatchMatchesKubeAPIServer(f *testing.F) {
	for _, seed := range []uint64{0, 1, 7, 1872, 5793} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	world := amNamespaces()
	kube := kubeWebhookDispatcher(f, world)
	kubePolicies := generic.NewPolicyMatcher(matching.NewMatcher(amLister{world}, amClient(world)))
	o := amObjectInterfaces{mapper: amMapper{}}
	f.Fuzz(func(t *testing.T, seed uint64, equivalents bool) {
		d := newDiffs(t)
		g := newAMGen(seed)
		g.equivalents = equivalents
		h := g.webhook(int(seed % 2))
		mr := g.matchResources()
		hook := admissionmatch.CompileWebhook(h.criteria, pure)
		policy := admissionmatch.CompilePolicy(mr, pure)
		ctx := context.Background()
		for range 20 {
			req := g.request()
			attr := req.attributes()
			d.cases++
			invocation, wantErr := kube.ShouldCallHook(ctx, h.accessor, attr, o, nil)
			d.compareInvocation(fmt.Sprintf("webhook %+v on %s", h.criteria, &req), hook.Match(ctx, req.gatehouse(world, amMapper{})), invocation, wantErr)
			d.cases++
			want, wantResource, wantKind, err := kubePolicies.DefinitionMatches(attr, o, amPolicy{mr})
			d.comparePolicy(fmt.Sprintf("policy %+v on %s", mr, &req), policy.Match(ctx, req.gatehouse(world, amMapper{})), want, wantResource, wantKind, err)
		}
	})
}
