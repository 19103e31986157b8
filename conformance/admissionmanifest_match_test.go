package conformance

import (
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	webhookgeneric "k8s.io/apiserver/pkg/admission/plugin/webhook/generic"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// The differential test of admissionmanifest's public WebhookMatcher against
// k8s.io/apiserver v0.37.2's webhook dispatcher (ShouldCallHook, which also
// evaluates the match conditions and fails closed on their errors), over the
// corpus of admissionmatch_corpus_test.go with match conditions and failure
// policies added: every webhook called or failing, in order, with the same
// kind, resource and error.

// unconvertedAttributes gives the match conditions the request's objects as
// they are, as WebhookMatcher does (its callers convert objects themselves).
type unconvertedAttributes struct{ attr admission.Attributes }

func (u unconvertedAttributes) VersionedAttribute(gvk schema.GroupVersionKind) (*admission.VersionedAttributes, error) {
	return &admission.VersionedAttributes{Attributes: u.attr, VersionedKind: gvk,
		VersionedObject: admission.NewLazyObject(u.attr.GetObject()), VersionedOldObject: admission.NewLazyObject(u.attr.GetOldObject())}, nil
}

// matchConditionSets are the match conditions given to the corpus's
// webhooks: true, false, failing on some objects (no labels, not an object)
// and failing always.
var matchConditionSets = [][]admissionregistrationv1.MatchCondition{
	nil,
	{{Name: "not-kube-system", Expression: "request.namespace != 'kube-system'"}},
	{{Name: "has-app", Expression: "has(object.metadata.labels) && 'app' in object.metadata.labels"}},
	{{Name: "app-is-web", Expression: "object.metadata.labels.app == 'web'"}},
	{{Name: "create", Expression: "request.operation == 'CREATE'"}, {Name: "pods", Expression: "request.resource.resource == 'pods'"}},
	{{Name: "kind", Expression: "request.kind.kind != 'Widget' && request.requestKind.kind != 'Widget'"}},
	{{Name: "broken", Expression: "request.name.size() / 0 > 1"}},
}

func TestAdmissionManifestWebhookMatcherMatchesKubeAPIServer(t *testing.T) {
	d := newDiffs(t)
	c := newAMCorpus(11, 800)
	ctx := context.Background()
	kube := kubeWebhookDispatcher(t, c.world)
	o := amObjectInterfaces{mapper: amMapper{}}
	var webhooks []admissionmanifest.Webhook
	var accessors []webhook.WebhookAccessor
	for i := range 90 {
		h := c.gen.webhook(i)
		// Webhooks matched through an equivalent resource (every third)
		// get no conditions: kube-apiserver would convert the objects
		// first, which the corpus has no converter for.
		var conds []admissionregistrationv1.MatchCondition
		if i%3 != 0 {
			conds = matchConditionSets[(i/3)%len(matchConditionSets)]
		}
		failurePolicy := ptrTo(admissionregistrationv1.Fail)
		if i%4 == 1 {
			failurePolicy = ptrTo(admissionregistrationv1.Ignore)
		}
		name := fmt.Sprintf("hook-%d.example.com", i)
		if i%2 == 0 {
			w := &admissionregistrationv1.ValidatingWebhook{Name: name, Rules: h.criteria.Rules, NamespaceSelector: h.criteria.NamespaceSelector,
				ObjectSelector: h.criteria.ObjectSelector, MatchPolicy: h.criteria.MatchPolicy, MatchConditions: conds, FailurePolicy: failurePolicy}
			webhooks = append(webhooks, admissionmanifest.Webhook{Validating: w})
			accessors = append(accessors, webhook.NewValidatingWebhookAccessor(name, "config", w))
		} else {
			w := &admissionregistrationv1.MutatingWebhook{Name: name, Rules: h.criteria.Rules, NamespaceSelector: h.criteria.NamespaceSelector,
				ObjectSelector: h.criteria.ObjectSelector, MatchPolicy: h.criteria.MatchPolicy, MatchConditions: conds, FailurePolicy: failurePolicy}
			webhooks = append(webhooks, admissionmanifest.Webhook{Mutating: w})
			accessors = append(accessors, webhook.NewMutatingWebhookAccessor(name, "config", w))
		}
	}
	matcher, err := admissionmanifest.NewWebhookMatcher(webhooks, admissionmanifest.MatchOptions{
		Namespaces: amLookup(c.world), Equivalents: amMapper{}, ExcludedResources: []schema.GroupResource{},
	})
	if err != nil {
		t.Fatal(err)
	}
	called, failed, excluded := 0, 0, 0
	for j := range c.requests {
		req := &c.requests[j]
		attr := req.attributes()
		type want struct {
			i          int
			invocation *webhookgeneric.WebhookInvocation
			err        *apierrors.StatusError
		}
		var wants []want
		for i, a := range accessors {
			invocation, err := kube.ShouldCallHook(ctx, a, attr, o, unconvertedAttributes{attr})
			if invocation != nil || err != nil {
				wants = append(wants, want{i, invocation, err})
			}
		}
		r := &admissionmanifest.Request{Operation: admissionv1.Operation(req.op), Kind: req.kind, Resource: req.resource,
			SubResource: req.subresource, Name: req.name, Namespace: req.namespace, Object: req.object, OldObject: req.oldObject}
		got := matcher.Match(ctx, r)
		d.cases++
		if len(got) != len(wants) {
			d.add("%s: %d webhooks called or failing, kube-apiserver %d", req, len(got), len(wants))
			continue
		}
		for k, w := range wants {
			what := fmt.Sprintf("%s, webhook %d", req, w.i)
			if got[k].Webhook.Name() != webhooks[w.i].Name() {
				d.add("%s: got webhook %s", what, got[k].Webhook.Name())
				continue
			}
			if w.invocation != nil {
				called++
				if got[k].Resource != w.invocation.Resource || got[k].Kind != w.invocation.Kind {
					d.add("%s: called with %v %v, kube-apiserver %v %v", what, got[k].Resource, got[k].Kind, w.invocation.Resource, w.invocation.Kind)
				}
				d.sameError(what, got[k].Err, nil)
			} else {
				failed++
				d.sameError(what, got[k].Err, w.err)
			}
		}
		// Explain decides as Match does.
		n := 0
		for _, x := range matcher.Explain(ctx, r) {
			if x.Called || x.Err != nil {
				n++
			} else if x.Reason == "match condition" {
				excluded++
			}
		}
		if n != len(wants) {
			d.add("%s: Explain calls or fails %d webhooks, kube-apiserver %d", req, n, len(wants))
		}
	}
	t.Logf("%d requests × %d webhooks: %d calls, %d failures, %d excluded by match conditions", len(c.requests), len(webhooks), called, failed, excluded)
	if called < 400 || failed < 1000 || excluded < 100 {
		t.Errorf("the corpus exercises too few calls (%d), failures (%d) or exclusions by conditions (%d)", called, failed, excluded)
	}
}
