package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gatehouse-dev/gatehouse/internal/admissionmatch"
)

// The corpus of the admissionmatch differential tests: a world of
// namespaces (as a lister and a client see it, and as one
// admissionmatch.NamespaceLookup answers), a fake equivalence mapper, and
// generators of rules, selectors and requests that favour the cases where
// the predicates disagree with a naive reading.

// amNamespace is one namespace of the world: what the lister and the live
// GET answer.
type amNamespace struct {
	labels    map[string]string
	listed    bool  // the lister has it
	inClient  bool  // the live GET finds it
	listerErr error // the lister fails with this
	clientErr error // the live GET fails with this
}

var errAMLookup = errors.New("namespace lookup failed")

func amNamespaces() map[string]amNamespace {
	notFound := apierrors.NewNotFound(corev1.Resource("namespaces"), "wrapped")
	return map[string]amNamespace{
		"default":   {labels: map[string]string{"env": "prod", "team": "a"}, listed: true, inClient: true},
		"dev":       {labels: map[string]string{"env": "dev", "tier": "3"}, listed: true, inClient: true},
		"nolabels":  {listed: true, inClient: true},
		"stale":     {labels: map[string]string{"env": "prod", "stale": "true"}, inClient: true},
		"missing":   {},
		"broken":    {listerErr: errAMLookup},
		"wrapped":   {clientErr: fmt.Errorf("wrapped: %w", notFound)},
		"forbidden": {clientErr: apierrors.NewForbidden(corev1.Resource("namespaces"), "forbidden", errors.New("no access"))},
		// The namespace of requests on namespaces without a namespace.
		"": {},
	}
}

// amLookup is gatehouse's view of the world: the final answer of the lister
// and the live GET.
func amLookup(world map[string]amNamespace) admissionmatch.NamespaceLookup {
	return admissionmatch.NamespaceLookupFunc(func(_ context.Context, name string) (map[string]string, error) {
		ns, ok := world[name]
		switch {
		case !ok:
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		case ns.listerErr != nil:
			return nil, ns.listerErr
		case ns.listed || ns.inClient:
			return ns.labels, nil
		case ns.clientErr != nil:
			return nil, ns.clientErr
		}
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	})
}

// amLister is kube-apiserver's namespace lister over the world.
type amLister struct{ world map[string]amNamespace }

func (l amLister) List(labels.Selector) ([]*corev1.Namespace, error) {
	return nil, errors.New("not used")
}

func (l amLister) Get(name string) (*corev1.Namespace, error) {
	ns := l.world[name]
	if ns.listerErr != nil {
		return nil, ns.listerErr
	}
	if !ns.listed {
		// The lister's own NotFound (note the singular resource).
		return nil, apierrors.NewNotFound(corev1.Resource("namespace"), name)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: ns.labels}}, nil
}

var _ corelisters.NamespaceLister = amLister{}

// amClient is a fake clientset whose namespace GETs answer from the world.
func amClient(world map[string]amNamespace) *fake.Clientset {
	client := fake.NewClientset()
	client.PrependReactor("get", "namespaces", func(action k8stesting.Action) (bool, runtime.Object, error) {
		name := action.(k8stesting.GetAction).GetName()
		ns, ok := world[name]
		switch {
		case ok && ns.inClient:
			return true, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: ns.labels}}, nil
		case ok && ns.listerErr != nil:
			return true, nil, ns.listerErr
		case ok && ns.clientErr != nil:
			return true, nil, ns.clientErr
		}
		return true, nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	})
	return client
}

// amInformerFactory is an informer factory whose namespace lister holds the
// listed namespaces of the world (for kube-apiserver's webhook, which takes
// its lister from a factory).
func amInformerFactory(world map[string]amNamespace) informers.SharedInformerFactory {
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	indexer := f.Core().V1().Namespaces().Informer().GetIndexer()
	for name, ns := range world {
		if ns.listed {
			if err := indexer.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: ns.labels}}); err != nil {
				panic(err)
			}
		}
	}
	return f
}

// amMapper is a fake EquivalentResourceMapper: groups of equivalent
// resources, each with the kind of every member and subresource it knows.
type amMapper struct{}

type amEquivalent struct {
	gvr  schema.GroupVersionResource
	kind map[string]schema.GroupVersionKind // by subresource; absent: unknown kind
}

