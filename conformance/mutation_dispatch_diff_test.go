package conformance

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

type mdSetup struct {
	policies []*admissionregistrationv1.MutatingAdmissionPolicy
	bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	objects  []runtime.Object
	ours     *mutation.Dispatcher
	kube     *kubeMAP
}

func newMDSetup(t testing.TB, w *mdWorld) *mdSetup {
	t.Helper()
	s := &mdSetup{}
	s.policies, s.bindings, s.objects = mdLoad(t, w)
	s.kube = newKubeMAP(t, s.policies, s.bindings, s.objects...)
	var params []runtime.Object
	namespaces := map[string]*corev1.Namespace{}
	for _, o := range s.objects {
		switch o := o.(type) {
		case *corev1.Namespace:
			namespaces[o.Name] = o
		case *corev1.ConfigMap:
			// The informer's objects carry no apiVersion and kind; the
			// param source is keyed by kind.
			u := mdUnstructured(t, o)
			u.SetAPIVersion("v1")
			u.SetKind("ConfigMap")
			params = append(params, u)
		}
	}
	configMaps := mutation.NewParamObjects(nil, params...)
	d, err := mutation.NewDispatcher(s.policies, s.bindings, mutation.Options{
		// Only ConfigMaps are served, as in the kube-apiserver harness.
		Params: mutation.ParamSourceFunc(func(kind schema.GroupVersionKind) (mutation.Params, error) {
			if kind != corev1.SchemeGroupVersion.WithKind("ConfigMap") {
				return nil, mutation.ErrParamKindNotKnown
			}
			return configMaps.Params(kind)
		}),
		Namespaces: mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := namespaces[name]; ok {
				return ns, nil
			}
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		}),
		Authorizer: gatehouseAllowAll{},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.ours = d
	return s
}

// mdOutcome is what is compared after a pass.
type mdOutcome struct {
	object         map[string]any
	err            error
	shouldReinvoke bool
}

func TestMutationDispatchMatchesKubeAPIServer(t *testing.T) {
	for wi := range mdWorlds {
		w := &mdWorlds[wi]
		t.Run(w.name, func(t *testing.T) {
			s := newMDSetup(t, w)
			for _, r := range w.requests {
				t.Run(r.name, func(t *testing.T) {
					mdCompare(t, s, &r)
				})
			}
		})
	}
}

func mdCompare(t *testing.T, s *mdSetup, r *mdRequest) {
	ctx := context.Background()
	var obj, old runtime.Object
	if r.object != "" {
		obj = mdTyped(t, r.object)
	}
	if r.oldObject != "" {
		old = mdTyped(t, r.oldObject)
	}
	some := obj
	if some == nil {
		some = old
	}
	gvk := some.GetObjectKind().GroupVersionKind()
	gvr := gvk.GroupVersion().WithResource(r.resource)
	accessor := some.(metav1.Object)
	name, namespace := accessor.GetName(), accessor.GetNamespace()
	if gvk.Kind == "Namespace" {
		namespace = name
	}
	alice := &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"devs"}}

	// kube-apiserver: typed objects, as its admission chain has them.
	var kubeObj runtime.Object
	if obj != nil {
		kubeObj = obj.DeepCopyObject()
	}
	attrs := admission.NewAttributesRecord(kubeObj, old, gvk, namespace, name, gvr, "", r.operation, nil, false, alice)
	kubePass := func() mdOutcome {
		err := s.kube.admit(ctx, attrs)
		return mdOutcome{object: mdNormalizeNil(t, gvk, attrs.GetObject()), err: err, shouldReinvoke: attrs.GetReinvocationContext().ShouldReinvoke()}
	}

	// gatehouse: the same objects, unstructured.
	rc := &mutation.ReinvocationContext{}
	req := &mutation.Request{
		Operation: admissionv1.Operation(r.operation), Kind: gvk, Resource: gvr, Name: name, Namespace: namespace,
		UserInfo:     authenticationv1.UserInfo{Username: "alice", UID: "u1", Groups: []string{"devs"}},
		Object:       mdUnstructured(t, obj),
		OldObject:    mdUnstructured(t, old),
		Reinvocation: rc,
	}
	var trace *mutation.Trace
	ourPass := func() mdOutcome {
		res, tr, err := s.ours.Explain(ctx, req)
		trace = tr
		out := mdOutcome{err: err, shouldReinvoke: rc.ShouldReinvoke()}
		if res.Object != nil {
			out.object = mdNormalize(t, gvk, res.Object)
		}
		return out
	}

	for pass := 1; pass <= 2; pass++ {
		want, got := kubePass(), ourPass()
		mdSame(t, fmt.Sprintf("pass %d", pass), got, want, r.knownDifference)
		if t.Failed() {
			t.Logf("trace:\n%s", trace)
		}
		if !want.shouldReinvoke || want.err != nil || pass == 2 {
			return
		}
		// The reinvocation, after a webhook's change.
		attrs.GetReinvocationContext().SetIsReinvoke()
		rc.SetIsReinvoke()
		next := mdUnstructured(t, attrs.GetObject())
		if r.between != nil && next != nil {
			r.between(next.Object)
			typed, err := scheme.Scheme.New(gvk)
			if err != nil {
				t.Fatal(err)
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(next.Object, typed); err != nil {
				t.Fatal(err)
			}
			attrs = mdWithObject(attrs, typed)
			next = mdUnstructured(t, typed)
		}
		req.Object = next
	}
}

// mdWithObject replaces the admitted object in place, as a webhook's patch
// does (the attributes record keeps its reinvocation context).
func mdWithObject(a admission.Attributes, obj runtime.Object) admission.Attributes {
	if err := scheme.Scheme.Convert(obj, a.GetObject(), nil); err != nil {
		panic(err)
	}
	return a
}

