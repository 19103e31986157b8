package kubeeval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// vap answers OpVAP (protocol.VAPQuery).
func vap(q *protocol.VAPQuery) (*protocol.VAPAnswer, error) {
	if q == nil {
		return nil, errors.New("op vap needs vap")
	}
	var policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	for i, raw := range q.Policies {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := json.Unmarshal(raw, p); err != nil {
			return nil, fmt.Errorf("policies[%d]: %w", i, err)
		}
		policies = append(policies, p)
	}
	var bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	for i, raw := range q.Bindings {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		if err := json.Unmarshal(raw, b); err != nil {
			return nil, fmt.Errorf("bindings[%d]: %w", i, err)
		}
		bindings = append(bindings, b)
	}
	nsIndexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i, raw := range q.Namespaces {
		ns := &corev1.Namespace{}
		if err := json.Unmarshal(raw, ns); err != nil {
			return nil, fmt.Errorf("namespaces[%d]: %w", i, err)
		}
		if err := nsIndexer.Add(ns); err != nil {
			return nil, err
		}
	}
	nsLister := corev1listers.NewNamespaceLister(nsIndexer)

	// One informer per param kind the REST mapper knows.
	type paramSource struct {
		informer informers.GenericInformer
		scope    meta.RESTScope
	}
	paramSources := map[schema.GroupVersionKind]paramSource{}
	for _, pk := range q.ParamKinds {
		gv, err := schema.ParseGroupVersion(pk.APIVersion)
		if err != nil {
			return nil, fmt.Errorf("paramKinds: %w", err)
		}
		scope := meta.RESTScopeRoot
		if pk.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		paramSources[gv.WithKind(pk.Kind)] = paramSource{informer: &syncedInformer{indexer: indexer, resource: gv.WithResource(strings.ToLower(pk.Kind) + "s").GroupResource()}, scope: scope}
	}
	for i, raw := range q.Params {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("params[%d]: %w", i, err)
		}
		src, ok := paramSources[u.GroupVersionKind()]
		if !ok {
			return nil, fmt.Errorf("params[%d]: kind %v is not among paramKinds", i, u.GroupVersionKind())
		}
		obj, err := informerRepresentation(u)
		if err != nil {
			return nil, fmt.Errorf("params[%d]: %w", i, err)
		}
		if err := src.informer.Informer().GetIndexer().Add(obj); err != nil {
			return nil, err
		}
	}

	crs, err := newCustomResources(q.CustomResources)
	if err != nil {
		return nil, err
	}
	o := vapObjectInterfaces{admission.NewObjectInterfacesFromScheme(scheme.Scheme), crs}
	client := namespaceClient{lister: nsLister}
	matcher := matching.NewMatcher(nsLister, client)
	dispatcher := validating.NewDispatcher(allowAll{}, generic.NewPolicyMatcher(matcher))

	var hooks []validating.PolicyHook
	for _, p := range policies {
		var pkGVK schema.GroupVersionKind
		if pk := p.Spec.ParamKind; pk != nil {
			gv, err := schema.ParseGroupVersion(pk.APIVersion)
			if err != nil {
				continue // the policy source leaves it out
			}
			pkGVK = gv.WithKind(pk.Kind)
		}
		hook := validating.PolicyHook{Policy: p, Evaluator: compileVAP(p)}
		for _, b := range bindings {
			if b.Spec.PolicyName == p.Name {
				hook.Bindings = append(hook.Bindings, b)
			}
		}
		if len(hook.Bindings) == 0 {
			continue
		}
		if p.Spec.ParamKind != nil {
			if src, ok := paramSources[pkGVK]; ok {
				hook.ParamInformer, hook.ParamScope = src.informer, src.scope
			} else {
				hook.ConfigurationError = fmt.Errorf("failed to find resource referenced by paramKind: '%v'", pkGVK)
			}
		}
		hooks = append(hooks, hook)
	}

	attrs, err := vapAttributes(&q.Request, crs)
	if err != nil {
		return nil, err
	}
	a := &protocol.VAPAnswer{}
	if excludedFromPolicies(attrs.GetResource().GroupResource(), q.Static) {
		return a, nil
	}
	aa := &AnnotatedAttributes{Attributes: attrs}
	warnings := &WarningList{}
	ctx := warning.WithWarningRecorder(context.Background(), warnings)
	derr := dispatcher.Dispatch(ctx, aa, o, hooks)
	if derr != nil {
		var se *apierrors.StatusError
		if errors.As(derr, &se) {
			b, err := json.Marshal(se.ErrStatus)
			if err != nil {
				return nil, err
			}
			a.Status = b
		} else {
			a.Error = derr.Error()
		}
	}
	a.Warnings = warnings.List
	a.AuditAnnotations = aa.Annotations
	return a, nil
}

