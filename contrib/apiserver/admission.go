package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"

	"github.com/gatehouse-dev/gatehouse/admission"
)

// AdmissionPluginName is the name the admission plugin is registered
// under, in a server's admission plugin list.
const AdmissionPluginName = "GatehouseAdmissionPolicies"

// reinvocationKey is the plugin's value in a request's reinvocation
// context.
const reinvocationKey = "gatehouse.admission"

// AdmissionPlugin is a gatehouse admission chain (package admission:
// MutatingAdmissionPolicies, then ValidatingAdmissionPolicies) as a
// k8s.io/apiserver admission plugin: a MutationInterface whose Admit runs
// one pass of the mutating policies (k8s.io/apiserver's chain reinvokes it
// when it asks), and a ValidationInterface whose Validate runs the
// validating policies on the admitted object. Objects are seen in the
// version of the request, converted from and to the server's internal
// version with the request's ObjectInterfaces, as kube-apiserver's policy
// plugins see them; warnings go to the request's warning recorder and audit
// annotations to its attributes. The chain can be replaced while serving
// (SetChain), for a reloading configuration.
type AdmissionPlugin struct {
	chain atomic.Pointer[admission.Chain]
}

var (
	_ kadmission.MutationInterface       = (*AdmissionPlugin)(nil)
	_ kadmission.ValidationInterface     = (*AdmissionPlugin)(nil)
	_ kadmission.InitializationValidator = (*AdmissionPlugin)(nil)
)

// NewAdmissionPlugin returns the plugin of a chain (nil: set it later with
// SetChain, before the server serves).
func NewAdmissionPlugin(chain *admission.Chain) *AdmissionPlugin {
	p := &AdmissionPlugin{}
	if chain != nil {
		p.chain.Store(chain)
	}
	return p
}

// SetChain replaces the chain; requests in flight finish with the old one.
func (p *AdmissionPlugin) SetChain(chain *admission.Chain) { p.chain.Store(chain) }

// Handles tells the operations the plugin sees: all four (the chain's
// engines decide which they act on).
func (p *AdmissionPlugin) Handles(kadmission.Operation) bool { return true }

// ValidateInitialization fails when no chain has been set.
func (p *AdmissionPlugin) ValidateInitialization() error {
	if p.chain.Load() == nil {
		return errors.New("gatehouse admission plugin: no admission chain set")
	}
	return nil
}

// Admit runs one pass of the chain's mutating policies, and writes the
// mutated object back into the request's object.
func (p *AdmissionPlugin) Admit(ctx context.Context, a kadmission.Attributes, o kadmission.ObjectInterfaces) error {
	chain := p.chain.Load()
	if chain == nil {
		return kadmission.NewForbidden(a, errors.New("not yet ready to handle request"))
	}
	req, err := requestOf(a, o)
	if err != nil {
		return err
	}
	rc := a.GetReinvocationContext()
	r, _ := rc.Value(reinvocationKey).(*admission.Reinvocation)
	if r == nil {
		r = &admission.Reinvocation{}
		rc.SetValue(reinvocationKey, r)
	}
	if rc.IsReinvoke() {
		r.SetIsReinvoke()
	}
	res, err := chain.Mutate(ctx, req, r)
	publish(ctx, a, res)
	if err != nil {
		return err
	}
	if r.ShouldReinvoke() && !rc.IsReinvoke() {
		rc.SetShouldReinvoke()
	}
	if res.Changed {
		return writeBack(res.Object, a, o)
	}
	return nil
}

// Validate runs the chain's validating policies on the admitted object.
func (p *AdmissionPlugin) Validate(ctx context.Context, a kadmission.Attributes, o kadmission.ObjectInterfaces) error {
	chain := p.chain.Load()
	if chain == nil {
		return kadmission.NewForbidden(a, errors.New("not yet ready to handle request"))
	}
	req, err := requestOf(a, o)
	if err != nil {
		return err
	}
	res, err := chain.Validate(ctx, req)
	publish(ctx, a, res)
	return err
}

// publish hands the chain's warnings and audit annotations to the request.
func publish(ctx context.Context, a kadmission.Attributes, res admission.Result) {
	for _, w := range res.Warnings {
		warning.AddWarning(ctx, "", w)
	}
	for k, v := range res.AuditAnnotations {
		_ = a.AddAnnotation(k, v) // an invalid or taken key is dropped, as kube-apiserver's plugins drop it
	}
}

// requestOf is the request as the chain takes it: the objects in the
// version of the request's kind, unstructured.
func requestOf(a kadmission.Attributes, o kadmission.ObjectInterfaces) (*admission.Request, error) {
	kind := a.GetKind()
	req := &admission.Request{
		Operation: admissionv1.Operation(a.GetOperation()), Kind: kind, Resource: a.GetResource(), SubResource: a.GetSubresource(),
		Name: a.GetName(), Namespace: a.GetNamespace(), DryRun: a.IsDryRun(), Options: a.GetOperationOptions(),
		// The objects are typed, or custom resources: their unstructured
		// form is already the one kube-apiserver's policies see.
		Normalized: true,
		// The request reached admission authorized: k8s.io/apiserver up to
		// 1.37 authorizes without conditions.
		Authorization: admission.Allowed(),
	}
	if u := a.GetUserInfo(); u != nil {
		req.UserInfo = authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
		if extra := u.GetExtra(); len(extra) > 0 {
			req.UserInfo.Extra = make(map[string]authenticationv1.ExtraValue, len(extra))
			for k, v := range extra {
				req.UserInfo.Extra[k] = v
			}
		}
	}
	var err error
	if req.Object, err = versioned(a.GetObject(), kind, o); err != nil {
		return nil, kadmission.NewForbidden(a, fmt.Errorf("failed to convert object version: %w", err))
	}
	if req.OldObject, err = versioned(a.GetOldObject(), kind, o); err != nil {
		return nil, kadmission.NewForbidden(a, fmt.Errorf("failed to convert object version: %w", err))
	}
	return req, nil
}

// versioned is obj converted to kind's version, unstructured; nil for nil.
func versioned(obj runtime.Object, kind schema.GroupVersionKind, o kadmission.ObjectInterfaces) (*unstructured.Unstructured, error) {
	if obj == nil {
		return nil, nil
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	out, err := kadmission.ConvertToGVK(obj, kind, o)
	if err != nil {
		return nil, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(kind)
	return u, nil
}

// writeBack writes the mutated object into the request's object, in the
// server's version of it, as kube-apiserver's plugins do.
func writeBack(mutated *unstructured.Unstructured, a kadmission.Attributes, o kadmission.ObjectInterfaces) error {
	target := a.GetObject()
	if u, ok := target.(*unstructured.Unstructured); ok {
		u.Object = mutated.Object
		return nil
	}
	typed, err := o.GetObjectCreater().New(a.GetKind())
	if err != nil {
		return err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(mutated.Object, typed); err != nil {
		return err
	}
	return o.GetObjectConvertor().Convert(typed, target, nil)
}
