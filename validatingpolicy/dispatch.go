package validatingpolicy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/internal/admissionmatch"
	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// Order is the order in which a Dispatcher invokes policies:
// kube-apiserver's is unspecified; the caller chooses one (OrderGiven,
// OrderByName). It is the same type for both admission policy engines.
type Order = admissionpolicy.Order

const (
	// OrderGiven invokes policies in the order they were given.
	OrderGiven = admissionpolicy.OrderGiven
	// OrderByName invokes policies sorted by name.
	OrderByName = admissionpolicy.OrderByName
)

// Options are a Dispatcher's collaborators; all are optional.
type Options struct {
	// Compiler compiles the policies; nil builds one for Kube.
	Compiler *Compiler
	// Params gives the params of policies with a paramKind; nil knows no
	// kind (such policies fail with "failed to find resource referenced by
	// paramKind").
	Params ParamSource
	// Namespaces looks up namespaces for namespaceSelectors and the
	// namespaceObject variable; nil answers every namespace as existing,
	// without labels.
	Namespaces NamespaceLookup
	// Equivalents lists the resources equivalent to a request's, for
	// matchPolicy Equivalent; nil: there are none.
	// resources.BuiltInFor(Kube) holds the built-in ones of kube-apiserver
	// at Kube's version (resources.BuiltIn(), the newest release's).
	Equivalents runtime.EquivalentResourceMapper
	// Converter converts objects to the version of an equivalent resource;
	// nil fails bindings that match only such a resource of another version
	// ("failed to configure binding: failed to convert object version:
	// ...").
	// resources.NewNoneConverter converts custom resources of strategy None.
	Converter Converter
	// Authorizer answers the expressions' authorizer checks, cached per
	// request; nil leaves authorizer undefined.
	Authorizer Authorizer
	// Metrics receives kube-apiserver's validating admission policy
	// metrics; nil records nothing. Clock times them; nil is the real
	// clock.
	Metrics metrics.Sink
	Clock   clock.PassiveClock
	// Order is the order of policies.
	Order Order
	// Static marks the policies given to NewDispatcher as loaded from
	// static manifests: they also see requests on admission policies and
	// bindings, which API policies never do. FromManifests sets it.
	Static bool
	// StaticPolicies and StaticBindings are policies and bindings loaded
	// from static manifests beside the API ones given to NewDispatcher, as
	// kube-apiserver composes its two sources: it invokes the static ones
	// first, binds them only to each other, and invokes only them for
	// requests on admission policies and bindings.
	StaticPolicies []*admissionregistrationv1.ValidatingAdmissionPolicy
	StaticBindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	// Kube is the kube-apiserver the dispatcher answers as: its version and
	// feature gates; the zero Target is the newest release. Before 1.37 the
	// validation_failure audit annotation holds the request's first Audit
	// failure only.
	Kube kube.Target
	// ExcludedResources are the resources no policy sees, in any version
	// and with any subresource. nil is kube-apiserver 1.37's list, the
	// authentication and authorization reviews: tokenreviews and
	// selfsubjectreviews of authentication.k8s.io, subjectaccessreviews,
	// selfsubjectaccessreviews, localsubjectaccessreviews and
	// selfsubjectrulesreviews of authorization.k8s.io. An empty, non-nil
	// list excludes none (policies then see the reviews too).
	ExcludedResources []schema.GroupResource
}

// Dispatcher validates admission requests with ValidatingAdmissionPolicies
// and their bindings as kube-apiserver's ValidatingAdmissionPolicy plugin
// does. It is immutable and safe for concurrent use.
type Dispatcher struct {
	policies []*compiledPolicy
	index    *admissionmatch.Index
	o        Options
	clock    clock.PassiveClock
}

type compiledPolicy struct {
	policy      *admissionregistrationv1.ValidatingAdmissionPolicy
	name        string
	constraints *admissionmatch.Constraints
	compiled    *Policy
	// paramKind is the parsed paramKind; nil without one.
	paramKind *schema.GroupVersionKind
	bindings  []*compiledBinding
}

