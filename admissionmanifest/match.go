package admissionmanifest

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/internal/admissionmatch"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// Request is an admission request, as kube-apiserver's webhook dispatcher
// reads it to decide which webhooks it calls.
type Request struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation admissionv1.Operation
	// Kind is the kind of the request's object, Resource and SubResource
	// what it addresses, in the version of the request.
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	SubResource string
	// Name is the object's name (empty for a create with generateName);
	// Namespace its namespace (empty for a cluster-scoped object; a request
	// on a Namespace object carries the namespace's own name).
	Name      string
	Namespace string
	// UserInfo, DryRun and Options are what match conditions see as
	// request.userInfo, request.dryRun and request.options.
	UserInfo authenticationv1.UserInfo
	DryRun   bool
	Options  runtime.Object
	// Object and OldObject are the new and the old object (nil when the
	// request has none). The selectors read their labels; the match
	// conditions see them as object and oldObject, in the version Versioned
	// gives.
	Object, OldObject runtime.Object
	// WithoutMetadata says that the objects are of a kind without metadata
	// (an aggregated API's options kind, say), which kube-apiserver holds
	// typed and whose labels it cannot read: no objectSelector but an empty
	// one matches them. Built-in kinds without metadata (PodExecOptions and
	// the other options kinds) are known from Kind without it.
	WithoutMetadata bool
	// Versioned returns the objects in the version of kind, for the match
	// conditions of a webhook matched through an equivalent resource of
	// another version: kube-apiserver converts the objects to the matched
	// version before it evaluates the conditions. Its error fails the
	// request with an internal error, as kube-apiserver's does. nil: the
	// conditions see Object and OldObject as they are (which is right when
	// no webhook matches through another version). Package admissionwebhook
	// sets it from its Converter.
	Versioned func(kind schema.GroupVersionKind) (object, oldObject runtime.Object, err error)
}

// NamespaceLookup returns the labels of a namespace, for namespaceSelectors,
// as kube-apiserver's namespace lister (then a live GET) would. A namespace
// that does not exist is an error that is an apierrors NotFound status
// (apierrors.NewNotFound(corev1.Resource("namespaces"), name)), which
// kube-apiserver returns to the client when the webhook's rules match; any
// other error becomes an internal error. It must be safe for concurrent use.
type NamespaceLookup interface {
	NamespaceLabels(ctx context.Context, name string) (map[string]string, error)
}

// NamespaceLookupFunc adapts a function to NamespaceLookup.
type NamespaceLookupFunc func(ctx context.Context, name string) (map[string]string, error)

// NamespaceLabels calls f.
func (f NamespaceLookupFunc) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	return f(ctx, name)
}

// MatchOptions are what a WebhookMatcher needs beside the webhooks.
type MatchOptions struct {
	// Namespaces looks up namespace labels for namespaceSelectors; nil
	// fails the requests that need them with an internal error.
	Namespaces NamespaceLookup
	// Equivalents lists the resources equivalent to a request's, for
	// webhooks with matchPolicy Equivalent
	// (runtime.NewEquivalentResourceRegistry()); nil: there are none.
	Equivalents runtime.EquivalentResourceMapper
	// Authorizer backs the match conditions' authorizer variables; nil
	// leaves them undefined.
	Authorizer matchcond.Authorizer
	// API makes the webhooks that are not Static behave as webhooks
	// registered through the API: they do not see the
	// admission-configuration objects (webhook configurations, admission
	// policies and bindings). Without it every webhook behaves as a static
	// one.
	API bool
	// ExcludedResources are the resources no webhook sees, in any version
	// and with any subresource. nil is kube-apiserver 1.37's list, the
	// authentication and authorization reviews: tokenreviews and
	// selfsubjectreviews of authentication.k8s.io, subjectaccessreviews,
	// selfsubjectaccessreviews, localsubjectaccessreviews and
	// selfsubjectrulesreviews of authorization.k8s.io. An empty, non-nil
	// list excludes none (webhooks then see the reviews too).
	ExcludedResources []schema.GroupResource
	// NoExemptions decides as kube-apiserver's ShouldCallHook does, before
	// its dispatcher's exemptions: no excluded resource, and the
	// admission-configuration objects seen (ExcludedResources and API are
	// then ignored).
	NoExemptions bool
	// Metrics receives the match conditions' metrics
	// (apiserver_admission_match_condition_*); nil records nothing. Clock
	// times them; nil is the real clock.
	Metrics metrics.Sink
	Clock   clock.PassiveClock
	// Kube is the kube-apiserver the matcher answers as; the zero Target
	// is the newest release. Before 1.37 (its gate
	// ExcludeAdmissionWebhookVirtualResources off), webhooks see the
	// authentication and authorization reviews: a nil ExcludedResources
	// then excludes none.
	Kube kube.Target
}