func mdSame(t *testing.T, what string, got, want mdOutcome, knownDifference string) {
	t.Helper()
	// kube-apiserver mutates the admitted object in place and leaves the
	// mutations made before an error in it; a denied request's object is
	// discarded, so only that of an admitted one is compared.
	if (got.err == nil || want.err == nil) && !reflect.DeepEqual(got.object, want.object) {
		gy, _ := yaml.Marshal(got.object)
		wy, _ := yaml.Marshal(want.object)
		t.Errorf("%s: object:\ngatehouse:\n%s\nkube-apiserver:\n%s", what, gy, wy)
	}
	if got.shouldReinvoke != want.shouldReinvoke {
		t.Errorf("%s: shouldReinvoke: gatehouse %v, kube-apiserver %v", what, got.shouldReinvoke, want.shouldReinvoke)
	}
	if (got.err == nil) != (want.err == nil) {
		t.Errorf("%s: error: gatehouse %v, kube-apiserver %v", what, got.err, want.err)
		return
	}
	if want.err == nil {
		return
	}
	gs, gok := got.err.(*apierrors.StatusError)
	ws, wok := want.err.(*apierrors.StatusError)
	if !gok || !wok {
		t.Errorf("%s: error types: gatehouse %T, kube-apiserver %T", what, got.err, want.err)
		return
	}
	if knownDifference != "" {
		// A documented difference of message: the rest of the status must
		// agree.
		if gs.ErrStatus.Code != ws.ErrStatus.Code || gs.ErrStatus.Reason != ws.ErrStatus.Reason {
			t.Errorf("%s: status:\ngatehouse:      %#v\nkube-apiserver: %#v", what, gs.ErrStatus, ws.ErrStatus)
		}
		t.Logf("%s: known difference (%s):\ngatehouse:      %s\nkube-apiserver: %s", what, knownDifference, gs.ErrStatus.Message, ws.ErrStatus.Message)
		return
	}
	if !reflect.DeepEqual(gs.ErrStatus, ws.ErrStatus) {
		t.Errorf("%s: status:\ngatehouse:      %#v\nkube-apiserver: %#v", what, gs.ErrStatus, ws.ErrStatus)
	}
}

type gatehouseAllowAll struct{}

func (gatehouseAllowAll) Authorize(context.Context, *matchcond.AuthorizationAttributes) (matchcond.Decision, string, error) {
	return matchcond.DecisionAllow, "", nil
}

// TestMutationDispatchIdempotence applies each mutation of the corpus again
// to its own output (Explain's check, which kube-apiserver does not make)
// and reports those that are not idempotent: the counters must be, the
// other policies of the corpus must not.
func TestMutationDispatchIdempotence(t *testing.T) {
	ctx := context.Background()
	notIdempotent := map[string]bool{}
	for wi := range mdWorlds {
		w := &mdWorlds[wi]
		s := newMDSetup(t, w)
		for _, r := range w.requests {
			if r.object == "" {
				continue
			}
			obj := mdTyped(t, r.object)
			gvk := obj.GetObjectKind().GroupVersionKind()
			m := obj.(metav1.Object)
			ns := m.GetNamespace()
			if gvk.Kind == "Namespace" {
				ns = m.GetName()
			}
			req := &mutation.Request{Operation: admissionv1.Operation(r.operation), Kind: gvk, Resource: gvk.GroupVersion().WithResource(r.resource),
				Name: m.GetName(), Namespace: ns, Object: mdUnstructured(t, obj)}
			if r.oldObject != "" {
				req.OldObject = mdUnstructured(t, mdTyped(t, r.oldObject))
			}
			_, trace, _ := s.ours.Explain(ctx, req)
			for _, p := range trace.Policies {
				for _, b := range p.Bindings {
					for _, inv := range b.Invocations {
						for _, mt := range inv.Mutations {
							if mt.Err == nil && !mt.Idempotent {
								notIdempotent[p.Policy] = true
								t.Logf("not idempotent: policy %s mutation %d (%s / %s): %v", p.Policy, mt.Index, w.name, r.name, mt.IdempotenceErr)
							}
						}
					}
				}
			}
		}
	}
	want := map[string]bool{"p1": true, "p2": true, "p3": true}
	if !reflect.DeepEqual(notIdempotent, want) {
		t.Errorf("non-idempotent policies: %v, want %v", notIdempotent, want)
	}
}

// mdUnstructured is a typed object as kube-apiserver's CEL sees it.
func mdUnstructured(t testing.TB, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// mdNormalize types an unstructured object with the scheme and back, as the
// typed object kube-apiserver admits would be.
func mdNormalize(t testing.TB, gvk schema.GroupVersionKind, u *unstructured.Unstructured) map[string]any {
	t.Helper()
	if u == nil {
		return nil
	}
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		t.Fatal(err)
	}
	// kube-apiserver's typed objects lose their apiVersion and kind in
	// conversion; its responses carry those of the request's kind.
	m := mdUnstructured(t, obj).Object
	m["apiVersion"], m["kind"] = gvk.ToAPIVersionAndKind()
	return m
}

func mdNormalizeNil(t testing.TB, gvk schema.GroupVersionKind, obj runtime.Object) map[string]any {
	u := mdUnstructured(t, obj)
	if u == nil {
		return nil
	}
	return mdNormalize(t, gvk, u)
}

func TestMutationDispatchRealWorldMatchesKubeAPIServer(t *testing.T) {
	for _, w := range mdRealworldWorlds(t) {
		t.Run(w.name, func(t *testing.T) {
			s := newMDSetup(t, &w)
			for _, r := range w.requests {
				t.Run(r.name, func(t *testing.T) { mdCompare(t, s, &r) })
			}
		})
	}
}