type compiledBinding struct {
	binding     *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	name        string
	constraints *admissionmatch.Constraints
}

// NewDispatcher compiles policies and their bindings once. As in a
// cluster, a policy is known by its name (the first of a name wins), a
// binding of a policy that does not exist is skipped, a policy without
// bindings is never invoked, and a policy whose paramKind.apiVersion does
// not parse is left out. The objects are not modified, and must not be
// modified afterwards. The error is for CEL environments that cannot be
// built.
func NewDispatcher(policies []*admissionregistrationv1.ValidatingAdmissionPolicy, bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding, o Options) (*Dispatcher, error) {
	c := o.Compiler
	if c == nil {
		var err error
		if c, err = NewCompilerFor(o.Kube); err != nil {
			return nil, err
		}
	}
	d := &Dispatcher{o: o, clock: o.Clock}
	if d.clock == nil {
		d.clock = clock.RealClock{}
	}
	// The static source first, then the API one (or the given policies
	// alone when they are static), each joined in itself.
	join := func(policies []*admissionregistrationv1.ValidatingAdmissionPolicy, bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding, static bool) {
		mo := admissionmatch.Options{Static: static, ExcludedResources: o.ExcludedResources}
		var joined []*compiledPolicy
		for _, h := range admissionpolicy.Join(policies, bindings, policyName, paramKindOf, boundPolicy) {
			p := h.Policy
			cp := &compiledPolicy{policy: p, name: p.Name, paramKind: h.ParamKind}
			for _, b := range h.Bindings {
				cp.bindings = append(cp.bindings, &compiledBinding{binding: b, name: b.Name, constraints: admissionmatch.CompileBinding(b.Spec.MatchResources, mo)})
			}
			cp.constraints = admissionmatch.CompilePolicy(p.Spec.MatchConstraints, mo)
			cp.compiled = c.Compile(p)
			joined = append(joined, cp)
		}
		if o.Order == OrderByName {
			slices.SortStableFunc(joined, func(a, b *compiledPolicy) int { return cmp.Compare(a.name, b.name) })
		}
		d.policies = append(d.policies, joined...)
	}
	join(o.StaticPolicies, o.StaticBindings, true)
	join(policies, bindings, o.Static)
	hooks := make([]admissionmatch.Hook, len(d.policies))
	for i, cp := range d.policies {
		hooks[i] = cp.constraints
	}
	d.index = admissionmatch.NewIndex(hooks...)
	return d, nil
}

// FromManifests returns a Dispatcher of the ValidatingAdmissionPolicies and
// bindings of a static manifests directory loaded by admissionmanifest
// (Options.Static is set: they also see requests on admission policies and
// bindings).
func FromManifests(m *admissionmanifest.Manifests, o Options) (*Dispatcher, error) {
	o.Static = true
	return NewDispatcher(m.ValidatingAdmissionPolicies(), m.ValidatingAdmissionPolicyBindings(), o)
}

// Result is what the policies did to an admitted or denied request.
type Result struct {
	// Warnings are the warnings of Warn actions, in order, as
	// kube-apiserver hands them to the request's warning recorder
	// ("Validation failed for ValidatingAdmissionPolicy '<p>' with binding
	// '<b>': <message>").
	Warnings []string
	// AuditAnnotations are the annotations added to the request's audit
	// event: "<policy>/<key>" for each published audit annotation, and
	// "validation.policy.admission.k8s.io/validation_failure" for Audit
	// actions. They are published also when the request is denied.
	AuditAnnotations map[string]string
}

// Validate validates the request with the policies, as kube-apiserver's
// ValidatingAdmissionPolicy plugin does. The error is kube-apiserver's: the
// *apierrors.StatusError of the first denial (see the package
// documentation), or the status of a namespace that could not be looked up.
// The Result holds the warnings and audit annotations in both cases.
func (d *Dispatcher) Validate(ctx context.Context, req *Request) (Result, error) {
	return d.validate(ctx, req, nil)
}