// WebhookMatcher decides which webhooks kube-apiserver calls for a request:
// its webhook dispatcher's predicates (rules, scope, namespaceSelector,
// objectSelector, matchPolicy Equivalent, the exemptions), then each
// webhook's match conditions under its failure policy. Everything is
// compiled when it is built; it is immutable and safe for concurrent use.
type WebhookMatcher struct {
	webhooks   []Webhook
	index      *admissionmatch.Index
	conditions []*matchcond.AdmissionMatcher
	o          MatchOptions
}

// WebhookMatcher compiles the loaded webhooks (Webhooks, all Static) for
// matching.
func (m *Manifests) WebhookMatcher(o MatchOptions) (*WebhookMatcher, error) {
	return NewWebhookMatcher(m.webhooks, o)
}

// NewWebhookMatcher compiles webhooks for matching, in their order (the
// order in which kube-apiserver calls them). The webhooks' fields must have
// their API defaults (SetDefaults*: matchPolicy, selectors, scope, failure
// policy) and must not change afterwards.
func NewWebhookMatcher(webhooks []Webhook, o MatchOptions) (*WebhookMatcher, error) {
	compiler, err := matchcond.NewAdmissionCompilerFor(o.Kube)
	if err != nil {
		return nil, err
	}
	m := &WebhookMatcher{webhooks: append([]Webhook(nil), webhooks...), o: o}
	hooks := make([]admissionmatch.Hook, len(m.webhooks))
	m.conditions = make([]*matchcond.AdmissionMatcher, len(m.webhooks))
	excluded := o.ExcludedResources
	if excluded == nil && !kubeversions.Has(o.Kube, kubeversions.WebhooksExcludeVirtualResources) {
		excluded = []schema.GroupResource{}
	}
	for i := range m.webhooks {
		w := &m.webhooks[i]
		ao := admissionmatch.Options{Static: w.Static || !o.API, ExcludedResources: excluded}
		if o.NoExemptions {
			ao = admissionmatch.Options{Static: true, ExcludedResources: []schema.GroupResource{}}
		}
		var criteria admissionmatch.WebhookCriteria
		var conditions []admissionregistrationv1.MatchCondition
		var failurePolicy *admissionregistrationv1.FailurePolicyType
		// The step type labels the match conditions' metrics, as
		// kube-apiserver's dispatchers do.
		stepType := "validate"
		if w.Validating != nil {
			criteria, conditions, failurePolicy = admissionmatch.ValidatingWebhookCriteria(w.Validating), w.Validating.MatchConditions, w.Validating.FailurePolicy
		} else {
			criteria, conditions, failurePolicy = admissionmatch.MutatingWebhookCriteria(w.Mutating), w.Mutating.MatchConditions, w.Mutating.FailurePolicy
			stepType = "admit"
		}
		hooks[i] = admissionmatch.CompileWebhook(criteria, ao)
		if len(conditions) > 0 {
			mc, err := compiler.Compile(conditions, matchcond.AdmissionOptions{
				FailurePolicy: failurePolicy, Name: w.Name(), Type: stepType, Metrics: o.Metrics, Clock: o.Clock,
			})
			if err != nil {
				return nil, err
			}
			m.conditions[i] = mc
		}
	}
	m.index = admissionmatch.NewIndex(hooks...)
	return m, nil
}

