package mutation

import (
	"context"
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
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/internal/objectdiff"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

type (
	policies = []*admissionregistrationv1.MutatingAdmissionPolicy
	bindings = []*admissionregistrationv1.MutatingAdmissionPolicyBinding
)

var (
	podKind     = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	podResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

func podRequest(op admissionv1.Operation, labels map[string]any) *Request {
	meta := map[string]any{"name": "p", "namespace": "ns"}
	if labels != nil {
		meta["labels"] = labels
	}
	return &Request{
		Operation: op, Kind: podKind, Resource: podResource, Name: "p", Namespace: "ns",
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta}},
	}
}

func configMap(namespace, name, value string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"value": value}}}
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

func labelsOf(t *testing.T, u *unstructured.Unstructured) map[string]string {
	t.Helper()
	return u.GetLabels()
}

func TestAdmit(t *testing.T) {
	cmKind := "ConfigMap"
	params := NewParamObjects(nil,
		configMap("ns", "a", "va", map[string]string{"sel": "yes"}),
		configMap("ns", "b", "vb", map[string]string{"sel": "yes"}),
		configMap("other", "c", "vc", map[string]string{"sel": "yes"}),
	)
	deny, allow := admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction
	tests := []struct {
		name     string
		policies policies
		bindings bindings
		req      *Request
		opts     Options
		labels   map[string]string // expected labels of the result
		changed  bool
		err      string // expected error message
		code     int32
		reason   metav1.StatusReason
		causes   int
	}{{
		name:     "one mutation",
		policies: policies{newPolicy("p", []string{"label:a=1"})},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		labels:   map[string]string{"a": "1"},
		changed:  true,
	}, {
		name:     "mutations in order see the previous ones",
		policies: policies{newPolicy("p", []string{"label:a=1", "count:n", "count:n"})},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		labels:   map[string]string{"a": "1"},
		changed:  true,
	}, {
		name:     "a policy without binding does nothing",
		policies: policies{newPolicy("p", []string{"label:a=1"})},
		bindings: bindings{newBinding("b", "other")},
		req:      podRequest(admissionv1.Create, nil),
	}, {
		name:     "DELETE is not handled",
		policies: policies{newPolicy("p", []string{"fail:boom"}, withResources("*"))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Delete, nil),
	}, {
		name:     "rules that do not match",
		policies: policies{newPolicy("p", []string{"fail:boom"}, withResources("deployments"))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
	}, {
		name:     "binding objectSelector",
		policies: policies{newPolicy("p", []string{"label:a=1"})},
		bindings: bindings{newBinding("b1", "p", bindingObjectSelector("x", "y")), newBinding("b2", "p", bindingObjectSelector("app", "web"))},
		req:      podRequest(admissionv1.Create, map[string]any{"app": "web"}),
		labels:   map[string]string{"app": "web", "a": "1"},
		changed:  true,
	}, {
		name:     "an error fails with Invalid, and the next mutation still runs",
		policies: policies{newPolicy("p", []string{"fail:boom", "label:a=1", "fail:again"})},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		err:      "policy 'p' with binding 'b' denied request: boom",
		code:     403,
		reason:   metav1.StatusReasonInvalid,
		causes:   2,
	}, {
		name:     "Ignore drops the error and keeps the other mutations",
		policies: policies{newPolicy("p", []string{"fail:boom", "label:a=1"}, ignore)},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		labels:   map[string]string{"a": "1"},
		changed:  true,
	}, {
		name:     "a status error aborts whatever the failure policy",
		policies: policies{newPolicy("p", []string{"status:503", "label:a=1"}, ignore)},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		err:      "unavailable",
		code:     503,
		reason:   metav1.StatusReasonServiceUnavailable,
	}, {
		name: "a kind without schema is a 503",
		policies: policies{newPolicy("p", []string{"label:a=1"}, withResources("widgets"), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules[0].APIGroups = []string{"x.io"}
		})},
		bindings: bindings{newBinding("b", "p")},
		req: &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "x.io", Version: "v1", Kind: "Widget"},
			Resource: schema.GroupVersionResource{Group: "x.io", Version: "v1", Resource: "widgets"}, Name: "w",
			Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "x.io/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}}},
		err:    "Resource kind x.io/v1, Kind=Widget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.",
		code:   503,
		reason: metav1.StatusReasonServiceUnavailable,
	}, {
		name: "errors: configuration errors first, then evaluation errors",
		policies: policies{
			newPolicy("eval", []string{"fail:boom"}),
			newPolicy("config", []string{"label:a=1"}, withParamKind("v1", "Secret")),
		},
		bindings: bindings{newBinding("b1", "eval"), newBinding("b2", "config", paramName("x", deny))},
		req:      podRequest(admissionv1.Create, nil),
		err:      `policy "config" denied request: failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=Secret'`,
		code:     403,
		reason:   metav1.StatusReasonForbidden,
		causes:   2,
	}, {
		name:     "param by name",
		policies: policies{newPolicy("p", []string{"param:v"}, withParamKind("v1", cmKind))},
		bindings: bindings{newBinding("b", "p", paramName("b", deny))},
		req:      podRequest(admissionv1.Create, nil),
		opts:     Options{Params: params},
		labels:   map[string]string{"v": "vb"},
		changed:  true,
	}, {
		name:     "param not found, Deny",
		policies: policies{newPolicy("p", []string{"param:v"}, withParamKind("v1", cmKind))},
		bindings: bindings{newBinding("b", "p", paramName("zz", deny))},
		req:      podRequest(admissionv1.Create, nil),
		opts:     Options{Params: params},
		err:      "policy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
		code:     403,
		reason:   metav1.StatusReasonForbidden,
		causes:   1,
	}, {
		name:     "param not found, Allow: no invocation",
		policies: policies{newPolicy("p", []string{"param:v"}, withParamKind("v1", cmKind))},
		bindings: bindings{newBinding("b", "p", paramName("zz", allow))},
		req:      podRequest(admissionv1.Create, nil),
		opts:     Options{Params: params},
	}, {
		name:     "params by selector: one invocation each, in order, in the request's namespace",
		policies: policies{newPolicy("p", []string{"param:v"}, withParamKind("v1", cmKind))},
		bindings: bindings{newBinding("b", "p", paramSelector(deny, map[string]string{"sel": "yes"}))},
		req:      podRequest(admissionv1.Create, nil),
		opts:     Options{Params: params},
		labels:   map[string]string{"v": "vb"},
		changed:  true,
	}, {
		name:     "paramKind without paramRef: params null",
		policies: policies{newPolicy("p", []string{"param:v"}, withParamKind("v1", cmKind))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		opts:     Options{Params: params},
		labels:   map[string]string{"v": "null"},
		changed:  true,
	}, {
		name:     "namespaced paramRef on a cluster-scoped request",
		policies: policies{newPolicy("p", []string{"param:v"}, withParamKind("v1", cmKind), withResources("nodes"))},
		bindings: bindings{newBinding("b", "p", paramName("a", deny))},
		req: &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Node"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, Name: "n",
			Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n"}}}},
		opts:   Options{Params: params},
		err:    "policy 'p' with binding 'b' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
		code:   403,
		reason: metav1.StatusReasonForbidden,
		causes: 1,
	}, {
		name:     "match condition false",
		policies: policies{newPolicy("p", []string{"label:a=1"}, withConditions("true", "false"))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
	}, {
		name:     "match condition error",
		policies: policies{newPolicy("p", []string{"label:a=1"}, withConditions("error"))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		err:      "policy 'p' with binding 'b' denied request: condition c0 failed",
		code:     403,
		reason:   metav1.StatusReasonInvalid,
		causes:   1,
	}, {
		name:     "namespaceObject is the request's namespace",
		policies: policies{newPolicy("p", []string{"ns:ns"})},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		labels:   map[string]string{"ns": "ns"},
		changed:  true,
	}, {
		name:     "namespace not found",
		policies: policies{newPolicy("p", []string{"ns:ns"})},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		opts: Options{Namespaces: NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		})},
		err:    `namespaces "ns" not found`,
		code:   404,
		reason: metav1.StatusReasonNotFound,
	}, {
		name:     "namespace not found under a namespaceSelector: a configuration error",
		policies: policies{newPolicy("p", []string{"ns:ns"}, withNamespaceSelector("env", "prod"))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		opts: Options{Namespaces: NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		})},
		err:    `policy "p" denied request: failed to configure policy: namespaces "ns" not found`,
		code:   403,
		reason: metav1.StatusReasonForbidden,
		causes: 1,
	}, {
		name:     "namespaceSelector on the namespace's labels",
		policies: policies{newPolicy("p", []string{"label:a=1"}, withNamespaceSelector("env", "prod"))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		opts: Options{Namespaces: NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": "prod"}}}, nil
		})},
		labels:  map[string]string{"a": "1"},
		changed: true,
	}, {
		name:     "equivalent resource of another version, through the converter",
		policies: policies{newPolicy("p", []string{"req:r"}, withVersions("v2"))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		opts: Options{
			Equivalents: equivalentsV2(),
			Converter:   versionConverter{},
		},
		labels:  map[string]string{"r": "v2.pods"},
		changed: true,
	}, {
		name:     "equivalent resource without a converter",
		policies: policies{newPolicy("p", []string{"req:r"}, withVersions("v2"))},
		bindings: bindings{newBinding("b", "p")},
		req:      podRequest(admissionv1.Create, nil),
		opts:     Options{Equivalents: equivalentsV2()},
		err:      `policy "p" denied request: failed to configure policy: no converter to convert /v1, Kind=Pod to /v2, Kind=Pod`,
		code:     403,
		reason:   metav1.StatusReasonForbidden,
		causes:   1,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Schemas == nil && tc.opts.Converter != nil {
				tc.opts.Schemas = podV2Schemas(t)
			}
			d := newDispatcher(tc.policies, tc.bindings, tc.opts, compileFake, applyFake)
			before := deepCopyJSON(tc.req.Object.Object)
			res, err := d.Admit(context.Background(), tc.req)
			assert.Equal(t, before, tc.req.Object.Object, "the request's object is not modified")
			if tc.err != "" {
				require.Error(t, err)
				status, ok := err.(*apierrors.StatusError)
				require.True(t, ok, "%T", err)
				assert.Equal(t, tc.err, status.ErrStatus.Message)
				assert.Equal(t, tc.code, status.ErrStatus.Code)
				assert.Equal(t, tc.reason, status.ErrStatus.Reason)
				if tc.causes > 0 {
					require.NotNil(t, status.ErrStatus.Details)
					assert.Len(t, status.ErrStatus.Details.Causes, tc.causes)
				}
				assert.Same(t, tc.req.Object, res.Object)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.changed, res.Changed)
			want := tc.labels
			if want == nil {
				want = tc.req.Object.GetLabels()
			}
			assert.Equal(t, want, labelsOf(t, res.Object))

			// Explain decides the same.
			res2, trace, err := d.Explain(context.Background(), tc.req)
			require.NoError(t, err)
			assert.Equal(t, res.Object.Object, res2.Object.Object)
			assert.NotNil(t, trace)
		})
	}
}