// compileVAP builds a policy's validator from kube-apiserver's exported
// pieces as validating's unexported compilePolicy assembles them: one
// composited compiler on the default compatibility version's base
// environment, variables, then match conditions, validations, audit
// annotations with the authorizer declared, messageExpressions without.
func compileVAP(p *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	hasParams := p.Spec.ParamKind != nil
	opts := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	msgOpts := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: false}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return newValidator(nil, nil, nil, nil, p.Spec.FailurePolicy, err)
	}
	var vars []plugincel.NamedExpressionAccessor
	for _, v := range p.Spec.Variables {
		vars = append(vars, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	compiler.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if len(p.Spec.MatchConditions) > 0 {
		accessors := make([]plugincel.ExpressionAccessor, len(p.Spec.MatchConditions))
		for i := range p.Spec.MatchConditions {
			accessors[i] = (*matchconditions.MatchCondition)(&p.Spec.MatchConditions[i])
		}
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(accessors, opts, environment.StoredExpressions), p.Spec.FailurePolicy, "policy", "validate", p.Name)
	}
	validations := make([]plugincel.ExpressionAccessor, len(p.Spec.Validations))
	messages := make([]plugincel.ExpressionAccessor, len(p.Spec.Validations))
	for i, v := range p.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	annotations := make([]plugincel.ExpressionAccessor, len(p.Spec.AuditAnnotations))
	for i, a := range p.Spec.AuditAnnotations {
		annotations[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return newValidator(
		compiler.CompileCondition(validations, opts, environment.StoredExpressions),
		matcher,
		compiler.CompileCondition(annotations, opts, environment.StoredExpressions),
		compiler.CompileCondition(messages, msgOpts, environment.StoredExpressions),
		p.Spec.FailurePolicy,
		nil,
	)
}

// excludedFromPolicies is the generic plugin's exclusion: the review
// resources always, the admission policies and bindings for policies from
// the API.
func excludedFromPolicies(gr schema.GroupResource, static bool) bool {
	switch gr {
	case schema.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"},
		schema.GroupResource{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
		schema.GroupResource{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
		schema.GroupResource{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
		schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
		schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:
		return true
	case schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}:
		return !static
	}
	return false
}

// vapAttributes is the request's attributes record.
func vapAttributes(r *protocol.VAPRequest, crs *customResources) (admission.Attributes, error) {
	obj, err := decodeObject(r.Object)
	if err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	old, err := decodeObject(r.OldObject)
	if err != nil {
		return nil, fmt.Errorf("oldObject: %w", err)
	}
	opts, err := decodeObject(r.Options)
	if err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	u := &user.DefaultInfo{Name: r.UserInfo.Username, UID: r.UserInfo.UID, Groups: r.UserInfo.Groups, Extra: r.UserInfo.Extra}
	gvk := schema.GroupVersionKind{Group: r.Kind.Group, Version: r.Kind.Version, Kind: r.Kind.Kind}
	gvr := schema.GroupVersionResource{Group: r.Resource.Group, Version: r.Resource.Version, Resource: r.Resource.Resource}
	return admission.NewAttributesRecord(obj, old, gvk, r.Namespace, r.Name, gvr, r.SubResource, admission.Operation(r.Operation), opts, r.DryRun, u), nil
}

// decodeObject decodes an object into its Go type when client-go's scheme
// knows its kind, unstructured otherwise; null or empty is none.
func decodeObject(raw json.RawMessage) (runtime.Object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	typed, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return u, nil
	}
	if err := json.Unmarshal(raw, typed); err != nil {
		return nil, err
	}
	return typed, nil
}

// informerRepresentation is a param as its informer holds it: typed and
// without apiVersion and kind when client-go's scheme knows its kind
// (generic.convertParamToInformerRepresentation), unstructured otherwise.
func informerRepresentation(u *unstructured.Unstructured) (runtime.Object, error) {
	typed, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return u, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), typed); err != nil {
		return nil, err
	}
	typed.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return typed, nil
}

// syncedInformer is an informer that has synced its indexer's objects.
type syncedInformer struct {
	indexer  cache.Indexer
	resource schema.GroupResource
}

func (s *syncedInformer) Informer() cache.SharedIndexInformer {
	return syncedIndexInformer{indexer: s.indexer}
}
func (s *syncedInformer) Lister() cache.GenericLister {
	return cache.NewGenericLister(s.indexer, s.resource)
}

// syncedIndexInformer is a synced informer over an indexer; the
// dispatcher asks it HasSynced only (the rest of the interface is nil).
type syncedIndexInformer struct {
	cache.SharedIndexInformer
	indexer cache.Indexer
}

func (i syncedIndexInformer) HasSynced() bool           { return true }
func (i syncedIndexInformer) GetIndexer() cache.Indexer { return i.indexer }
func (i syncedIndexInformer) GetStore() cache.Store     { return i.indexer }

// namespaceClient is the clientset's namespace GET behind the lister (the
// matcher asks it when the lister does not have a namespace): it knows the
// lister's namespaces only.
type namespaceClient struct {
	kubernetes.Interface
	lister corev1listers.NamespaceLister
}

func (c namespaceClient) CoreV1() corev1client.CoreV1Interface { return coreV1{lister: c.lister} }

type coreV1 struct {
	corev1client.CoreV1Interface
	lister corev1listers.NamespaceLister
}

func (c coreV1) Namespaces() corev1client.NamespaceInterface { return namespaces{lister: c.lister} }

type namespaces struct {
	corev1client.NamespaceInterface
	lister corev1listers.NamespaceLister
}

func (n namespaces) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	ns, err := n.lister.Get(name)
	if apierrors.IsNotFound(err) {
		// The API server's NotFound names the resource (the lister's, the
		// singular).
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	}
	return ns, err
}

