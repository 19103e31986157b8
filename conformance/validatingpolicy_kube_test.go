package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/kubeeval"
)

// kubeVAP drives kube-apiserver's own ValidatingAdmissionPolicy dispatcher
// (validating.NewDispatcher) in-process, with a fake clientset for
// namespaces and ConfigMap params, and hooks in the order given.
type kubeVAP struct {
	dispatcher generic.Dispatcher[validating.PolicyHook]
	hooks      []validating.PolicyHook
	o          admission.ObjectInterfaces
	static     bool
}

// compileKubeVAP builds a policy's validator from kube-apiserver's exported
// pieces exactly as validating's unexported compilePolicy assembles them:
// one composited compiler on the default compatibility version's base
// environment, variables, then match conditions, validations, audit
// annotations with the authorizer declared, messageExpressions without.
func compileKubeVAP(p *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	hasParams := p.Spec.ParamKind != nil
	opts := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	msgOpts := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: false}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, p.Spec.FailurePolicy, err)
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
	return validating.NewValidator(
		compiler.CompileCondition(validations, opts, environment.StoredExpressions),
		matcher,
		compiler.CompileCondition(annotations, opts, environment.StoredExpressions),
		compiler.CompileCondition(messages, msgOpts, environment.StoredExpressions),
		p.Spec.FailurePolicy,
		nil,
	)
}

// newKubeVAP prepares kube-apiserver's dispatcher over a world: namespaces
// and ConfigMaps (the only paramKind served), policies in order, bindings
// in order.
func newKubeVAP(t testing.TB, policies []*admissionregistrationv1.ValidatingAdmissionPolicy, bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding, static bool, objects ...runtime.Object) *kubeVAP {
	t.Helper()
	client := fake.NewSimpleClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	nsInformer := factory.Core().V1().Namespaces()
	cmInformer, err := factory.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps"))
	if err != nil {
		t.Fatal(err)
	}
	nsSynced, cmSynced := nsInformer.Informer().HasSynced, cmInformer.Informer().HasSynced
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory.Start(ctx.Done())
	syncCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if !cache.WaitForCacheSync(syncCtx.Done(), nsSynced, cmSynced) {
		t.Fatal("informers did not sync")
	}
	matcher := matching.NewMatcher(nsInformer.Lister(), client)
	k := &kubeVAP{
		dispatcher: validating.NewDispatcher(kubeAllowAll{}, generic.NewPolicyMatcher(matcher)),
		o:          vapObjectInterfaces{admission.NewObjectInterfacesFromScheme(scheme.Scheme)},
		static:     static,
	}
	for _, p := range policies {
		if pk := p.Spec.ParamKind; pk != nil {
			if _, err := schema.ParseGroupVersion(pk.APIVersion); err != nil {
				continue // the policy source leaves it out
			}
		}
		hook := validating.PolicyHook{Policy: p, Evaluator: compileKubeVAP(p)}
		for _, b := range bindings {
			if b.Spec.PolicyName == p.Name {
				hook.Bindings = append(hook.Bindings, b)
			}
		}
		if len(hook.Bindings) == 0 {
			continue
		}
		if pk := p.Spec.ParamKind; pk != nil {
			if pk.APIVersion == "v1" && pk.Kind == "ConfigMap" {
				hook.ParamInformer, hook.ParamScope = cmInformer, meta.RESTScopeNamespace
			} else {
				gv, _ := schema.ParseGroupVersion(pk.APIVersion)
				hook.ConfigurationError = kubeParamKindError(gv.WithKind(pk.Kind))
			}
		}
		k.hooks = append(k.hooks, hook)
	}
	return k
}

// kubeVAPOutcome is what kube-apiserver's plugin did with a request.
type kubeVAPOutcome struct {
	err         error
	warnings    []string
	annotations map[string]string
}

// validate runs the plugin over attributes: the exclusions of the generic
// plugin (reviews; admission policies and bindings for API policies), then
// the dispatcher.
func (k *kubeVAP) validate(a admission.Attributes) kubeVAPOutcome {
	switch a.GetResource().GroupResource() {
	case schema.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"},
		schema.GroupResource{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
		schema.GroupResource{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
		schema.GroupResource{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
		schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
		schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:
		return kubeVAPOutcome{}
	case schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}:
		if !k.static {
			return kubeVAPOutcome{}
		}
	}
	aa := &kubeeval.AnnotatedAttributes{Attributes: a}
	warnings := &kubeeval.WarningList{}
	ctx := warning.WithWarningRecorder(context.Background(), warnings)
	err := k.dispatcher.Dispatch(ctx, aa, k.o, k.hooks)
	if err != nil {
		if _, ok := err.(*apierrors.StatusError); !ok {
			err = apierrors.NewInternalError(err)
		}
	}
	return kubeVAPOutcome{err: err, warnings: warnings.List, annotations: aa.Annotations}
}

// The custom resource Widget is served in example.com/v1 and v2, which are
// equivalent: v2 names v1's spec.replicas spec.size.
var (
	widgetV1 = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	widgetV2 = schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"}
	// vapEquivalents knows the widgets' versions and the scheme's own
	// equivalences are not needed by the corpus.
	vapEquivalents = func() runtime.EquivalentResourceMapper {
		r := runtime.NewEquivalentResourceRegistry()
		r.RegisterKindFor(widgetV1.GroupVersion().WithResource("widgets"), "", widgetV1)
		r.RegisterKindFor(widgetV2.GroupVersion().WithResource("widgets"), "", widgetV2)
		return r
	}()
)

// convertWidget converts a Widget to another version, as its CRD's
// conversion webhook would.
func convertWidget(in *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	if in.GroupVersionKind().GroupKind() != to.GroupKind() {
		return nil, fmt.Errorf("cannot convert %v to %v", in.GroupVersionKind(), to)
	}
	out := in.DeepCopy()
	out.SetGroupVersionKind(to)
	from, into := "replicas", "size"
	if to.Version == "v1" {
		from, into = into, from
	}
	if v, ok, _ := unstructured.NestedFieldCopy(out.Object, "spec", from); ok {
		unstructured.RemoveNestedField(out.Object, "spec", from)
		if err := unstructured.SetNestedField(out.Object, v, "spec", into); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// vapObjectInterfaces are the scheme's, with the widgets' creation,
// conversion and equivalence.
type vapObjectInterfaces struct{ admission.ObjectInterfaces }

func (o vapObjectInterfaces) GetObjectCreater() runtime.ObjectCreater {
	return widgetCreater{o.ObjectInterfaces.GetObjectCreater()}
}
func (o vapObjectInterfaces) GetObjectConvertor() runtime.ObjectConvertor {
	return widgetConvertor{o.ObjectInterfaces.GetObjectConvertor()}
}
func (o vapObjectInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return vapEquivalents
}

type widgetCreater struct{ runtime.ObjectCreater }

func (c widgetCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if gvk.Group == "example.com" {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	return c.ObjectCreater.New(gvk)
}

type widgetConvertor struct{ runtime.ObjectConvertor }

func (c widgetConvertor) Convert(in, out, ctx any) error {
	u, ok := in.(*unstructured.Unstructured)
	o, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 || u.GroupVersionKind().Group != "example.com" {
		return c.ObjectConvertor.Convert(in, out, ctx)
	}
	conv, err := convertWidget(u, o.GroupVersionKind())
	if err != nil {
		return err
	}
	o.Object = conv.Object
	return nil
}