// WebhookMatch is a webhook kube-apiserver calls for a request, or that
// fails it.
type WebhookMatch struct {
	// Webhook is the webhook, one of the matcher's.
	Webhook *Webhook
	// Kind, Resource and Subresource are what the webhook is called with:
	// the request's own, or an equivalent resource and its kind when only
	// that matched (matchPolicy Equivalent): the object is then sent in that
	// version. The subresource is always the request's.
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	Subresource string
	// Err is set when kube-apiserver fails the request on this webhook's
	// account instead of calling it, always an *apierrors.StatusError: a
	// selector that does not parse, a namespace that cannot be looked up
	// (a NotFound namespace is its 404 status), an equivalent resource of
	// unknown kind, or match conditions that failed to evaluate under
	// failurePolicy Fail (403 Forbidden, as kube-apiserver fails closed).
	Err error
}

// Match returns, in order, the webhooks kube-apiserver calls for r, and
// those that fail it (WebhookMatch.Err).
func (m *WebhookMatcher) Match(ctx context.Context, r *Request) []WebhookMatch {
	return m.AppendMatches(ctx, nil, r)
}

// AppendMatches appends to dst what Match returns, and returns the extended
// slice: a caller that reuses dst matches a request with one allocation.
func (m *WebhookMatcher) AppendMatches(ctx context.Context, dst []WebhookMatch, r *Request) []WebhookMatch {
	req := m.request(r)
	m.index.Match(ctx, req, func(i int, res admissionmatch.Result) bool {
		if match, ok := m.conditionsOf(ctx, i, r, res, nil); ok {
			dst = append(dst, match)
		}
		return true
	})
	return dst
}

// WebhookExplanation tells why a webhook is called for a request or not.
type WebhookExplanation struct {
	WebhookMatch
	// Called is true when kube-apiserver calls the webhook.
	Called bool
	// Reason is the predicate that decided, one of the Reason constants:
	// ReasonMatched, ReasonExcludedResource, ReasonAdmissionConfiguration,
	// ReasonRules, ReasonScope, ReasonNamespaceSelector,
	// ReasonObjectSelector, ReasonError (see Err), or ReasonMatchCondition
	// (FailedCondition names the false condition; with Err, the conditions
	// failed under failurePolicy Fail).
	Reason string
	// Rule is the index of the rule that matched, -1 if none did.
	Rule int
	// Equivalent is true when the rule matched an equivalent resource.
	Equivalent bool
	// FailedCondition is the name of the match condition that was false.
	FailedCondition string
}

// The reasons of WebhookExplanation.
const (
	ReasonMatched                = "matched"
	ReasonExcludedResource       = "excluded resource"
	ReasonAdmissionConfiguration = "admission configuration object"
	ReasonRules                  = "rules"
	ReasonScope                  = "scope"
	ReasonNamespaceSelector      = "namespaceSelector"
	ReasonObjectSelector         = "objectSelector"
	ReasonError                  = "error"
	ReasonMatchCondition         = "match condition"
)

// Explain decides as Match does for every webhook, and tells why each is
// called or not, in the matcher's order.
func (m *WebhookMatcher) Explain(ctx context.Context, r *Request) []WebhookExplanation {
	out := make([]WebhookExplanation, len(m.webhooks))
	req := m.request(r)
	for i := range m.webhooks {
		res, x := m.index.Hook(i).Explain(ctx, req)
		e := &out[i]
		e.Rule, e.Equivalent, e.Reason = x.Rule, x.Equivalent, x.Reason.String()
		e.Webhook = &m.webhooks[i]
		if !res.Matches && res.Err == nil {
			continue
		}
		match, called := m.conditionsOf(ctx, i, r, res, e)
		e.WebhookMatch = match
		e.Called = called && match.Err == nil
	}
	return out
}