// Explain validates the request as Validate does, and tells how: which
// policies, bindings and params matched or why not, the match conditions,
// each validation's outcome and message, the actions taken and the audit
// annotations.
func (d *Dispatcher) Explain(ctx context.Context, req *Request) (Result, *Trace, error) {
	t := &Trace{}
	res, err := d.validate(ctx, req, t)
	return res, t, err
}

// deniedDecision is a decision that denies the request, with its policy
// and binding (nil for a policy's configuration error).
type deniedDecision struct {
	policy  *compiledPolicy
	binding *compiledBinding
	decision
}

// state is one request's validation.
type state struct {
	d     *Dispatcher
	req   *Request
	attrs *admissionpolicy.Attributes
	match admissionmatch.Request
	ns    admissionpolicy.NamespaceCache
	authz matchcond.Authorizer
	// versions are the request's objects in each matched version.
	versions []*versioned
	denied   []deniedDecision
	failures []ValidationFailure
	result   Result
	trace    *Trace
}

// versioned is the request's objects in one version (kube-apiserver's
// VersionedAttributes).
type versioned struct {
	kind              schema.GroupVersionKind
	object, oldObject map[string]any
	typedView         bool
	request           *admissionv1.AdmissionRequest
}

func (d *Dispatcher) validate(ctx context.Context, req *Request, t *Trace) (Result, error) {
	s := &state{d: d, req: req, attrs: req.attributes(), trace: t}
	s.ns.Lookup = d.o.Namespaces
	s.match = admissionmatch.Request{
		Operation:   req.Operation,
		Kind:        req.Kind,
		Resource:    req.Resource,
		Subresource: req.SubResource,
		Name:        req.Name,
		Namespace:   req.Namespace,
		Namespaces:  &s.ns,
		Equivalents: d.o.Equivalents,
		// The built-in kinds without metadata are known from Kind.
		WithoutMetadata: req.WithoutMetadata,
	}
	if obj := admissionpolicy.Content(req.Object); obj != nil {
		s.match.Object = req.Object
	}
	if old := admissionpolicy.Content(req.OldObject); old != nil {
		s.match.OldObject = req.OldObject
	}
	if d.o.Authorizer != nil {
		s.authz = admissionpolicy.NewCachingAuthorizer(d.o.Authorizer)
	}
	var err error
	if t != nil {
		for _, cp := range d.policies {
			m, why := cp.constraints.Explain(ctx, &s.match)
			if err = s.policy(ctx, cp, m, why); err != nil {
				break
			}
		}
	} else {
		d.index.Match(ctx, &s.match, func(i int, m admissionmatch.Result) bool {
			err = s.policy(ctx, d.policies[i], m, admissionmatch.Explanation{})
			return err == nil
		})
	}
	if err != nil {
		return s.result, err
	}
	s.publishFailures()
	return s.result, s.denial()
}

// configError records a configuration error of a policy (binding nil) or a
// binding under the policy's failure policy, as kube-apiserver's
// dispatcher does: Ignore drops it, Fail denies, anything else denies with
// "unrecognized failure policy".
func (s *state) configError(cp *compiledPolicy, cb *compiledBinding, err error) {
	fp := cp.compiled.failurePolicy()
	var message string
	switch fp {
	case admissionregistrationv1.Ignore:
		return
	case admissionregistrationv1.Fail:
		if cb == nil {
			message = fmt.Errorf("failed to configure policy: %w", err).Error()
		} else {
			message = fmt.Errorf("failed to configure binding: %w", err).Error()
		}
	default:
		message = fmt.Errorf("unrecognized failure policy: '%v'", fp).Error()
	}
	s.denied = append(s.denied, deniedDecision{policy: cp, binding: cb, decision: decision{deny: true, message: message, index: -1}})
}

