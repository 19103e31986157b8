package conformance

import (
	"context"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
)

// kubeMAP drives kube-apiserver's own mutating policy dispatcher
// (mutating.NewDispatcher over the generic policy dispatcher) in-process,
// with client-go's static type converter (the embedded schema the
// gatehouse built-in schemas come from), a fake clientset for namespaces
// and ConfigMap params, and hooks in the order given.
type kubeMAP struct {
	dispatcher generic.Dispatcher[mutating.PolicyHook]
	hooks      []mutating.PolicyHook
	o          admission.ObjectInterfaces
}

// compileKubePolicy builds a policy's evaluator from kube-apiserver's
// exported compilation pieces exactly as mutating's unexported compilePolicy
// assembles them (composited compiler on the default compatibility
// version's base environment, StoredExpressions, variables then match
// conditions then mutations, HasPatchTypes for mutations only, an unknown
// patchType or nil body not compiled).
func compileKubePolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator {
	opts := plugincel.OptionalVariableDeclarations{HasParams: p.Spec.ParamKind != nil, HasAuthorizer: true}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		panic(err)
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
	var patchers []patch.Patcher
	popts := opts
	popts.HasPatchTypes = true
	for _, m := range p.Spec.Mutations {
		switch m.PatchType {
		case admissionregistrationv1.PatchTypeJSONPatch:
			if m.JSONPatch != nil {
				patchers = append(patchers, patch.NewJSONPatcher(compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, popts, environment.StoredExpressions)))
			}
		case admissionregistrationv1.PatchTypeApplyConfiguration:
			if m.ApplyConfiguration != nil {
				patchers = append(patchers, patch.NewApplyConfigurationPatcher(compiler.CompileMutatingEvaluator(&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, popts, environment.StoredExpressions)))
			}
		}
	}
	return mutating.PolicyEvaluator{Matcher: matcher, Mutators: patchers, CompositedCompiler: compiler}
}

type kubeAllowAll struct{}

func (kubeAllowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

// newKubeMAP prepares kube-apiserver's dispatcher over a world: namespaces
// and ConfigMaps (the only paramKind the corpus uses: namespaced), policies
// in order, bindings in order.
func newKubeMAP(t testing.TB, policies []*admissionregistrationv1.MutatingAdmissionPolicy, bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding, objects ...runtime.Object) *kubeMAP {
	t.Helper()
	client := fake.NewSimpleClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	nsInformer := factory.Core().V1().Namespaces()
	cmInformer, err := factory.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps"))
	if err != nil {
		t.Fatal(err)
	}
	nsSynced, cmSynced := nsInformer.Informer().HasSynced, cmInformer.Informer().HasSynced // registered before Start
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory.Start(ctx.Done())
	syncCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if !cache.WaitForCacheSync(syncCtx.Done(), nsSynced, cmSynced) {
		t.Fatal("informers did not sync")
	}
	matcher := matching.NewMatcher(nsInformer.Lister(), client)
	tcm := patch.NewTypeConverterManager(applyconfigurations.NewTypeConverter(scheme.Scheme), nil)
	k := &kubeMAP{
		dispatcher: mutating.NewDispatcher(kubeAllowAll{}, matcher, tcm),
		o:          admission.NewObjectInterfacesFromScheme(scheme.Scheme),
	}
	for _, p := range policies {
		hook := mutating.PolicyHook{Policy: p, Evaluator: compileKubePolicy(p)}
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

// kubeParamKindError is the policy source's error for a paramKind its REST
// mapper does not know.
func kubeParamKindError(gvk schema.GroupVersionKind) error {
	return &paramKindError{gvk}
}

type paramKindError struct{ gvk schema.GroupVersionKind }

func (e *paramKindError) Error() string {
	return "failed to find resource referenced by paramKind: '" + e.gvk.String() + "'"
}

// admit runs one pass of the plugin over attributes: the handler's
// operations (CREATE, UPDATE, CONNECT) and the policy exemptions as the
// generic plugin applies them, then the dispatcher.
func (k *kubeMAP) admit(ctx context.Context, a admission.Attributes) error {
	switch a.GetOperation() {
	case admission.Create, admission.Update, admission.Connect:
	default:
		return nil
	}
	switch a.GetResource().GroupResource() {
	case schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"},
		schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}:
		return nil
	}
	err := k.dispatcher.Dispatch(ctx, a, k.o, k.hooks)
	if err != nil {
		if _, ok := err.(*apierrors.StatusError); !ok {
			return apierrors.NewInternalError(err)
		}
	}
	return err
}