func equivalentsV2() runtime.EquivalentResourceMapper {
	r := runtime.NewEquivalentResourceRegistry()
	v2 := schema.GroupVersionResource{Version: "v2", Resource: "pods"}
	r.RegisterKindFor(podResource, "", podKind)
	r.RegisterKindFor(v2, "", schema.GroupVersionKind{Version: "v2", Kind: "Pod"})
	return r
}

// versionConverter converts by rewriting apiVersion.
type versionConverter struct{}

func (versionConverter) Convert(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	out := obj.DeepCopy()
	out.SetAPIVersion(to.GroupVersion().String())
	return out, nil
}

// podV2Schemas knows a v2 Pod (a CRD of the core group is refused, so the
// test's own schemas wrap the built-in ones).
func podV2Schemas(t *testing.T) *Schemas {
	t.Helper()
	s := BuiltIn()
	pod, err := s.Lookup(podKind)
	require.NoError(t, err)
	s.addSchemas("", "", map[schema.GroupVersionKind]*Schema{{Version: "v2", Kind: "Pod"}: pod})
	return s
}

func TestAdmitParamsSelectorOrder(t *testing.T) {
	deny := admissionregistrationv1.DenyAction
	params := NewParamObjects(nil,
		configMap("ns", "a", "1", map[string]string{"sel": "yes"}),
		configMap("ns", "b", "2", map[string]string{"sel": "no"}),
		configMap("ns", "c", "3", map[string]string{"sel": "yes"}),
	)
	d := newDispatcher(policies{newPolicy("p", []string{"count:n", "param:last"}, withParamKind("v1", "ConfigMap"))},
		bindings{newBinding("b", "p", paramSelector(deny, map[string]string{"sel": "yes"}))},
		Options{Params: params}, compileFake, applyFake)
	res, trace, err := d.Explain(context.Background(), podRequest(admissionv1.Create, nil))
	require.NoError(t, err)
	assert.Equal(t, "2", res.Object.GetAnnotations()["n"], "one invocation per selected param")
	assert.Equal(t, "3", res.Object.GetLabels()["last"], "in the order listed")
	invs := trace.Policies[0].Bindings[0].Invocations
	require.Len(t, invs, 2)
	assert.Equal(t, "a", invs[0].ParamName)
	assert.Equal(t, "c", invs[1].ParamName)
}

