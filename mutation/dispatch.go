package mutation

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

	"github.com/gatehouse-dev/gatehouse/internal/admissionmatch"
	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/internal/objectdiff"
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
	// Schemas resolves the kinds mutated objects are typed with; nil is
	// BuiltIn(). A kind it does not know fails the request with
	// kube-apiserver's 503 ("Resource kind ... not found").
	Schemas *Schemas
	// Params gives the params of policies with a paramKind; nil knows no
	// kind (such policies fail with "failed to find resource referenced by
	// paramKind").
	Params ParamSource
	// Namespaces looks up namespaces for namespaceSelectors and the
	// namespaceObject variable; nil answers every namespace as existing,
	// without labels.
	Namespaces NamespaceLookup
	// Equivalents lists the resources equivalent to a request's, for
	// matchPolicy Equivalent (runtime.NewEquivalentResourceRegistry());
	// nil: there are none.
	// resources.BuiltInFor(Kube) holds the built-in ones of kube-apiserver
	// at Kube's version (resources.BuiltIn(), the newest release's).
	Equivalents runtime.EquivalentResourceMapper
	// Converter converts objects to the version of an equivalent resource
	// and back; nil fails policies that match only such a resource of
	// another version ("failed to configure policy: ...").
	// resources.NewNoneConverter converts custom resources of strategy None.
	Converter Converter
	// Authorizer answers the expressions' authorizer checks, cached per
	// request; nil leaves authorizer undefined.
	Authorizer Authorizer
	// Defaulter runs after each successful mutation on its result, as
	// kube-apiserver defaults objects between mutations; nil defaults
	// nothing (a library cannot embed every type's defaulting).
	Defaulter func(obj *unstructured.Unstructured)
	// Metrics receives kube-apiserver's mutating admission policy metrics;
	// nil records nothing. Clock times them; nil is the real clock.
	Metrics metrics.Sink
	Clock   clock.PassiveClock
	// Order is the order of policies.
	Order Order
	// Static marks the policies given to NewDispatcher as loaded from
	// static manifests (manifest-based admission configuration): they also
	// see requests on admission policies and bindings, which API policies
	// never do. FromManifests sets it.
	Static bool
	// StaticPolicies and StaticBindings are policies and bindings loaded
	// from static manifests beside the API ones given to NewDispatcher, as
	// kube-apiserver composes its two sources: it invokes the static ones
	// first, binds them only to each other, and invokes only them for
	// requests on admission policies and bindings.
	StaticPolicies []*admissionregistrationv1.MutatingAdmissionPolicy
	StaticBindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	// Kube is the kube-apiserver the dispatcher answers as: its version and
	// feature gates; the zero Target is the newest release. Where its
	// MutatingAdmissionPolicy gate is off (a default 1.35), the plugin does
	// not run: every request is admitted unchanged.
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

// evaluator is what dispatch needs of a compiled policy (mutcel's *Policy).
type evaluator interface {
	matchConditions(ctx context.Context, in *evalInput) matchcond.AdmissionMatchResult
	mutationCount() int
	evaluateMutation(ctx context.Context, i int, in *evalInput) (patch, error)
}

// applier applies a patch to an object (mutapply's applyPatch). It must not
// modify object.
type applier func(p patch, object map[string]any, gvk schema.GroupVersionKind, schemas *Schemas) (map[string]any, error)

// Dispatcher runs admission requests through MutatingAdmissionPolicies and
// their bindings as kube-apiserver's MutatingAdmissionPolicy plugin does.
// It is immutable and safe for concurrent use.
type Dispatcher struct {
	policies []*compiledPolicy
	index    *admissionmatch.Index
	o        Options
	schemas  *Schemas
	clock    clock.PassiveClock
	apply    applier
	// disabled: the plugin does not run (Options.Kube).
	disabled bool
}

type compiledPolicy struct {
	policy      *admissionregistrationv1.MutatingAdmissionPolicy
	name        string
	constraints *admissionmatch.Constraints
	eval        evaluator
	// paramKind is the parsed paramKind; nil without one.
	paramKind *schema.GroupVersionKind
	ifNeeded  bool
	bindings  []*compiledBinding
}

type compiledBinding struct {
	binding     *admissionregistrationv1.MutatingAdmissionPolicyBinding
	name        string
	constraints *admissionmatch.Constraints
}

