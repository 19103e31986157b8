package admissionmanifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSetDefaultsWebhooks(t *testing.T) {
	rule := admissionregistrationv1.RuleWithOperations{Rule: admissionregistrationv1.Rule{Resources: []string{"pods"}}}
	service := &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc"}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name:         "a",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: service},
		Rules:        []admissionregistrationv1.RuleWithOperations{rule},
	}}}
	SetDefaultsValidatingWebhookConfiguration(v)
	h := v.Webhooks[0]
	assert.Equal(t, admissionregistrationv1.Fail, *h.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.Equivalent, *h.MatchPolicy)
	assert.Equal(t, &metav1.LabelSelector{}, h.NamespaceSelector)
	assert.Equal(t, &metav1.LabelSelector{}, h.ObjectSelector)
	assert.Equal(t, int32(10), *h.TimeoutSeconds)
	assert.Equal(t, int32(443), *h.ClientConfig.Service.Port)
	assert.Equal(t, admissionregistrationv1.AllScopes, *h.Rules[0].Scope)
	assert.Nil(t, h.SideEffects, "sideEffects has no default")
	assert.Nil(t, h.AdmissionReviewVersions, "admissionReviewVersions has no default")

	m := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a"}, {
		Name:               "b",
		FailurePolicy:      ptrTo(admissionregistrationv1.Ignore),
		MatchPolicy:        ptrTo(admissionregistrationv1.Exact),
		TimeoutSeconds:     ptrTo[int32](0),
		ReinvocationPolicy: ptrTo(admissionregistrationv1.IfNeededReinvocationPolicy),
		NamespaceSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
		ClientConfig:       admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Port: ptrTo[int32](8443)}},
		Rules:              []admissionregistrationv1.RuleWithOperations{{Rule: admissionregistrationv1.Rule{Scope: ptrTo(admissionregistrationv1.ClusterScope)}}},
	}}}
	SetDefaults(m)
	assert.Equal(t, admissionregistrationv1.NeverReinvocationPolicy, *m.Webhooks[0].ReinvocationPolicy)
	assert.Nil(t, m.Webhooks[0].ClientConfig.Service, "no service is made up")
	b := m.Webhooks[1]
	assert.Equal(t, admissionregistrationv1.Ignore, *b.FailurePolicy, "set fields are kept")
	assert.Equal(t, admissionregistrationv1.Exact, *b.MatchPolicy)
	assert.Equal(t, int32(0), *b.TimeoutSeconds)
	assert.Equal(t, admissionregistrationv1.IfNeededReinvocationPolicy, *b.ReinvocationPolicy)
	assert.Equal(t, map[string]string{"a": "b"}, b.NamespaceSelector.MatchLabels)
	assert.Equal(t, int32(8443), *b.ClientConfig.Service.Port)
	assert.Equal(t, admissionregistrationv1.ClusterScope, *b.Rules[0].Scope)
}

func TestSetDefaultsPolicies(t *testing.T) {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	SetDefaults(p)
	assert.Equal(t, admissionregistrationv1.Fail, *p.Spec.FailurePolicy)
	assert.Nil(t, p.Spec.MatchConstraints, "no matchConstraints is made up")

	p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{
		ResourceRules:        []admissionregistrationv1.NamedRuleWithOperations{{}},
		ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{}},
	}
	SetDefaults(p)
	mc := p.Spec.MatchConstraints
	assert.Equal(t, admissionregistrationv1.Equivalent, *mc.MatchPolicy)
	assert.Equal(t, &metav1.LabelSelector{}, mc.NamespaceSelector)
	assert.Equal(t, &metav1.LabelSelector{}, mc.ObjectSelector)
	assert.Equal(t, admissionregistrationv1.AllScopes, *mc.ResourceRules[0].Scope)
	assert.Equal(t, admissionregistrationv1.AllScopes, *mc.ExcludeResourceRules[0].Scope)

	b := &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{Items: []admissionregistrationv1.ValidatingAdmissionPolicyBinding{{
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			MatchResources: &admissionregistrationv1.MatchResources{},
			ParamRef:       &admissionregistrationv1.ParamRef{Name: "p"},
		},
	}}}
	assert.True(t, SetDefaults(b))
	spec := b.Items[0].Spec
	assert.Equal(t, admissionregistrationv1.Equivalent, *spec.MatchResources.MatchPolicy)
	assert.Nil(t, spec.ParamRef.ParameterNotFoundAction, "parameterNotFoundAction has no v1 default")
	assert.Nil(t, spec.ValidationActions, "validationActions has no default")

	mp := &admissionregistrationv1.MutatingAdmissionPolicy{}
	SetDefaults(mp)
	assert.Equal(t, admissionregistrationv1.Fail, *mp.Spec.FailurePolicy)
	assert.Empty(t, mp.Spec.ReinvocationPolicy, "a policy's reinvocationPolicy has no default")

	assert.False(t, SetDefaults(&metav1.Status{}), "an unknown type")
}
