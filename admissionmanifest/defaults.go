package admissionmanifest

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gatehouse-dev/gatehouse/internal/admissionvalidation"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// The v1 defaults of kube-apiserver (kubernetes/kubernetes
// pkg/apis/admissionregistration/v1/defaults.go and the defaulters generated
// from it), which kube-apiserver applies when it decodes an object, before
// it validates it. k8s.io/api has no defaulters; these are them. A field that
// is set is never changed.

// SetDefaultsValidatingWebhookConfiguration sets the v1 defaults of every
// webhook: failurePolicy Fail, matchPolicy Equivalent, empty namespace and
// object selectors, timeoutSeconds 10, the port 443 of a service reference,
// and the scope "*" of every rule. sideEffects and admissionReviewVersions
// have no default.
func SetDefaultsValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		defaultWebhook(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds)
		defaultClientConfig(&h.ClientConfig)
		defaultRulesWithOperations(h.Rules)
	}
}

// SetDefaultsMutatingWebhookConfiguration sets the defaults of
// SetDefaultsValidatingWebhookConfiguration, and reinvocationPolicy Never.
func SetDefaultsMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		defaultWebhook(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds)
		if h.ReinvocationPolicy == nil {
			h.ReinvocationPolicy = ptrTo(admissionregistrationv1.NeverReinvocationPolicy)
		}
		defaultClientConfig(&h.ClientConfig)
		defaultRulesWithOperations(h.Rules)
	}
}

// SetDefaultsValidatingAdmissionPolicy sets failurePolicy Fail and, if
// matchConstraints is set, its defaults (see
// SetDefaultsValidatingAdmissionPolicyBinding).
func SetDefaultsValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptrTo(admissionregistrationv1.Fail)
	}
	admissionvalidation.DefaultMatchResources(p.Spec.MatchConstraints)
}

// SetDefaultsValidatingAdmissionPolicyBinding sets, if matchResources is set,
// matchPolicy Equivalent, empty namespace and object selectors, and the
// scope "*" of every resource rule and exclude rule. Nothing else has a
// default: not validationActions, not paramRef.parameterNotFoundAction.
func SetDefaultsValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	admissionvalidation.DefaultMatchResources(b.Spec.MatchResources)
}

// SetDefaultsMutatingAdmissionPolicy sets failurePolicy Fail and, if
// matchConstraints is set, its defaults (see
// SetDefaultsValidatingAdmissionPolicyBinding): mutation.SetDefaultsPolicy.
func SetDefaultsMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	mutation.SetDefaultsPolicy(p)
}

// SetDefaultsMutatingAdmissionPolicyBinding sets the defaults of
// SetDefaultsValidatingAdmissionPolicyBinding: mutation.SetDefaultsBinding.
func SetDefaultsMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	mutation.SetDefaultsBinding(b)
}

// SetDefaults sets the v1 defaults of an admissionregistration.k8s.io/v1
// object, or of each item of one of their lists, as kube-apiserver's scheme
// does. It reports whether it knows obj's type; other objects are left
// alone.
func SetDefaults(obj runtime.Object) bool {
	switch o := obj.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		SetDefaultsValidatingWebhookConfiguration(o)
	case *admissionregistrationv1.ValidatingWebhookConfigurationList:
		for i := range o.Items {
			SetDefaultsValidatingWebhookConfiguration(&o.Items[i])
		}
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		SetDefaultsMutatingWebhookConfiguration(o)
	case *admissionregistrationv1.MutatingWebhookConfigurationList:
		for i := range o.Items {
			SetDefaultsMutatingWebhookConfiguration(&o.Items[i])
		}
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		SetDefaultsValidatingAdmissionPolicy(o)
	case *admissionregistrationv1.ValidatingAdmissionPolicyList:
		for i := range o.Items {
			SetDefaultsValidatingAdmissionPolicy(&o.Items[i])
		}
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		SetDefaultsValidatingAdmissionPolicyBinding(o)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBindingList:
		for i := range o.Items {
			SetDefaultsValidatingAdmissionPolicyBinding(&o.Items[i])
		}
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		SetDefaultsMutatingAdmissionPolicy(o)
	case *admissionregistrationv1.MutatingAdmissionPolicyList:
		for i := range o.Items {
			SetDefaultsMutatingAdmissionPolicy(&o.Items[i])
		}
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		SetDefaultsMutatingAdmissionPolicyBinding(o)
	case *admissionregistrationv1.MutatingAdmissionPolicyBindingList:
		for i := range o.Items {
			SetDefaultsMutatingAdmissionPolicyBinding(&o.Items[i])
		}
	default:
		return false
	}
	return true
}

func defaultWebhook(failurePolicy **admissionregistrationv1.FailurePolicyType, matchPolicy **admissionregistrationv1.MatchPolicyType, namespaceSelector, objectSelector **metav1.LabelSelector, timeoutSeconds **int32) {
	if *failurePolicy == nil {
		*failurePolicy = ptrTo(admissionregistrationv1.Fail)
	}
	if *matchPolicy == nil {
		*matchPolicy = ptrTo(admissionregistrationv1.Equivalent)
	}
	if *namespaceSelector == nil {
		*namespaceSelector = &metav1.LabelSelector{}
	}
	if *objectSelector == nil {
		*objectSelector = &metav1.LabelSelector{}
	}
	if *timeoutSeconds == nil {
		*timeoutSeconds = ptrTo[int32](10)
	}
}

func defaultClientConfig(cc *admissionregistrationv1.WebhookClientConfig) {
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = ptrTo[int32](443)
	}
}

func defaultRulesWithOperations(rules []admissionregistrationv1.RuleWithOperations) {
	for i := range rules {
		admissionvalidation.DefaultRule(&rules[i].Rule)
	}
}

func ptrTo[T any](v T) *T { return &v }