// newDispatcher builds a Dispatcher with the given evaluation and patch
// application.
func newDispatcher(policies []*admissionregistrationv1.MutatingAdmissionPolicy, bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding, o Options, compile func(*admissionregistrationv1.MutatingAdmissionPolicy) evaluator, apply applier) *Dispatcher {
	d := &Dispatcher{o: o, schemas: o.Schemas, clock: o.Clock, apply: apply, disabled: !kubeversions.Has(o.Kube, kubeversions.MutatingAdmissionPolicyPlugin)}
	if d.schemas == nil {
		d.schemas = BuiltIn()
	}
	if d.clock == nil {
		d.clock = clock.RealClock{}
	}
	// The static source first, then the API one (or the given policies
	// alone when they are static), each joined in itself.
	join := func(policies []*admissionregistrationv1.MutatingAdmissionPolicy, bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding, static bool) {
		mo := admissionmatch.Options{Static: static, ExcludedResources: o.ExcludedResources}
		var joined []*compiledPolicy
		for _, h := range admissionpolicy.Join(policies, bindings, policyName, paramKindOf, boundPolicy) {
			p := h.Policy
			cp := &compiledPolicy{policy: p, name: p.Name, paramKind: h.ParamKind, ifNeeded: p.Spec.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy}
			for _, b := range h.Bindings {
				cp.bindings = append(cp.bindings, &compiledBinding{binding: b, name: b.Name, constraints: admissionmatch.CompileBinding(b.Spec.MatchResources, mo)})
			}
			cp.constraints = admissionmatch.CompilePolicy(p.Spec.MatchConstraints, mo)
			cp.eval = compile(p)
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
	return d
}

// Result is the outcome of admitting a request.
type Result struct {
	// Object is the object after the policies' mutations: the request's
	// own object when nothing applied. It is never the request's object
	// modified in place.
	Object *unstructured.Unstructured
	// Changed is true when Object differs from the request's object.
	Changed bool
}

// Admit runs the request through the policies, as one pass of
// kube-apiserver's MutatingAdmissionPolicy plugin, and returns the mutated
// object. The error is kube-apiserver's: an *apierrors.StatusError, either
// the 403 of the failure policies (see the package documentation), or a
// status a mutation or the namespace lookup returned (these fail the
// request whatever the failure policy). On error the Result holds the
// request's object.
func (d *Dispatcher) Admit(ctx context.Context, req *Request) (Result, error) {
	return d.admit(ctx, req, nil)
}

// Explain admits the request as Admit does, and tells how: which policies,
// bindings and params matched or why not, the match conditions, and each
// mutation's outcome, the fields it changed and whether it is idempotent.
func (d *Dispatcher) Explain(ctx context.Context, req *Request) (Result, *Trace, error) {
	t := &Trace{}
	res, err := d.admit(ctx, req, t)
	return res, t, err
}

// invocation is one (policy, binding, param) of a request.
type invocation struct {
	policy   *compiledPolicy
	binding  *compiledBinding
	param    *admissionpolicy.Param
	resource schema.GroupVersionResource
	attr     *versioned
	// trace is the invocation's entry in the Trace, when explaining.
	trace *InvocationTrace
}

// versioned is the request's objects in one version (kube-apiserver's
// VersionedAttributes): mutations of invocations of that version apply
// here; dirty is set by any successful mutation.
type versioned struct {
	kind              schema.GroupVersionKind
	object, oldObject map[string]any
	dirty             bool
	request           *admissionv1.AdmissionRequest
	// schemaChecked and noSchema: whether the kind has a schema, looked up
	// once per request; typedKind: whether it is a built-in kind.
	schemaChecked, noSchema, typedKind bool
	// typedView is set once a policy's match conditions have seen the
	// object: kube-apiserver then presents built-in objects to CEL through
	// its schemaless typed view for the rest of the request (see
	// evalInput.typedView).
	typedView bool
}

// checkSchema looks the kind's schema up, once per request.
func (s *state) checkSchema(v *versioned) {
	if !v.schemaChecked {
		sch, err := s.d.schemas.Lookup(v.kind)
		v.schemaChecked, v.noSchema = true, err != nil
		v.typedKind = err == nil && sch.typedKind
	}
}

// state is one request's admission.
type state struct {
	d     *Dispatcher
	req   *Request
	match admissionmatch.Request
	ns    admissionpolicy.NamespaceCache
	// versions are created in the order invocations need them.
	versions []*versioned
	errs     []*policyError
	trace    *Trace
}

func (d *Dispatcher) admit(ctx context.Context, req *Request, t *Trace) (Result, error) {
	res := Result{Object: req.Object}
	if t != nil && req.Reinvocation != nil {
		t.Reinvocation = req.Reinvocation.IsReinvoke()
	}
	if d.disabled {
		if t != nil {
			t.Disabled = fmt.Sprintf("the MutatingAdmissionPolicy plugin does not run in Kubernetes %s: its feature gate MutatingAdmissionPolicy is off", d.o.Kube)
		}
		return res, nil
	}
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update, admissionv1.Connect:
	default:
		if t != nil {
			for _, cp := range d.policies {
				t.Policies = append(t.Policies, PolicyTrace{Policy: cp.name, Reason: "operation"})
			}
		}
		return res, nil
	}
	s := &state{d: d, req: req, trace: t}
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
	invocations := s.collect(ctx)
	if len(invocations) > 0 {
		final, status := s.dispatch(ctx, invocations)
		if status != nil {
			return res, status
		}
		if final != nil {
			res.Object = final
			res.Changed = !objectdiff.Equal(admissionpolicy.Content(req.Object), final.Object)
		}
	}
	if status := denial(req, s.errs); status != nil {
		return Result{Object: req.Object}, status
	}
	return res, nil
}

// collect matches the request against every policy and binding and
// resolves params, as kube-apiserver's generic policy dispatcher does,
// recording configuration errors.
func (s *state) collect(ctx context.Context) []*invocation {
	var invocations []*invocation
	visit := func(cp *compiledPolicy, m admissionmatch.Result, why admissionmatch.Explanation) {
		var pt *PolicyTrace
		if s.trace != nil {
			s.trace.Policies = append(s.trace.Policies, PolicyTrace{Policy: cp.name, Matched: m.Matches, Resource: m.Resource, Kind: m.Kind, Err: m.Err})
			pt = &s.trace.Policies[len(s.trace.Policies)-1]
			if !m.Matches {
				pt.Reason = why.Reason.String()
			}
		}
		if m.Err != nil {
			s.errs = append(s.errs, configPolicyError(cp, m.Err))
			return
		}
		if !m.Matches {
			return
		}
		var params Params
		if cp.paramKind != nil {
			var err error
			if s.d.o.Params == nil {
				err = ErrParamKindNotKnown
			} else {
				params, err = s.d.o.Params.Params(*cp.paramKind)
			}
			if err != nil {
				err = admissionpolicy.ParamKindNotFoundError(*cp.paramKind)
				s.errs = append(s.errs, configPolicyError(cp, err))
				if pt != nil {
					pt.Err = err
				}
				return
			}
		}
		for _, cb := range cp.bindings {
			var bt *BindingTrace
			var bm admissionmatch.Result
			if pt != nil {
				var bwhy admissionmatch.Explanation
				bm, bwhy = cb.constraints.Explain(ctx, &s.match)
				pt.Bindings = append(pt.Bindings, BindingTrace{Binding: cb.name, Matched: bm.Matches, Err: bm.Err})
				bt = &pt.Bindings[len(pt.Bindings)-1]
				if !bm.Matches {
					bt.Reason = bwhy.Reason.String()
				}
			} else {
				bm = cb.constraints.Match(ctx, &s.match)
			}
			if bm.Err != nil {
				s.errs = append(s.errs, configBindingError(cp, cb, bm.Err))
				continue
			}
			if !bm.Matches {
				continue
			}
			attr, err := s.version(m.Kind)
			if err != nil {
				s.errs = append(s.errs, configPolicyError(cp, err))
				if bt != nil {
					bt.Err = err
				}
				continue
			}
			var ps []*admissionpolicy.Param
			if cp.paramKind == nil {
				ps = []*admissionpolicy.Param{nil}
			} else {
				ps, err = admissionpolicy.CollectParams(ctx, cp.policy.Spec.ParamKind, params, cb.binding.Spec.ParamRef, s.req.Namespace)
			}
			if err != nil {
				s.errs = append(s.errs, configBindingError(cp, cb, err))
				if bt != nil {
					bt.Err = err
				}
				continue
			}
			for _, p := range ps {
				inv := &invocation{policy: cp, binding: cb, param: p, resource: m.Resource, attr: attr}
				if bt != nil {
					it := InvocationTrace{}
					if p != nil {
						it.ParamNamespace, it.ParamName = p.Namespace, p.Name
					}
					bt.Invocations = append(bt.Invocations, it)
				}
				invocations = append(invocations, inv)
			}
		}
	}
	if s.trace != nil {
		for _, cp := range s.d.policies {
			m, why := cp.constraints.Explain(ctx, &s.match)
			visit(cp, m, why)
		}
		// The traces are complete: point the invocations at theirs.
		i := 0
		for pi := range s.trace.Policies {
			for bi := range s.trace.Policies[pi].Bindings {
				for ii := range s.trace.Policies[pi].Bindings[bi].Invocations {
					invocations[i].trace = &s.trace.Policies[pi].Bindings[bi].Invocations[ii]
					i++
				}
			}
		}
		return invocations
	}
	s.d.index.Match(ctx, &s.match, func(i int, m admissionmatch.Result) bool {
		visit(s.d.policies[i], m, admissionmatch.Explanation{})
		return true
	})
	return invocations
}

// version returns the request's objects in kind's version, converting them
// once per version (an error is kube-apiserver's configuration error).
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
	// kube-apiserver holds an object of a built-in kind as its Go type:
	// its expressions and patches see that form.
	if !s.req.Normalized || kind != s.req.Kind {
		v.object, v.oldObject = s.normalize(v.object, kind), s.normalize(v.oldObject, kind)
	}
	v.request = s.req.attributes().AdmissionRequest(kind)
	s.versions = append(s.versions, v)
	return v, nil
}