// policy runs one policy, matched (or not) as m says: its bindings, their
// params and invocations, and their effects. The error fails the request at
// once (a namespace that cannot be looked up).
func (s *state) policy(ctx context.Context, cp *compiledPolicy, m admissionmatch.Result, why admissionmatch.Explanation) error {
	var pt *PolicyTrace
	if s.trace != nil {
		s.trace.Policies = append(s.trace.Policies, PolicyTrace{Policy: cp.name, Matched: m.Matches, Resource: m.Resource, Kind: m.Kind, Err: m.Err})
		pt = &s.trace.Policies[len(s.trace.Policies)-1]
		if !m.Matches {
			pt.Reason = why.Reason.String()
		}
	}
	if m.Err != nil {
		s.configError(cp, nil, m.Err)
		return nil
	}
	if !m.Matches {
		return nil
	}
	var params Params
	if cp.paramKind != nil {
		var err error
		if s.d.o.Params != nil {
			params, err = s.d.o.Params.Params(*cp.paramKind)
		} else {
			err = ErrParamKindNotKnown
		}
		if err != nil {
			err = admissionpolicy.ParamKindNotFoundError(*cp.paramKind)
			s.configError(cp, nil, err)
			if pt != nil {
				pt.Err = err
			}
			return nil
		}
	}
	annotations := &annotationCollector{}
	for _, cb := range cp.bindings {
		if err := s.binding(ctx, cp, cb, m, params, pt, annotations); err != nil {
			return err
		}
	}
	dropped := annotations.publish(cp.name, &s.result)
	if pt != nil {
		pt.DroppedAuditAnnotations = dropped
	}
	return nil
}

// binding runs one binding of a matched policy.
func (s *state) binding(ctx context.Context, cp *compiledPolicy, cb *compiledBinding, m admissionmatch.Result, params Params, pt *PolicyTrace, annotations *annotationCollector) error {
	var bt *BindingTrace
	var bm admissionmatch.Result
	if pt != nil {
		var why admissionmatch.Explanation
		bm, why = cb.constraints.Explain(ctx, &s.match)
		pt.Bindings = append(pt.Bindings, BindingTrace{Binding: cb.name, Matched: bm.Matches, Resource: bm.Resource, Kind: bm.Kind, Err: bm.Err, Actions: cb.binding.Spec.ValidationActions})
		bt = &pt.Bindings[len(pt.Bindings)-1]
		if !bm.Matches {
			bt.Reason = why.Reason.String()
		}
	} else {
		bm = cb.constraints.Match(ctx, &s.match)
	}
	if bm.Err != nil {
		s.configError(cp, cb, bm.Err)
		return nil
	}
	if !bm.Matches {
		return nil
	}
	configError := func(err error) {
		s.configError(cp, cb, err)
		if bt != nil {
			bt.Err = err
		}
	}
	var ps []*admissionpolicy.Param
	if cp.paramKind == nil {
		ps = []*admissionpolicy.Param{nil}
	} else {
		var err error
		if ps, err = admissionpolicy.CollectParams(ctx, cp.policy.Spec.ParamKind, params, cb.binding.Spec.ParamRef, s.req.Namespace); err != nil {
			configError(err)
			return nil
		}
	}
	var v *versioned
	if len(ps) > 0 {
		var err error
		if v, err = s.version(m.Kind); err != nil {
			configError(fmt.Errorf("failed to convert object version: %w", err))
			return nil
		}
	}
	// The namespace, looked up for every matching binding of a namespaced
	// request; its error fails the request whatever the failure policy.
	var namespace *corev1.Namespace
	if name := s.attrs.NamespaceOf(); name != "" {
		ns, err := s.ns.Get(ctx, name)
		if err != nil {
			var status *apierrors.StatusError
			if !errors.As(err, &status) {
				status = apierrors.NewInternalError(err)
			}
			if bt != nil {
				bt.NamespaceErr = status
			}
			return status
		}
		namespace = ns
	}
	for _, p := range ps {
		in := &evalInput{object: v.object, oldObject: v.oldObject, typedView: v.typedView, namespace: namespace, authorizer: s.authz}
		request := *v.request
		request.Resource = metav1.GroupVersionResource{Group: m.Resource.Group, Version: m.Resource.Version, Resource: m.Resource.Resource}
		in.request = &request
		if s.d.o.Metrics != nil {
			in.clock = s.d.clock
		}
		in.explain = bt != nil
		var it *InvocationTrace
		if p != nil {
			in.params = paramContent(p.Content, cp.policy.Spec.ParamKind)
		}
		if bt != nil {
			bt.Invocations = append(bt.Invocations, InvocationTrace{})
			it = &bt.Invocations[len(bt.Invocations)-1]
			if p != nil {
				it.ParamNamespace, it.ParamName = p.Namespace, p.Name
			}
		}
		r := cp.compiled.validate(ctx, in)
		if it != nil {
			it.record(&r, len(cp.compiled.validations))
		}
		s.effects(cp, cb, &r, annotations)
	}
	return nil
}