// allowAll is an authorizer that allows everything.
type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

// customResources knows the custom resources' equivalent versions and
// converts between them.
type customResources struct {
	byGroupKind map[schema.GroupKind]*protocol.VAPCustomResource
	equivalents runtime.EquivalentResourceRegistry
}

func newCustomResources(list []protocol.VAPCustomResource) (*customResources, error) {
	c := &customResources{byGroupKind: map[schema.GroupKind]*protocol.VAPCustomResource{}, equivalents: runtime.NewEquivalentResourceRegistry()}
	for i := range list {
		cr := &list[i]
		if len(cr.Versions) == 0 {
			return nil, fmt.Errorf("customResources[%d]: no versions", i)
		}
		c.byGroupKind[schema.GroupKind{Group: cr.Group, Kind: cr.Kind}] = cr
		for _, v := range cr.Versions {
			c.equivalents.RegisterKindFor(schema.GroupVersionResource{Group: cr.Group, Version: v, Resource: cr.Resource}, "", schema.GroupVersionKind{Group: cr.Group, Version: v, Kind: cr.Kind})
		}
	}
	return c, nil
}

// convert converts in to the version of to: back to the first version's
// field names, then to to's.
func (c *customResources) convert(in *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	from := in.GroupVersionKind()
	cr, ok := c.byGroupKind[from.GroupKind()]
	if !ok || from.GroupKind() != to.GroupKind() {
		return nil, fmt.Errorf("cannot convert %v to %v", from, to)
	}
	out := in.DeepCopy()
	for path, name := range cr.Renames[from.Version] {
		if err := renameField(out.Object, path, name, true); err != nil {
			return nil, err
		}
	}
	for path, name := range cr.Renames[to.Version] {
		if err := renameField(out.Object, path, name, false); err != nil {
			return nil, err
		}
	}
	out.SetGroupVersionKind(to)
	return out, nil
}

// renameField renames the field at the dotted path (the first version's)
// to newPath's last segment, or back when back is set.
func renameField(obj map[string]any, path, newPath string, back bool) error {
	src, dst := strings.Split(path, "."), strings.Split(newPath, ".")
	if back {
		src, dst = dst, src
	}
	if len(src) != len(dst) || strings.Join(src[:len(src)-1], ".") != strings.Join(dst[:len(dst)-1], ".") {
		return fmt.Errorf("rename %q to %q: only the last segment may differ", path, newPath)
	}
	v, ok, _ := unstructured.NestedFieldCopy(obj, src...)
	if !ok {
		return nil
	}
	unstructured.RemoveNestedField(obj, src...)
	return unstructured.SetNestedField(obj, v, dst...)
}

// vapObjectInterfaces are the scheme's, with the custom resources'
// creation, conversion and equivalence.
type vapObjectInterfaces struct {
	admission.ObjectInterfaces
	crs *customResources
}

func (o vapObjectInterfaces) GetObjectCreater() runtime.ObjectCreater {
	return crCreater{o.ObjectInterfaces.GetObjectCreater(), o.crs}
}
func (o vapObjectInterfaces) GetObjectConvertor() runtime.ObjectConvertor {
	return crConvertor{o.ObjectInterfaces.GetObjectConvertor(), o.crs}
}
func (o vapObjectInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.crs.equivalents
}

type crCreater struct {
	runtime.ObjectCreater
	crs *customResources
}

func (c crCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if _, ok := c.crs.byGroupKind[gvk.GroupKind()]; ok {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	return c.ObjectCreater.New(gvk)
}

type crConvertor struct {
	runtime.ObjectConvertor
	crs *customResources
}

func (c crConvertor) Convert(in, out, ctx any) error {
	u, ok := in.(*unstructured.Unstructured)
	o, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return c.ObjectConvertor.Convert(in, out, ctx)
	}
	if _, known := c.crs.byGroupKind[u.GroupVersionKind().GroupKind()]; !known {
		return c.ObjectConvertor.Convert(in, out, ctx)
	}
	conv, err := c.crs.convert(u, o.GroupVersionKind())
	if err != nil {
		return err
	}
	o.Object = conv.Object
	return nil
}