func TestAdmitOrder(t *testing.T) {
	ps := policies{newPolicy("b", []string{"label:who=b"}), newPolicy("a", []string{"label:who=a"})}
	bs := bindings{newBinding("x", "a"), newBinding("y", "b")}
	for _, tc := range []struct {
		order Order
		last  string
	}{{OrderGiven, "a"}, {OrderByName, "b"}} {
		d := newDispatcher(ps, bs, Options{Order: tc.order}, compileFake, applyFake)
		res, err := d.Admit(context.Background(), podRequest(admissionv1.Create, nil))
		require.NoError(t, err)
		assert.Equal(t, tc.last, res.Object.GetLabels()["who"], "order %d", tc.order)
	}
}

// TestReinvocation follows kube-apiserver's integration expectation: three
// counting policies, the middle one Never, take 0→1→2→3, then the IfNeeded
// ones are reinvoked, 3→4→5.
func TestReinvocation(t *testing.T) {
	ps := policies{
		newPolicy("p1", []string{"count:n"}, ifNeeded),
		newPolicy("p2", []string{"count:n"}),
		newPolicy("p3", []string{"count:n"}, ifNeeded),
	}
	bs := bindings{newBinding("b1", "p1"), newBinding("b2", "p2"), newBinding("b3", "p3")}
	d := newDispatcher(ps, bs, Options{}, compileFake, applyFake)
	req := podRequest(admissionv1.Create, nil)
	rc := &ReinvocationContext{}
	req.Reinvocation = rc
	res, err := d.Admit(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "3", res.Object.GetAnnotations()["n"])
	require.True(t, rc.ShouldReinvoke())

	rc.SetIsReinvoke()
	req.Object = res.Object
	res, trace, err := d.Explain(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "5", res.Object.GetAnnotations()["n"])
	assert.True(t, trace.Reinvocation)
	assert.Equal(t, "not reinvoked", trace.Policies[1].Bindings[0].Invocations[0].Skipped)
}