var amEquivalenceClasses = [][]amEquivalent{
	{
		{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, kind: map[string]schema.GroupVersionKind{
			"": {Group: "apps", Version: "v1", Kind: "Deployment"}, "status": {Group: "apps", Version: "v1", Kind: "Deployment"}, "scale": {Group: "autoscaling", Version: "v1", Kind: "Scale"}}},
		{gvr: schema.GroupVersionResource{Group: "extensions", Version: "v1beta1", Resource: "deployments"}, kind: map[string]schema.GroupVersionKind{
			"": {Group: "extensions", Version: "v1beta1", Kind: "Deployment"}, "scale": {Group: "extensions", Version: "v1beta1", Kind: "Scale"}}},
		{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1beta2", Resource: "deployments"}, kind: map[string]schema.GroupVersionKind{
			"": {Group: "apps", Version: "v1beta2", Kind: "Deployment"}, "status": {Group: "apps", Version: "v1beta2", Kind: "Deployment"}}},
	},
	{
		{gvr: schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}, kind: map[string]schema.GroupVersionKind{
			"": {Group: "batch", Version: "v1", Kind: "CronJob"}}},
		{gvr: schema.GroupVersionResource{Group: "batch", Version: "v1beta1", Resource: "cronjobs"}, kind: map[string]schema.GroupVersionKind{
			"": {Group: "batch", Version: "v1beta1", Kind: "CronJob"}}},
	},
	{
		// A custom resource whose second version has no known kind.
		{gvr: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, kind: map[string]schema.GroupVersionKind{
			"": {Group: "example.com", Version: "v1", Kind: "Widget"}}},
		{gvr: schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}},
	},
	{
		// Namespaces in a second version: only v1 is cluster-scoped for
		// the rules' scope.
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, kind: map[string]schema.GroupVersionKind{
			"": {Version: "v1", Kind: "Namespace"}, "status": {Version: "v1", Kind: "Namespace"}, "finalize": {Version: "v1", Kind: "Namespace"}}},
		{gvr: schema.GroupVersionResource{Version: "v2", Resource: "namespaces"}, kind: map[string]schema.GroupVersionKind{
			"": {Version: "v2", Kind: "Namespace"}, "status": {Version: "v2", Kind: "Namespace"}}},
	},
}

func (amMapper) class(resource schema.GroupVersionResource) []amEquivalent {
	for _, class := range amEquivalenceClasses {
		for _, e := range class {
			if e.gvr == resource {
				return class
			}
		}
	}
	return nil
}

func (m amMapper) EquivalentResourcesFor(resource schema.GroupVersionResource, subresource string) []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for _, e := range m.class(resource) {
		if _, ok := e.kind[subresource]; ok || e.kind == nil {
			out = append(out, e.gvr)
		}
	}
	return out
}

func (m amMapper) KindFor(resource schema.GroupVersionResource, subresource string) schema.GroupVersionKind {
	for _, e := range m.class(resource) {
		if e.gvr == resource {
			return e.kind[subresource]
		}
	}
	return schema.GroupVersionKind{}
}

// amObjectInterfaces gives kube-apiserver's matchers the mapper.
type amObjectInterfaces struct {
	mapper runtime.EquivalentResourceMapper
}

func (o amObjectInterfaces) GetObjectCreater() runtime.ObjectCreater     { return nil }
func (o amObjectInterfaces) GetObjectTyper() runtime.ObjectTyper         { return nil }
func (o amObjectInterfaces) GetObjectDefaulter() runtime.ObjectDefaulter { return nil }
func (o amObjectInterfaces) GetObjectConvertor() runtime.ObjectConvertor { return nil }
func (o amObjectInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.mapper
}

var _ admission.ObjectInterfaces = amObjectInterfaces{}

// amGen generates the corpus.
type amGen struct {
	r *rand.Rand
	// equivalents: generate rules for members of equivalence classes only.
	equivalents bool
}

func newAMGen(seed uint64) *amGen { return &amGen{r: rand.New(rand.NewPCG(seed, 1872))} }

func pick[T any](g *amGen, items ...T) T { return items[g.r.IntN(len(items))] }

// some returns 0 to max items drawn from items (repeats allowed).
func some[T any](g *amGen, max int, items ...T) []T {
	n := g.r.IntN(max + 1)
	if n == 0 && g.r.IntN(4) == 0 {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = pick(g, items...)
	}
	return out
}