// normalize is object as kube-apiserver holds it (normalizeObject); an
// object that its kind's Go type does not take is left as it is.
func (s *state) normalize(object map[string]any, kind schema.GroupVersionKind) map[string]any {
	if object == nil {
		return nil
	}
	if out, err := normalizeObject(object, kind, s.d.schemas); err == nil {
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

// dispatch runs the invocations (kube-apiserver's mutating
// dispatchInvocations) and returns the final object (nil when no mutation
// left the last version dirty) or a status that fails the request.
func (s *state) dispatch(ctx context.Context, invocations []*invocation) (*unstructured.Unstructured, *apierrors.StatusError) {
	rc := s.req.Reinvocation
	if rc == nil {
		rc = &ReinvocationContext{}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.started = true
	current := admissionpolicy.Content(s.req.Object)
	if rc.isReinvoke && !objectdiff.Equal(rc.lastOutput, current) {
		rc.requireReinvokingPrevious()
	}
	if s.req.Reinvocation != nil {
		defer func() {
			// lastOutput is read once, at the start of the reinvocation, to
			// make the previously invoked IfNeeded invocations eligible if
			// the object changed: without any (or in the reinvocation
			// itself) it is never read, and the object is not copied.
			if rc.isReinvoke || len(rc.previous) == 0 {
				rc.lastOutput = nil
				return
			}
			rc.lastOutput, _ = deepCopyJSON(current).(map[string]any)
		}()
	}

	// The namespace object, for namespaced requests (a Namespace's own
	// request has the namespace's name, which does not count).
	var namespace *corev1.Namespace
	name := s.req.attributes().NamespaceOf()
	if name != "" {
		ns, err := s.ns.Get(ctx, name)
		if err != nil {
			var status *apierrors.StatusError
			if errors.As(err, &status) {
				return nil, status
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
		}
		namespace = ns
	}
	var authz matchcond.Authorizer
	if s.d.o.Authorizer != nil {
		authz = admissionpolicy.NewCachingAuthorizer(s.d.o.Authorizer)
	}

	var last *versioned
	for n, inv := range invocations {
		cp := inv.policy
		if cp.eval.mutationCount() != len(cp.policy.Spec.Mutations) {
			return nil, apierrors.NewInternalError(fmt.Errorf("expected %v compiled evaluators for policy %v, got %v",
				len(cp.policy.Spec.Mutations), cp.name, cp.eval.mutationCount()))
		}
		v := inv.attr
		request := *v.request
		request.Resource = metav1.GroupVersionResource{Group: inv.resource.Group, Version: inv.resource.Version, Resource: inv.resource.Resource}
		in := &evalInput{request: &request, object: v.object, oldObject: v.oldObject, authorizer: authz}
		if inv.param != nil {
			in.params = inv.param.Content
		}
		mc := cp.eval.matchConditions(ctx, in)
		if len(cp.policy.Spec.MatchConditions) > 0 {
			s.checkSchema(v)
			v.typedView = v.typedKind
		}
		if mc.Error != nil {
			s.errs = append(s.errs, &policyError{policy: cp, binding: inv.binding, err: mc.Error, reason: metav1.StatusReasonInvalid})
			if inv.trace != nil {
				inv.trace.Skipped, inv.trace.Err = "matchConditions", mc.Error
			}
			continue
		}
		if !mc.Matches {
			if inv.trace != nil {
				inv.trace.Skipped, inv.trace.FailedCondition = "matchConditions", mc.FailedConditionName
			}
			continue
		}
		key := invocationKey{policy: cp.name, binding: inv.binding.name}
		if inv.param != nil {
			key.paramNamespace, key.paramName = inv.param.Namespace, inv.param.Name
		}
		if rc.isReinvoke && !rc.shouldRun(key) {
			if inv.trace != nil {
				inv.trace.Skipped = "not reinvoked"
			}
			continue
		}
		if inv.trace != nil {
			inv.trace.Ran = true
		}
		before := v.object
		in.namespace = namespace
		in.typedView = v.typedView
		for i := range cp.policy.Spec.Mutations {
			last = v
			if v.object == nil {
				continue
			}
			in.object = v.object
			start := s.d.clock.Now()
			out, err := s.mutate(ctx, cp, i, in, v)
			observeMutation(s.d.o.Metrics, cp.name, inv.binding.name, errorType(err), s.d.clock.Since(start).Seconds())
			if inv.trace != nil {
				inv.trace.Mutations = append(inv.trace.Mutations, s.explainMutation(ctx, cp, i, in, v, out, err))
			}
			if err != nil {
				var status *apierrors.StatusError
				if errors.As(err, &status) {
					if s.trace != nil {
						for _, rest := range invocations[n+1:] {
							rest.trace.Skipped = "aborted"
						}
					}
					return nil, status
				}
				s.errs = append(s.errs, &policyError{policy: cp, binding: inv.binding, err: err, reason: metav1.StatusReasonInvalid})
				continue
			}
			v.object, v.dirty = out, true
		}
		if !objectdiff.Equal(before, v.object) {
			rc.requireReinvokingPrevious()
			rc.setShouldReinvokeLocked()
		}
		if cp.ifNeeded {
			rc.addPrevious(key)
		}
	}
	if last == nil || last.object == nil || !last.dirty {
		return nil, nil
	}
	rc.requireReinvokingPrevious()
	rc.setShouldReinvokeLocked()
	final := &unstructured.Unstructured{Object: last.object}
	if last.kind != s.req.Kind {
		converted, err := s.convert(final, s.req.Kind)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to convert object: %w", err))
		}
		final = &unstructured.Unstructured{Object: converted}
	}
	current = final.Object
	return final, nil
}

// mutate evaluates mutation i and applies its patch to in.object, then runs
// the defaulter: kube-apiserver's dispatchOne. A kind without a schema fails
// first, with kube-apiserver's 503, even for JSONPatch mutations.
func (s *state) mutate(ctx context.Context, cp *compiledPolicy, i int, in *evalInput, v *versioned) (map[string]any, error) {
	kind := v.kind
	s.checkSchema(v)
	if v.noSchema {
		return nil, noSchemaError(kind)
	}
	p, err := cp.eval.evaluateMutation(ctx, i, in)
	if err != nil {
		return nil, err
	}
	out, err := s.d.apply(p, in.object, kind, s.d.schemas)
	if err != nil {
		return nil, err
	}
	if s.d.o.Defaulter != nil {
		u := &unstructured.Unstructured{Object: out}
		s.d.o.Defaulter(u)
		// kube-apiserver defaults the Go object: what the next mutation
		// sees is the defaulted object through its Go type.
		out = s.normalize(u.Object, kind)
	}
	return out, nil
}

// explainMutation records a mutation's outcome, and checks that applying it
// again to its own output changes nothing.
func (s *state) explainMutation(ctx context.Context, cp *compiledPolicy, i int, in *evalInput, v *versioned, out map[string]any, err error) MutationTrace {
	mt := MutationTrace{Index: i, Err: err}
	if err != nil {
		return mt
	}
	mt.Changed = objectdiff.ChangedPaths(in.object, out)
	again := *in
	again.object = out
	// A policy whose match conditions exclude its own output (a guard
	// such as "no sidecar yet") is not invoked on it again.
	again.namespace = nil
	if mc := cp.eval.matchConditions(ctx, &again); !mc.Matches && mc.Error == nil {
		mt.Idempotent = true
		return mt
	}
	again.namespace = in.namespace
	twice, err := s.mutate(ctx, cp, i, &again, v)
	mt.IdempotenceErr = err
	mt.Idempotent = err == nil && objectdiff.Equal(out, twice)
	return mt
}

// The fields admissionpolicy.Join reads.
func policyName(p *admissionregistrationv1.MutatingAdmissionPolicy) string { return p.Name }
func paramKindOf(p *admissionregistrationv1.MutatingAdmissionPolicy) *admissionregistrationv1.ParamKind {
	return p.Spec.ParamKind
}
func boundPolicy(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) string {
	return b.Spec.PolicyName
}