func TestReinvocationAfterAnotherPluginChangedTheObject(t *testing.T) {
	// One IfNeeded policy that changes nothing the second time: only an
	// outside change makes it eligible... and a successful mutation
	// (even a no-op) makes the pass dirty, which makes it eligible too.
	d := newDispatcher(policies{newPolicy("p", []string{"label:a=1"}, ifNeeded)}, bindings{newBinding("b", "p")}, Options{}, compileFake, applyFake)
	req := podRequest(admissionv1.Create, nil)
	rc := &ReinvocationContext{}
	req.Reinvocation = rc
	res, err := d.Admit(context.Background(), req)
	require.NoError(t, err)
	require.True(t, rc.ShouldReinvoke())
	rc.SetIsReinvoke()
	req.Object = res.Object.DeepCopy()
	req.Object.SetLabels(map[string]string{"webhook": "x"}) // a webhook removed a=1
	res, err = d.Admit(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"webhook": "x", "a": "1"}, res.Object.GetLabels())

	// A Never policy does not run twice.
	d = newDispatcher(policies{newPolicy("p", []string{"label:a=1"})}, bindings{newBinding("b", "p")}, Options{}, compileFake, applyFake)
	req = podRequest(admissionv1.Create, nil)
	rc = &ReinvocationContext{}
	req.Reinvocation = rc
	res, err = d.Admit(context.Background(), req)
	require.NoError(t, err)
	assert.True(t, rc.ShouldReinvoke(), "any successful mutation asks for a reinvocation")
	rc.SetIsReinvoke()
	req.Object = res.Object.DeepCopy()
	req.Object.SetLabels(nil)
	res, err = d.Admit(context.Background(), req)
	require.NoError(t, err)
	assert.Empty(t, res.Object.GetLabels())
}

func TestMetrics(t *testing.T) {
	sink := metrics.NewMemory()
	clk := testingclock.NewFakePassiveClock(metav1.Now().Time)
	d := newDispatcher(policies{
		newPolicy("p", []string{"label:a=1", "fail:compilation failed: ERROR", "fail:validation failed due to running out of cost budget, no further validation rules will be run", "fail:other"}, ignore),
	}, bindings{newBinding("b", "p")}, Options{Metrics: sink, Clock: clk}, compileFake, applyFake)
	_, err := d.Admit(context.Background(), podRequest(admissionv1.Create, nil))
	require.NoError(t, err)
	for _, et := range []string{"no_error", "compile_error", "out_of_budget", "invalid_error"} {
		assert.Equal(t, 1.0, sink.Value(metrics.MutatingAdmissionPolicyChecks, "p", "b", et), et)
		assert.Equal(t, uint64(1), sink.HistogramOf(metrics.MutatingAdmissionPolicyCheckDuration, "p", "b", et).Count, et)
	}
}

