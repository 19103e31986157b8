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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	"sigs.k8s.io/yaml"

	gadmission "github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/kubeeval"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// chainVAPs are ValidatingAdmissionPolicies over everything the mutation
// corpus admits, to run after its MutatingAdmissionPolicies: they read what
// the mutations wrote (labels, annotations, containers), warn, audit and
// deny.
const chainVAPs = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: labels}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  validations:
  - expression: "object == null || !has(object.metadata.labels) || size(object.metadata.labels) < 2"
    messageExpression: "'labels: ' + string(size(object.metadata.labels))"
  - expression: "object == null || !has(object.metadata.annotations)"
    message: annotated
  auditAnnotations:
  - key: labels
    valueExpression: "object == null || !has(object.metadata.labels) ? '' : string(size(object.metadata.labels))"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: labels}
spec: {policyName: labels, validationActions: [Warn, Audit]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: containers}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  validations:
  - expression: "object.spec.containers.size() + (has(object.spec.initContainers) ? object.spec.initContainers.size() : 0) < 3"
    messageExpression: "'too many containers: ' + string(object.spec.containers.size())"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: containers}
spec: {policyName: containers, validationActions: [Deny]}
`

// kubeChain is kube-apiserver's admission chain over the two policy
// plugins: its MutatingAdmissionPolicy dispatcher, reinvoked once as its
// reinvoker does, then its ValidatingAdmissionPolicy dispatcher on the final
// object.
type kubeChain struct {
	mutating   *kubeMAP
	validating *kubeVAP
}

type chainOutcome struct {
	object      map[string]any
	err         error
	warnings    []string
	annotations map[string]string
}

func (k *kubeChain) admit(a admission.Attributes, gvk schema.GroupVersionKind) chainOutcome {
	ctx := context.Background()
	// The mutating phase: MutatingAdmissionPolicy handles CREATE, UPDATE
	// and CONNECT.
	switch a.GetOperation() {
	case admission.Create, admission.Update, admission.Connect:
		if err := k.mutating.admit(ctx, a); err != nil {
			return chainOutcome{err: err}
		}
		if rc := a.GetReinvocationContext(); rc.ShouldReinvoke() {
			rc.SetIsReinvoke()
			if err := k.mutating.admit(ctx, a); err != nil {
				return chainOutcome{err: err}
			}
		}
	}
	aa := &kubeeval.AnnotatedAttributes{Attributes: a}
	warnings := &kubeeval.WarningList{}
	err := k.validating.dispatcher.Dispatch(warning.WithWarningRecorder(ctx, warnings), aa, k.validating.o, k.validating.hooks)
	if err != nil {
		if _, ok := err.(*apierrors.StatusError); !ok {
			err = apierrors.NewInternalError(err)
		}
	}
	return chainOutcome{object: nilIfEmpty(a.GetObject(), gvk), err: err, warnings: warnings.List, annotations: aa.Annotations}
}

func nilIfEmpty(obj runtime.Object, gvk schema.GroupVersionKind) map[string]any {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	u["apiVersion"], u["kind"] = gvk.ToAPIVersionAndKind()
	return u
}

// TestAdmissionChainMatchesKubeAPIServer runs every request of the mutation
// corpus (its worlds, and the published MutatingAdmissionPolicies) through
// kube-apiserver's chain of the two policy plugins and through gatehouse's
// admission.Chain, with ValidatingAdmissionPolicies that read what the
// mutations wrote: the admitted object, the denial, the warnings and the
// audit annotations must be the same.
func TestAdmissionChainMatchesKubeAPIServer(t *testing.T) {
	vaps, err := validatingpolicy.Decode([]byte(chainVAPs))
	if err != nil {
		t.Fatal(err)
	}
	worlds := append(append([]mdWorld{}, mdWorlds...), mdRealworldWorlds(t)...)
	requests, denied, warned, reinvoked := 0, 0, 0, 0
	for wi := range worlds {
		w := &worlds[wi]
		t.Run(w.name, func(t *testing.T) {
			policies, bindings, objects := mdLoad(t, w)
			kube := &kubeChain{mutating: newKubeMAP(t, policies, bindings, objects...), validating: newKubeVAP(t, vaps.Policies, vaps.Bindings, false, objects...)}
			ours := newChain(t, policies, bindings, vaps, objects)
			for ri := range w.requests {
				r := &w.requests[ri]
				t.Run(r.name, func(t *testing.T) {
					want, got, trace := chainCompareOne(t, kube, ours, r)
					requests++
					if want.err != nil {
						denied++
					}
					if len(want.warnings) > 0 {
						warned++
					}
					if trace.Reinvoked {
						reinvoked++
					}
					chainSame(t, got, want, trace)
				})
			}
		})
	}
	t.Logf("%d requests: %d denied, %d with warnings, %d reinvoked", requests, denied, warned, reinvoked)
	if denied == 0 || warned == 0 || reinvoked == 0 {
		t.Errorf("the corpus no longer reaches every path")
	}
}

func newChain(t testing.TB, policies []*admissionregistrationv1.MutatingAdmissionPolicy, bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding, vaps *validatingpolicy.Objects, objects []runtime.Object) *gadmission.Chain {
	t.Helper()
	var params []runtime.Object
	namespaces := map[string]*corev1.Namespace{}
	for _, o := range objects {
		switch o := o.(type) {
		case *corev1.Namespace:
			namespaces[o.Name] = o
		case *corev1.ConfigMap:
			u := mdUnstructured(t, o)
			u.SetAPIVersion("v1")
			u.SetKind("ConfigMap")
			params = append(params, u)
		}
	}
	configMaps := mutation.NewParamObjects(nil, params...)
	c, err := gadmission.New(gadmission.Config{MutatingPolicies: policies, MutatingPolicyBindings: bindings, ValidatingPolicies: vaps.Policies, ValidatingPolicyBindings: vaps.Bindings}, gadmission.Options{
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
	return c
}

func chainCompareOne(t *testing.T, kube *kubeChain, ours *gadmission.Chain, r *mdRequest) (want, got chainOutcome, trace *gadmission.Trace) {
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
	var kubeObj runtime.Object
	if obj != nil {
		kubeObj = obj.DeepCopyObject()
	}
	attrs := admission.NewAttributesRecord(kubeObj, old, gvk, namespace, name, gvr, "", r.operation, nil, false, alice)
	want = kube.admit(attrs, gvk)

	req := &gadmission.Request{
		Operation: admissionv1.Operation(r.operation), Kind: gvk, Resource: gvr, Name: name, Namespace: namespace,
		UserInfo: authenticationv1.UserInfo{Username: "alice", UID: "u1", Groups: []string{"devs"}},
		Object:   mdUnstructured(t, obj), OldObject: mdUnstructured(t, old),
	}
	res, trace, err := ours.Explain(context.Background(), req)
	got = chainOutcome{err: err, warnings: res.Warnings, annotations: res.AuditAnnotations}
	if res.Object != nil {
		got.object = mdNormalize(t, gvk, res.Object)
	}
	return want, got, trace
}

func chainSame(t *testing.T, got, want chainOutcome, trace *gadmission.Trace) {
	t.Helper()
	defer func() {
		if t.Failed() {
			for i, mt := range trace.MutatingPolicies {
				t.Logf("mutating pass %d:\n%s", i+1, mt)
			}
			if trace.ValidatingPolicies != nil {
				t.Logf("validating:\n%s", trace.ValidatingPolicies)
			}
		}
	}()
	if (got.err == nil) != (want.err == nil) {
		t.Errorf("error: gatehouse %v, kube-apiserver %v", got.err, want.err)
		return
	}
	if want.err != nil {
		gs, gok := got.err.(*apierrors.StatusError)
		ws, wok := want.err.(*apierrors.StatusError)
		if !gok || !wok || !reflect.DeepEqual(gs.ErrStatus, ws.ErrStatus) {
			t.Errorf("status:\ngatehouse:      %#v\nkube-apiserver: %#v", got.err, want.err)
		}
	} else if !reflect.DeepEqual(got.object, want.object) {
		gy, _ := yaml.Marshal(got.object)
		wy, _ := yaml.Marshal(want.object)
		t.Errorf("object:\ngatehouse:\n%s\nkube-apiserver:\n%s", gy, wy)
	}
	if fmt.Sprint(got.warnings) != fmt.Sprint(want.warnings) {
		t.Errorf("warnings:\ngatehouse:      %q\nkube-apiserver: %q", got.warnings, want.warnings)
	}
	if len(got.annotations) != 0 || len(want.annotations) != 0 {
		if !reflect.DeepEqual(got.annotations, want.annotations) {
			t.Errorf("audit annotations:\ngatehouse:      %q\nkube-apiserver: %q", got.annotations, want.annotations)
		}
	}
}
