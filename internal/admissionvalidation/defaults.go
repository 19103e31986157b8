package admissionvalidation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultRule sets kube-apiserver's v1 default of a rule: scope "*".
func DefaultRule(r *admissionregistrationv1.Rule) {
	if r.Scope == nil {
		r.Scope = new(admissionregistrationv1.AllScopes)
	}
}

// DefaultMatchResources sets kube-apiserver's defaults of match resources
// (the same in v1, v1beta1 and v1alpha1): matchPolicy Equivalent, empty
// namespace and object selectors, and the scope of every rule; nil is left
// nil.
func DefaultMatchResources(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = new(admissionregistrationv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for i := range m.ResourceRules {
		DefaultRule(&m.ResourceRules[i].Rule)
	}
	for i := range m.ExcludeResourceRules {
		DefaultRule(&m.ExcludeResourceRules[i].Rule)
	}
}
