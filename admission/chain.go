package admission

import (
	"context"
	"errors"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/internal/objectdiff"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// The plugins' names, as kube-apiserver's metrics label them.
const (
	PluginMutatingAdmissionPolicy    = "MutatingAdmissionPolicy"
	PluginValidatingAdmissionPolicy  = "ValidatingAdmissionPolicy"
	PluginMutatingAdmissionWebhook   = "MutatingAdmissionWebhook"
	PluginValidatingAdmissionWebhook = "ValidatingAdmissionWebhook"
	PluginPodSecurity                = "PodSecurity"
)

// Config is what the chain enforces: admission policies and their bindings,
// and admission webhook configurations, as API objects with their defaults
// (see Decode, admissionmanifest.SetDefaults), registered through the API;
// and, in Static, what static manifests directories hold.
type Config struct {
	MutatingPolicies         []*admissionregistrationv1.MutatingAdmissionPolicy
	MutatingPolicyBindings   []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	ValidatingPolicies       []*admissionregistrationv1.ValidatingAdmissionPolicy
	ValidatingPolicyBindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	MutatingWebhooks         []*admissionregistrationv1.MutatingWebhookConfiguration
	ValidatingWebhooks       []*admissionregistrationv1.ValidatingWebhookConfiguration
	// Static is the content of the plugins' static manifests directories
	// (kube-apiserver's staticManifestsDir; ConfigOf makes it from loaded
	// directories). kube-apiserver composes the two sources in each plugin:
	// the static policies or webhooks run before the API ones (the mutating
	// webhooks as Options.StaticOrder says, from 1.38), bindings
	// bind only within their source, and only the static ones see requests
	// on admission configuration objects (webhook configurations, admission
	// policies and their bindings). A static Config holds no Static of its
	// own.
	Static *Config
}

// Options are the chain's collaborators, shared by its engines; all are
// optional.
type Options struct {
	// Schemas types mutated objects; nil is mutation.BuiltIn().
	Schemas *mutation.Schemas
	// Params gives the params of policies with a paramKind; nil knows no
	// kind.
	Params mutation.ParamSource
	// Namespaces looks up namespaces; nil answers every namespace as
	// existing, without labels.
	Namespaces mutation.NamespaceLookup
	// Equivalents and Converter serve matchPolicy Equivalent.
	Equivalents runtime.EquivalentResourceMapper
	Converter   mutation.Converter
	// Authorizer answers the expressions' authorizer checks.
	Authorizer matchcond.Authorizer
	// Defaulter defaults objects after each mutation.
	Defaulter func(obj *unstructured.Unstructured)
	// Metrics receives the engines' metrics and kube-apiserver's admission
	// controller and step metrics; Clock times them (nil: the real clock).
	Metrics metrics.Sink
	Clock   clock.PassiveClock
	// PolicyOrder orders the policies of each engine (kube-apiserver's order
	// is unspecified).
	PolicyOrder mutation.Order
	// Webhooks are how webhooks are called: the transport (DialContext,
	// TLSConfig, WrapTransport), the service resolver, the review UIDs.
	// Its matching, conversion, defaulting, metrics and clock are the
	// chain's own (the fields above) unless set; its Kube is always the
	// chain's.
	Webhooks admissionwebhook.Options
	// Kube is the kube-apiserver the chain answers as, every plugin alike:
	// its version and feature gates; the zero Target is the newest release.
	Kube kube.Target
	// StaticOrder is MutatingAdmissionWebhook's staticOrder (its
	// WebhookAdmissionConfiguration's, kube-apiserver 1.38): where its
	// static webhooks run relative to the API ones
	// (admissionmanifest.MergeWebhooks); "" is StaticFirst, the only order
	// before 1.38 (New refuses another there). The validating webhooks run
	// static first always.
	StaticOrder admissionmanifest.StaticOrder
	// PodSecurity is the PodSecurity admission plugin (contrib/podsecurity
	// has one); nil leaves it out. The chain runs it where kube-apiserver's
	// plugin order puts it: first in the validating phase, before
	// ValidatingAdmissionPolicy, on the admitted object, for CREATE and
	// UPDATE only (the operations kube-apiserver's PodSecurity handles).
	// Its metrics and trace are the plugin PodSecurity's.
	PodSecurity Validator
}

// Validator is a validating admission plugin that the chain runs at its
// place in kube-apiserver's order but does not implement itself, so that the
// library does not depend on it (PodSecurity: Options.PodSecurity).
//
// Validate is given the request with its Object the admitted object (after
// every mutation); it must not modify it. It returns what it adds to the
// request — warnings, audit annotations with their full keys — whether it
// allows the request or not; a non-nil error denies the request, and the
// chain returns it unchanged (an *apierrors.StatusError, as
// kube-apiserver's plugins return, gives the request its status). A
// Validator must be safe for concurrent use.
type Validator interface {
	Validate(ctx context.Context, req *Request) (Verdict, error)
}

// ValidatorFunc adapts a function to Validator.
type ValidatorFunc func(ctx context.Context, req *Request) (Verdict, error)

// Validate calls f.
func (f ValidatorFunc) Validate(ctx context.Context, req *Request) (Verdict, error) {
	return f(ctx, req)
}

// Verdict is what a Validator adds to a request, allowed or denied: its
// warnings, in order, and its audit annotations (a key another plugin set
// first keeps that plugin's value, as kube-apiserver's audit event keeps it).
type Verdict struct {
	Warnings         []string
	AuditAnnotations map[string]string
}

// ValidatorTrace is what a Validator did to one request, for Explain.
type ValidatorTrace struct {
	Verdict Verdict
	// Err is its denial, or nil.
	Err error
}

// Chain admits requests as kube-apiserver's admission chain does with its
// configurable plugins. It is immutable and safe for concurrent use.
type Chain struct {
	mutating   *mutation.Dispatcher
	validating *validatingpolicy.Dispatcher
	// webhooks calls the webhooks; nil without any.
	webhooks *admissionwebhook.Dispatcher
	sink     metrics.Sink
	clock    clock.PassiveClock
	// podSecurity is Options.PodSecurity, or nil.
	podSecurity Validator
	// enforcesConditions: the target's gate ConditionalAuthorization is on,
	// and with it the AuthorizationConditionsEnforcer plugin.
	enforcesConditions bool
}

// New compiles a chain. The objects must not change afterwards.
func New(cfg Config, o Options) (*Chain, error) {
	static := cfg.Static
	if static == nil {
		static = &Config{}
	}
	if static.Static != nil {
		return nil, errors.New("a static Config holds no Static of its own")
	}
	if o.StaticOrder != "" {
		if !o.StaticOrder.Valid() {
			return nil, fmt.Errorf("staticOrder %q: must be ByName, StaticFirst or StaticLast", o.StaticOrder)
		}
		if o.StaticOrder != admissionmanifest.StaticFirst && !kubeversions.Has(o.Kube, kubeversions.WebhookStaticOrder) {
			return nil, fmt.Errorf("staticOrder %q: kube-apiserver %s runs static webhooks first only (staticOrder is 1.38's)", o.StaticOrder, o.Kube.Version())
		}
	}
	c := &Chain{sink: o.Metrics, clock: o.Clock, podSecurity: o.PodSecurity,
		enforcesConditions: kubeversions.Has(o.Kube, kubeversions.ConditionsEnforcerPlugin)}
	if c.clock == nil {
		c.clock = clock.RealClock{}
	}
	var err error
	if c.mutating, err = mutation.NewDispatcher(cfg.MutatingPolicies, cfg.MutatingPolicyBindings, mutation.Options{
		Schemas: o.Schemas, Params: o.Params, Namespaces: o.Namespaces, Equivalents: o.Equivalents, Converter: o.Converter,
		Authorizer: o.Authorizer, Defaulter: o.Defaulter, Metrics: o.Metrics, Clock: o.Clock, Order: o.PolicyOrder,
		StaticPolicies: static.MutatingPolicies, StaticBindings: static.MutatingPolicyBindings, Kube: o.Kube,
	}); err != nil {
		return nil, err
	}
	if c.validating, err = validatingpolicy.NewDispatcher(cfg.ValidatingPolicies, cfg.ValidatingPolicyBindings, validatingpolicy.Options{
		Params: o.Params, Namespaces: o.Namespaces, Equivalents: o.Equivalents, Converter: o.Converter,
		Authorizer: o.Authorizer, Metrics: o.Metrics, Clock: o.Clock, Order: o.PolicyOrder,
		StaticPolicies: static.ValidatingPolicies, StaticBindings: static.ValidatingPolicyBindings, Kube: o.Kube,
	}); err != nil {
		return nil, err
	}
	// The static webhooks first, then the API ones; the mutating ones in
	// StaticOrder.
	staticHooks := admissionmanifest.WebhooksOf(static.ValidatingWebhooks, static.MutatingWebhooks)
	for i := range staticHooks {
		staticHooks[i].Static = true
	}
	hooks := admissionmanifest.MergeWebhooks(staticHooks, admissionmanifest.WebhooksOf(cfg.ValidatingWebhooks, cfg.MutatingWebhooks), o.StaticOrder)
	if len(hooks) > 0 {
		if c.webhooks, err = admissionwebhook.NewDispatcher(hooks, webhookOptions(o)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// webhookOptions are the webhook dispatcher's options: the caller's, with
// the chain's collaborators where the caller left them out.
func webhookOptions(o Options) admissionwebhook.Options {
	w := o.Webhooks
	m := &w.Match
	// Static-ness is each webhook's own.
	m.API = true
	w.Kube = o.Kube
	if m.Namespaces == nil {
		m.Namespaces = namespaceLabels{o.Namespaces}
	}
	if m.Equivalents == nil {
		m.Equivalents = o.Equivalents
	}
	if m.Authorizer == nil {
		m.Authorizer = o.Authorizer
	}
	if w.Converter == nil {
		w.Converter = o.Converter
	}
	if w.Defaulter == nil {
		w.Defaulter = o.Defaulter
	}
	if w.Metrics == nil {
		w.Metrics = o.Metrics
	}
	if w.Clock == nil {
		w.Clock = o.Clock
	}
	return w
}

// namespaceLabels gives webhooks the labels of the policies' namespaces:
// without a lookup, every namespace exists without labels.
type namespaceLabels struct{ lookup mutation.NamespaceLookup }

func (n namespaceLabels) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	if n.lookup == nil {
		return nil, nil
	}
	ns, err := n.lookup.Namespace(ctx, name)
	if err != nil || ns == nil {
		return nil, err
	}
	return ns.Labels, nil
}

// Request is one admission request, in the version of the request.
type Request struct {
	Operation   admissionv1.Operation
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	SubResource string
	// Name is the object's name; Namespace its namespace (a request on a
	// Namespace carries the namespace's own name).
	Name, Namespace string
	UserInfo        authenticationv1.UserInfo
	DryRun          bool
	// Options are the operation's options (CreateOptions, ...), or nil.
	Options runtime.Object
	// Object is the new object (nil on DELETE), OldObject the old one (nil
	// on CREATE and CONNECT). Neither is modified.
	Object, OldObject *unstructured.Unstructured
	// Normalized says that the objects of a built-in kind are already the
	// unstructured form of their Go type, as kube-apiserver holds them
	// (see validatingpolicy.Request.Normalized): the engines skip that
	// conversion.
	Normalized bool
	// WithoutMetadata says that the objects are of a kind without metadata
	// that is not built in (see admissionwebhook.Request.WithoutMetadata).
	WithoutMetadata bool
	// Authorization is the authorization stage's decision of the request.
	// Only a chain whose target has the gate ConditionalAuthorization on
	// (kube-apiserver 1.38) reads it, in its AuthorizationConditionsEnforcer
	// plugin, and there it is required, as kube-apiserver requires it: a
	// request the caller authorized without conditions carries Allowed().
	Authorization *Authorization
}

// Result is what the chain did to a request, admitted or denied.
type Result struct {
	// Object is the admitted object after every mutation (the request's
	// own when nothing changed it, nil when it has none).
	Object *unstructured.Unstructured
	// Changed tells whether a mutation changed the object.
	Changed bool
	// Warnings are the plugins' warnings, in the order they were given.
	Warnings []string
	// AuditAnnotations are the annotations added to the request's audit
	// event, by every plugin that ran; RequestAuditAnnotations those at
	// audit level Request (the mutating webhooks' patches).
	AuditAnnotations        map[string]string
	RequestAuditAnnotations map[string]string
}

// Trace tells what each plugin did, for Explain.
type Trace struct {
	// MutatingPolicies are the MutatingAdmissionPolicy passes: the first,
	// and the reinvocation when there was one.
	MutatingPolicies []*mutation.Trace
	// PodSecurity is the PodSecurity plugin's (Options.PodSecurity); nil
	// when it did not run.
	PodSecurity *ValidatorTrace
	// Conditions is the AuthorizationConditionsEnforcer plugin's (1.38,
	// gate ConditionalAuthorization); nil when it did not run.
	Conditions *ConditionsTrace
	// ValidatingPolicies is the ValidatingAdmissionPolicy plugin's trace;
	// nil when an earlier plugin denied the request.
	ValidatingPolicies *validatingpolicy.Trace
	// MutatingWebhooks are the MutatingAdmissionWebhook passes' traces,
	// ValidatingWebhooks the ValidatingAdmissionWebhook plugin's: each
	// webhook, why it was called or not, its answer and what it changed.
	MutatingWebhooks   []*admissionwebhook.Trace
	ValidatingWebhooks *admissionwebhook.Trace
	// Reinvoked tells whether the mutating phase ran twice.
	Reinvoked bool
	// DeniedBy names the plugin that denied the request, if any.
	DeniedBy string
}

// Admit runs the request through the chain as kube-apiserver does: the
// mutating phase (MutatingAdmissionPolicy; once more if a plugin asked for
// a reinvocation), then the validating phase on the final object
// (ValidatingAdmissionPolicy). The error is the first plugin's denial (an
// *apierrors.StatusError); the Result then holds what was gathered up to
// it.
func (c *Chain) Admit(ctx context.Context, req *Request) (Result, error) {
	return c.admit(ctx, req, nil)
}

// Explain admits the request as Admit does and returns each plugin's trace.
func (c *Chain) Explain(ctx context.Context, req *Request) (Result, *Trace, error) {
	t := &Trace{}
	res, err := c.admit(ctx, req, t)
	return res, t, err
}

func (c *Chain) admit(ctx context.Context, req *Request, t *Trace) (Result, error) {
	res := Result{Object: req.Object}
	op := string(req.Operation)
	req = normalized(req)

	// The mutating phase.
	start := c.clock.Now()
	err := c.mutatingPhase(ctx, req, &res, t)
	c.observeStep("admit", op, c.clock.Since(start), err)
	if err != nil {
		return res, err
	}

	// The validating phase, on the admitted object.
	start = c.clock.Now()
	err = c.validatingPhase(ctx, req, &res, t)
	c.observeStep("validate", op, c.clock.Since(start), err)
	return res, err
}

// Reinvocation is the mutating phase's state of one request, carried
// across the passes of an admission chain that embeds this one (such as
// k8s.io/apiserver's, through contrib/apiserver): the chain runs the
// mutating phase once, and once more if ShouldReinvoke.
type Reinvocation struct {
	// rc is the request's reinvocation flags, with the policies' state;
	// webhooks the webhooks' state, sharing the flags.
	rc           mutation.ReinvocationContext
	webhookState *admissionwebhook.Reinvocation
}

func (r *Reinvocation) webhooks() *admissionwebhook.Reinvocation {
	if r.webhookState == nil {
		r.webhookState = &admissionwebhook.Reinvocation{Flags: &r.rc}
	}
	return r.webhookState
}

// ShouldReinvoke tells whether a plugin of the pass asked for a second pass.
func (r *Reinvocation) ShouldReinvoke() bool { return r.rc.ShouldReinvoke() }

// SetIsReinvoke marks the start of the second pass.
func (r *Reinvocation) SetIsReinvoke() { r.rc.SetIsReinvoke() }

// Mutate runs one pass of the mutating plugins that handle the request's
// operation, for a caller that runs the admission chain itself: r carries
// the state between the passes (one per request; nil for a single pass).
// The Result's Object is the object after the pass.
func (c *Chain) Mutate(ctx context.Context, req *Request, r *Reinvocation) (Result, error) {
	res := Result{Object: req.Object}
	if r == nil {
		r = &Reinvocation{}
	}
	_, err := c.mutatingPass(ctx, normalized(req), r, &res, nil)
	return res, err
}

// Validate runs the validating plugins on the request (whose Object is
// the admitted object), for a caller that runs the admission chain itself.
func (c *Chain) Validate(ctx context.Context, req *Request) (Result, error) {
	res := Result{Object: req.Object}
	err := c.validatingPhase(ctx, normalized(req), &res, nil)
	return res, err
}

// mutatingPhase runs the mutating plugins that handle the operation, and
// once more if one asked for it.
func (c *Chain) mutatingPhase(ctx context.Context, req *Request, res *Result, t *Trace) error {
	r := &Reinvocation{}
	pass := *req
	for i := 0; i < 2; i++ {
		if i == 1 {
			if !r.ShouldReinvoke() {
				break
			}
			r.SetIsReinvoke()
			if t != nil {
				t.Reinvoked = true
			}
		}
		obj, err := c.mutatingPass(ctx, &pass, r, res, t)
		if err != nil {
			return err
		}
		pass.Object = obj
	}
	return nil
}

// mutatingPass runs one pass of the mutating plugins, and returns the
// object it leaves.
func (c *Chain) mutatingPass(ctx context.Context, req *Request, r *Reinvocation, res *Result, t *Trace) (*unstructured.Unstructured, error) {
	object := req.Object
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update, admissionv1.Connect:
		// MutatingAdmissionPolicy handles these, not DELETE.
		mreq := &mutation.Request{Operation: req.Operation, Kind: req.Kind, Resource: req.Resource, SubResource: req.SubResource,
			Name: req.Name, Namespace: req.Namespace, UserInfo: req.UserInfo, DryRun: req.DryRun, Options: req.Options,
			Object: object, OldObject: req.OldObject, Normalized: req.Normalized, WithoutMetadata: req.WithoutMetadata, Reinvocation: &r.rc}
		start := c.clock.Now()
		var mres mutation.Result
		var err error
		if t != nil {
			var mt *mutation.Trace
			mres, mt, err = c.mutating.Explain(ctx, mreq)
			t.MutatingPolicies = append(t.MutatingPolicies, mt)
		} else {
			mres, err = c.mutating.Admit(ctx, mreq)
		}
		c.observePlugin(PluginMutatingAdmissionPolicy, "admit", string(req.Operation), c.clock.Since(start), err)
		if err != nil {
			if t != nil {
				t.DeniedBy = PluginMutatingAdmissionPolicy
			}
			return nil, err
		}
		if mres.Changed {
			res.Object, res.Changed = mres.Object, true
		}
		object = mres.Object
	}
	if c.webhooks == nil {
		return object, nil
	}
	// MutatingAdmissionWebhook handles every operation.
	wreq := c.webhookRequest(req, object)
	wreq.Reinvocation = r.webhooks()
	start := c.clock.Now()
	var wres admissionwebhook.Result
	var err error
	if t != nil {
		var wt *admissionwebhook.Trace
		wres, wt, err = c.webhooks.ExplainAdmit(ctx, wreq)
		t.MutatingWebhooks = append(t.MutatingWebhooks, wt)
	} else {
		wres, err = c.webhooks.Admit(ctx, wreq)
	}
	c.observePlugin(PluginMutatingAdmissionWebhook, "admit", string(req.Operation), c.clock.Since(start), err)
	c.gather(res, wres)
	if err != nil {
		if t != nil {
			t.DeniedBy = PluginMutatingAdmissionWebhook
		}
		return nil, err
	}
	if wres.Object != nil && !jsonEqual(object, wres.Object) {
		res.Object, res.Changed = wres.Object, true
		object = wres.Object
	}
	return object, nil
}

// webhookRequest is the request as the webhooks take it, with object.
func (c *Chain) webhookRequest(req *Request, object *unstructured.Unstructured) *admissionwebhook.Request {
	return &admissionwebhook.Request{Operation: req.Operation, Kind: req.Kind, Resource: req.Resource, SubResource: req.SubResource,
		Name: req.Name, Namespace: req.Namespace, UserInfo: req.UserInfo, DryRun: req.DryRun, Options: req.Options,
		Object: object, OldObject: req.OldObject, Normalized: req.Normalized, WithoutMetadata: req.WithoutMetadata}
}

// gather adds a plugin's warnings and audit annotations to the request's.
func (c *Chain) gather(res *Result, w admissionwebhook.Result) {
	res.Warnings = append(res.Warnings, w.Warnings...)
	for k, v := range w.AuditAnnotations {
		addAnnotation(&res.AuditAnnotations, k, v)
	}
	for k, v := range w.PatchAnnotations {
		addAnnotation(&res.RequestAuditAnnotations, k, v)
	}
}

// jsonEqual tells whether two objects have the same content.
func jsonEqual(a, b *unstructured.Unstructured) bool {
	if a == nil || b == nil {
		return a == b
	}
	return objectdiff.Equal(a.Object, b.Object)
}

// validatingPhase runs the validating plugins on the admitted object.
func (c *Chain) validatingPhase(ctx context.Context, req *Request, res *Result, t *Trace) error {
	object := admittedObject(req, res)
	if err := c.podSecurityPlugin(ctx, req, object, res, t); err != nil {
		return err
	}
	vreq := &validatingpolicy.Request{Operation: req.Operation, Kind: req.Kind, Resource: req.Resource, SubResource: req.SubResource,
		Name: req.Name, Namespace: req.Namespace, UserInfo: req.UserInfo, DryRun: req.DryRun, Options: req.Options,
		Object: object, OldObject: req.OldObject, Normalized: req.Normalized, WithoutMetadata: req.WithoutMetadata}
	start := c.clock.Now()
	var vres validatingpolicy.Result
	var err error
	if t != nil {
		vres, t.ValidatingPolicies, err = c.validating.Explain(ctx, vreq)
	} else {
		vres, err = c.validating.Validate(ctx, vreq)
	}
	c.observePlugin(PluginValidatingAdmissionPolicy, "validate", string(req.Operation), c.clock.Since(start), err)
	res.Warnings = append(res.Warnings, vres.Warnings...)
	for k, v := range vres.AuditAnnotations {
		addAnnotation(&res.AuditAnnotations, k, v)
	}
	if err != nil {
		if t != nil {
			t.DeniedBy = PluginValidatingAdmissionPolicy
		}
		return err
	}
	if err := c.conditionsPlugin(ctx, req, object, res, t); err != nil {
		return err
	}
	if c.webhooks == nil {
		return nil
	}
	start = c.clock.Now()
	var wres admissionwebhook.Result
	if t != nil {
		wres, t.ValidatingWebhooks, err = c.webhooks.ExplainValidate(ctx, c.webhookRequest(req, object))
	} else {
		wres, err = c.webhooks.Validate(ctx, c.webhookRequest(req, object))
	}
	c.observePlugin(PluginValidatingAdmissionWebhook, "validate", string(req.Operation), c.clock.Since(start), err)
	c.gather(res, wres)
	if err != nil && t != nil {
		t.DeniedBy = PluginValidatingAdmissionWebhook
	}
	return err
}

// podSecurityPlugin runs the PodSecurity plugin, if any, on the admitted
// object of a CREATE or UPDATE.
func (c *Chain) podSecurityPlugin(ctx context.Context, req *Request, object *unstructured.Unstructured, res *Result, t *Trace) error {
	if c.podSecurity == nil || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return nil
	}
	preq := *req
	preq.Object = object
	start := c.clock.Now()
	v, err := c.podSecurity.Validate(ctx, &preq)
	c.observePlugin(PluginPodSecurity, "validate", string(req.Operation), c.clock.Since(start), err)
	res.Warnings = append(res.Warnings, v.Warnings...)
	for k, val := range v.AuditAnnotations {
		addAnnotation(&res.AuditAnnotations, k, val)
	}
	if t != nil {
		t.PodSecurity = &ValidatorTrace{Verdict: v, Err: err}
		if err != nil {
			t.DeniedBy = PluginPodSecurity
		}
	}
	return err
}

// addAnnotation adds an annotation that the plugin has already checked; a
// key another plugin set keeps its first value, as kube-apiserver's
// attributes keep it.
func addAnnotation(m *map[string]string, key, value string) {
	if *m == nil {
		*m = map[string]string{}
	}
	if _, ok := (*m)[key]; !ok {
		(*m)[key] = value
	}
}

// observePlugin records kube-apiserver's admission controller metric of one
// plugin call.
func (c *Chain) observePlugin(plugin, step, operation string, elapsed time.Duration, err error) {
	if c.sink == nil {
		return
	}
	c.sink.Observe(metrics.AdmissionControllerDuration, elapsed.Seconds(), plugin, step, operation, rejected(err))
}

// observeStep records kube-apiserver's admission step metric of a phase.
func (c *Chain) observeStep(step, operation string, elapsed time.Duration, err error) {
	if c.sink == nil {
		return
	}
	c.sink.Observe(metrics.AdmissionStepDuration, elapsed.Seconds(), step, operation, rejected(err))
}

func rejected(err error) string {
	if err != nil {
		return "true"
	}
	return "false"
}