func (g *amGen) rule() admissionregistrationv1.RuleWithOperations {
	r := admissionregistrationv1.RuleWithOperations{
		Operations: some(g, 3, admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete,
			admissionregistrationv1.Connect, admissionregistrationv1.OperationAll, "PATCH", ""),
	}
	r.APIGroups = some(g, 3, "", "apps", "extensions", "batch", "example.com", "admissionregistration.k8s.io", "authorization.k8s.io", "*")
	r.APIVersions = some(g, 3, "v1", "v1beta1", "v1beta2", "v2", "*")
	r.Resources = some(g, 3, "pods", "deployments", "namespaces", "cronjobs", "widgets", "configmaps", "*", "*/*", "*/status",
		"*/scale", "deployments/*", "deployments/scale", "pods/exec", "pods/*", "namespaces/status", "widgets/*", "a/b/c", "/", "",
		"validatingwebhookconfigurations", "validatingadmissionpolicies", "subjectaccessreviews", "*/b/c", "pods/b/c")
	if g.r.IntN(3) == 0 {
		// Broad rules, so that the selectors get exercised.
		r.Operations, r.APIGroups, r.APIVersions = []admissionregistrationv1.OperationType{"*"}, []string{"*"}, []string{"*"}
		r.Resources = []string{pick(g, "*", "*/*", "*/status", "deployments/*", "*/scale")}
	}
	if g.equivalents || g.r.IntN(4) == 0 {
		// A rule for one member of an equivalence class, so that requests
		// on the others match it only through matchPolicy Equivalent.
		e := pick(g, pick(g, amEquivalenceClasses...)...)
		r.Operations = []admissionregistrationv1.OperationType{pick[admissionregistrationv1.OperationType](g, "*", "CREATE", "UPDATE")}
		r.APIGroups, r.APIVersions = []string{e.gvr.Group}, []string{e.gvr.Version}
		r.Resources = []string{pick(g, e.gvr.Resource, e.gvr.Resource+"/*", e.gvr.Resource+"/status", e.gvr.Resource+"/scale")}
	}
	scopes := []*admissionregistrationv1.ScopeType{nil, ptrTo(admissionregistrationv1.AllScopes),
		ptrTo(admissionregistrationv1.NamespacedScope), ptrTo(admissionregistrationv1.ClusterScope), ptrTo(admissionregistrationv1.ScopeType("Bogus"))}
	r.Scope = pick(g, scopes...)
	return r
}

func ptrTo[T any](v T) *T { return &v }

func (g *amGen) rules(max int) []admissionregistrationv1.RuleWithOperations {
	n := g.r.IntN(max + 1)
	out := make([]admissionregistrationv1.RuleWithOperations, n)
	for i := range out {
		out[i] = g.rule()
	}
	return out
}

func (g *amGen) namedRules(max int) []admissionregistrationv1.NamedRuleWithOperations {
	rules := g.rules(max)
	if len(rules) == 0 && g.r.IntN(2) == 0 {
		return nil
	}
	out := make([]admissionregistrationv1.NamedRuleWithOperations, len(rules))
	for i, r := range rules {
		out[i] = admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: r}
		switch g.r.IntN(4) {
		case 1:
			out[i].ResourceNames = []string{"a"}
		case 2:
			out[i].ResourceNames = []string{"", "b"}
		case 3:
			out[i].ResourceNames = []string{}
		}
	}
	return out
}

// selector returns a label selector, nil, empty, matching some of the
// world's labels or invalid (with at most one invalid matchLabel: of
// several, kube-apiserver reports one at random).
func (g *amGen) selector() *metav1.LabelSelector {
	switch g.r.IntN(12) {
	case 0:
		return nil
	case 1, 2, 3:
		return &metav1.LabelSelector{}
	case 4:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"env": pick(g, "prod", "dev")}}
	case 5:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod", "team": pick(g, "a", "b")}}
	case 6:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: pick(g, metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn), Values: some(g, 2, "prod", "dev", "x")}}}
	case 7:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: pick(g, "team", "stale", "app"), Operator: pick(g, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist)}}}
	case 8:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, "web", "db")}}
	case 9:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x", "env": "prod"}}
	case 10:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: pick(g, metav1.LabelSelectorOperator("Gt"), "Bogus", "")}}}
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "env", Operator: metav1.LabelSelectorOpExists, Values: []string{"x"}}}}
}