// paramContent is a param as kube-apiserver presents it: with the
// paramKind's apiVersion and kind when the object has neither.
func paramContent(content map[string]any, pk *admissionregistrationv1.ParamKind) map[string]any {
	if content == nil || pk == nil {
		return content
	}
	av, _ := content["apiVersion"].(string)
	k, _ := content["kind"].(string)
	if av != "" || k != "" {
		return content
	}
	out := make(map[string]any, len(content)+2)
	for key, val := range content {
		out[key] = val
	}
	out["apiVersion"], out["kind"] = pk.APIVersion, pk.Kind
	return out
}

// version returns the request's objects in kind's version, converting and
// normalising them once per version.
func (s *state) version(kind schema.GroupVersionKind) (*versioned, error) {
	for _, v := range s.versions {
		if v.kind == kind {
			return v, nil
		}
	}
	v := &versioned{kind: kind}
	if kind == s.req.Kind {
		v.object, v.oldObject = admissionpolicy.Content(s.req.Object), admissionpolicy.Content(s.req.OldObject)
	} else {
		var err error
		if v.object, err = s.convert(s.req.Object, kind); err != nil {
			return nil, err
		}
		if v.oldObject, err = s.convert(s.req.OldObject, kind); err != nil {
			return nil, err
		}
	}
	// kube-apiserver holds an object of a built-in kind as its Go type, and
	// its validations see it through the schemaless typed view.
	v.typedView = mutationpatch.IsBuiltin(kind)
	if !s.req.Normalized || kind != s.req.Kind {
		v.object, v.oldObject = normalize(v.object, kind, v.typedView), normalize(v.oldObject, kind, v.typedView)
	}
	v.request = s.attrs.AdmissionRequest(kind)
	s.versions = append(s.versions, v)
	return v, nil
}

// normalize is object as kube-apiserver holds it; an object that its
// kind's Go type does not take is left as it is.
func normalize(object map[string]any, kind schema.GroupVersionKind, builtin bool) map[string]any {
	if object == nil || !builtin {
		return object
	}
	// Validation reads the object and never changes it: what is already
	// normal is shared.
	if out, _, err := mutationpatch.NormalizeShared(object, kind); err == nil {
		return out
	}
	return object
}

func (s *state) convert(obj *unstructured.Unstructured, kind schema.GroupVersionKind) (map[string]any, error) {
	if admissionpolicy.Content(obj) == nil {
		return nil, nil
	}
	if s.d.o.Converter == nil {
		return nil, fmt.Errorf("no converter to convert %v to %v", obj.GroupVersionKind(), kind)
	}
	out, err := s.d.o.Converter.Convert(obj, kind)
	if err != nil {
		return nil, err
	}
	return admissionpolicy.Content(out), nil
}

// The fields admissionpolicy.Join reads.
func policyName(p *admissionregistrationv1.ValidatingAdmissionPolicy) string { return p.Name }
func paramKindOf(p *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ParamKind {
	return p.Spec.ParamKind
}
func boundPolicy(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string {
	return b.Spec.PolicyName
}