// conditionsOf completes the match of webhook i, which the predicates
// matched or failed on (res): it evaluates the webhook's match conditions.
// It says whether the webhook is in Match's result.
func (m *WebhookMatcher) conditionsOf(ctx context.Context, i int, r *Request, res admissionmatch.Result, x *WebhookExplanation) (WebhookMatch, bool) {
	match := WebhookMatch{Webhook: &m.webhooks[i], Kind: res.Kind, Resource: res.Resource, Subresource: r.SubResource, Err: res.Err}
	if res.Err != nil || m.conditions[i] == nil {
		return match, true
	}
	object, old := r.Object, r.OldObject
	if r.Versioned != nil {
		var err error
		if object, old, err = r.Versioned(res.Kind); err != nil {
			match.Err = apierrors.NewInternalError(err)
			if x != nil {
				x.Reason = ReasonError
			}
			return match, true
		}
	}
	result := m.conditions[i].Match(ctx, &matchcond.AdmissionAttributes{
		Request:    admissionRequest(r, res),
		Object:     object,
		OldObject:  old,
		Authorizer: m.o.Authorizer,
	})
	switch {
	case result.Error != nil:
		// kube-apiserver's dispatcher fails closed with a 403.
		match.Err = apierrors.NewForbidden(r.Resource.GroupResource(), r.Name, result.Error)
	case !result.Matches:
		if x != nil {
			x.Reason, x.FailedCondition = ReasonMatchCondition, result.FailedConditionName
		}
		return match, false
	}
	if x != nil && result.Error != nil {
		x.Reason = ReasonMatchCondition
	}
	return match, true
}

// request is r as the predicates read it.
func (m *WebhookMatcher) request(r *Request) *admissionmatch.Request {
	return &admissionmatch.Request{
		Operation:       r.Operation,
		Kind:            r.Kind,
		Resource:        r.Resource,
		Subresource:     r.SubResource,
		Name:            r.Name,
		Namespace:       r.Namespace,
		Object:          r.Object,
		OldObject:       r.OldObject,
		WithoutMetadata: r.WithoutMetadata,
		Namespaces:      namespaceLookup(m.o.Namespaces),
		Equivalents:     m.o.Equivalents,
	}
}

func namespaceLookup(l NamespaceLookup) admissionmatch.NamespaceLookup {
	if l == nil {
		return nil
	}
	return l
}

// admissionRequest is the AdmissionRequest match conditions see, as
// kube-apiserver's match condition matcher builds it: the matched
// (versioned) kind but the request's own resource, the request's own kind
// and resource as requestKind and requestResource, no uid, object or
// oldObject.
func admissionRequest(r *Request, res admissionmatch.Result) *admissionv1.AdmissionRequest {
	requestKind := metav1.GroupVersionKind{Group: r.Kind.Group, Version: r.Kind.Version, Kind: r.Kind.Kind}
	requestResource := metav1.GroupVersionResource{Group: r.Resource.Group, Version: r.Resource.Version, Resource: r.Resource.Resource}
	dryRun := r.DryRun
	return &admissionv1.AdmissionRequest{
		Kind:               metav1.GroupVersionKind{Group: res.Kind.Group, Version: res.Kind.Version, Kind: res.Kind.Kind},
		Resource:           requestResource,
		SubResource:        r.SubResource,
		RequestKind:        &requestKind,
		RequestResource:    &requestResource,
		RequestSubResource: r.SubResource,
		Name:               r.Name,
		Namespace:          r.Namespace,
		Operation:          r.Operation,
		UserInfo:           r.UserInfo,
		DryRun:             &dryRun,
		Options:            runtime.RawExtension{Object: r.Options},
	}
}