func (g *amGen) matchPolicy() *admissionregistrationv1.MatchPolicyType {
	return pick(g, nil, ptrTo(admissionregistrationv1.Exact), ptrTo(admissionregistrationv1.Equivalent),
		ptrTo(admissionregistrationv1.Equivalent), ptrTo(admissionregistrationv1.MatchPolicyType("Fuzzy")))
}

// amResource is a resource requests are made on, with its kind.
type amResource struct {
	gvr  schema.GroupVersionResource
	kind schema.GroupVersionKind
}

var amResources = []amResource{
	{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}},
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}},
	{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}},
	{schema.GroupVersionResource{Version: "v2", Resource: "namespaces"}, schema.GroupVersionKind{Version: "v2", Kind: "Namespace"}},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}},
	{schema.GroupVersionResource{Group: "extensions", Version: "v1beta1", Resource: "deployments"}, schema.GroupVersionKind{Group: "extensions", Version: "v1beta1", Kind: "Deployment"}},
	{schema.GroupVersionResource{Group: "apps", Version: "v1beta2", Resource: "deployments"}, schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"}},
	{schema.GroupVersionResource{Group: "batch", Version: "v1beta1", Resource: "cronjobs"}, schema.GroupVersionKind{Group: "batch", Version: "v1beta1", Kind: "CronJob"}},
	{schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}},
	{schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}, schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"}},
	{schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}, schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}},
	{schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings"}, schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicyBinding"}},
	{schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1beta1", Resource: "validatingadmissionpolicies"}, schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1beta1", Kind: "ValidatingAdmissionPolicy"}},
	{schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}, schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview"}},
	{schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}, schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}},
}

// amRequest is one generated request.
type amRequest struct {
	op                admission.Operation
	kind              schema.GroupVersionKind
	resource          schema.GroupVersionResource
	subresource       string
	name, namespace   string
	object, oldObject runtime.Object
}

func (g *amGen) object() runtime.Object {
	lbls := pick(g, nil, map[string]string{"app": "web"}, map[string]string{"app": "db", "env": "prod"}, map[string]string{"env": "dev"})
	switch g.r.IntN(6) {
	case 0:
		return nil
	case 1:
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: lbls}}
	case 2:
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget"}}
		u.SetLabels(lbls)
		return u
	case 3:
		// No object metadata: no labels.
		return &metav1.Status{Message: "not an object"}
	case 4:
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: lbls}}
	}
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Labels: lbls}}
}

func (g *amGen) request() amRequest {
	res := pick(g, amResources...)
	r := amRequest{
		op:          pick(g, admission.Create, admission.Create, admission.Update, admission.Delete, admission.Connect, "PATCH", ""),
		kind:        res.kind,
		resource:    res.gvr,
		subresource: pick(g, "", "", "", "status", "scale", "exec", "finalize", "b/c"),
		name:        pick(g, "", "a", "b"),
		namespace:   pick(g, "", "", "default", "dev", "nolabels", "stale", "missing", "broken", "wrapped", "forbidden", "unknown"),
		object:      g.object(),
		oldObject:   g.object(),
	}
	if g.r.IntN(10) == 0 {
		// A kind that does not follow from the resource.
		r.kind = pick(g, amResources...).kind
	}
	return r
}

func (r *amRequest) attributes() admission.Attributes {
	return admission.NewAttributesRecord(r.object, r.oldObject, r.kind, r.namespace, r.name, r.resource, r.subresource, r.op, nil, false, nil)
}

func (r *amRequest) gatehouse(world map[string]amNamespace, mapper runtime.EquivalentResourceMapper) *admissionmatch.Request {
	return &admissionmatch.Request{
		Operation:   admissionv1Operation(r.op),
		Kind:        r.kind,
		Resource:    r.resource,
		Subresource: r.subresource,
		Name:        r.name,
		Namespace:   r.namespace,
		Object:      r.object,
		OldObject:   r.oldObject,
		Namespaces:  amLookup(world),
		Equivalents: mapper,
	}
}

func (r *amRequest) String() string {
	return fmt.Sprintf("%s %s %s/%s sub=%q ns=%q name=%q object=%T old=%T", r.op, r.kind, r.resource.GroupResource(), r.resource.Version,
		r.subresource, r.namespace, r.name, r.object, r.oldObject)
}