func TestExplain(t *testing.T) {
	d := newDispatcher(policies{
		newPolicy("nomatch", []string{"label:x=1"}, withResources("deployments")),
		newPolicy("cond", []string{"label:x=1"}, withConditions("false")),
		newPolicy("p", []string{"label:a=1", "count:n", "fail:boom"}, ignore),
	}, bindings{newBinding("b0", "nomatch"), newBinding("b1", "cond"), newBinding("b2", "p"), newBinding("b3", "p", bindingObjectSelector("x", "y"))},
		Options{}, compileFake, applyFake)
	_, trace, err := d.Explain(context.Background(), podRequest(admissionv1.Create, nil))
	require.NoError(t, err)
	require.Len(t, trace.Policies, 3)
	assert.False(t, trace.Policies[0].Matched)
	assert.Equal(t, "rules", trace.Policies[0].Reason)
	inv := trace.Policies[1].Bindings[0].Invocations[0]
	assert.Equal(t, "matchConditions", inv.Skipped)
	assert.Equal(t, "c0", inv.FailedCondition)
	p := trace.Policies[2]
	require.Len(t, p.Bindings, 2)
	assert.False(t, p.Bindings[1].Matched)
	assert.Equal(t, "objectSelector", p.Bindings[1].Reason)
	ms := p.Bindings[0].Invocations[0].Mutations
	require.Len(t, ms, 3)
	assert.Equal(t, []string{".metadata.labels"}, ms[0].Changed)
	assert.True(t, ms[0].Idempotent)
	assert.Equal(t, []string{".metadata.annotations"}, ms[1].Changed)
	assert.False(t, ms[1].Idempotent, "a counter is not idempotent")
	assert.EqualError(t, ms[2].Err, "boom")
	text := trace.String()
	assert.Contains(t, text, "policy nomatch: not matched (rules)")
	assert.Contains(t, text, "mutation 1: changed .metadata.annotations")
	assert.Contains(t, text, "not idempotent")
}

func TestChangedPaths(t *testing.T) {
	a := map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "1"}}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c"}}}}
	b := map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "2", "b": "1"}}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}, map[string]any{"name": "d"}}}}
	assert.Equal(t, []string{".metadata.labels.a", ".metadata.labels.b", ".spec.containers[0].image", ".spec.containers[1]"}, objectdiff.ChangedPaths(a, b))
	assert.Empty(t, objectdiff.ChangedPaths(a, deepCopyJSON(a)))
}

func TestJSONEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b any
		eq   bool
	}{
		{map[string]any{}, map[string]any(nil), true},
		{[]any{}, []any(nil), true},
		{map[string]any{"a": nil}, map[string]any{"a": map[string]any{}}, false},
		{int64(1), float64(1), false},
		{map[string]any{"a": []any{"x", int64(2)}}, map[string]any{"a": []any{"x", int64(2)}}, true},
		{map[string]any{"a": "x"}, map[string]any{"b": "x"}, false},
	} {
		assert.Equal(t, tc.eq, objectdiff.Equal(tc.a, tc.b), "%#v %#v", tc.a, tc.b)
	}
}

// TestMixedVersions keeps kube-apiserver's behaviour when policies match a
// request in two versions: each version's objects are converted before any
// mutation, and only the last invocation's version is returned, so the
// mutations made in the other version are lost.
func TestMixedVersions(t *testing.T) {
	d := newDispatcher(policies{
		newPolicy("v1", []string{"label:v1=yes"}),
		newPolicy("v2", []string{"label:v2=yes"}, withVersions("v2")),
	}, bindings{newBinding("b1", "v1"), newBinding("b2", "v2")}, Options{
		Equivalents: equivalentsV2(),
		Converter:   versionConverter{},
		Schemas:     podV2Schemas(t),
	}, compileFake, applyFake)
	res, trace, err := d.Explain(context.Background(), podRequest(admissionv1.Create, nil))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"v2": "yes"}, res.Object.GetLabels())
	assert.Equal(t, "v1", res.Object.GetAPIVersion(), "converted back to the request's version")
	assert.Equal(t, schema.GroupVersionKind{Version: "v2", Kind: "Pod"}, trace.Policies[1].Kind)
}
