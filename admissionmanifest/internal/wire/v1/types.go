// Package v1 holds the decoding forms of the apiserver.config.k8s.io/v1
// kinds the admission plugins read. Their package, type and field names
// are part of kube-apiserver's decoding error texts ("Go struct field
// WebhookAdmission.kubeConfigFile of type string"), which is why they are
// named after kube-apiserver's.
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WebhookAdmission is kube-apiserver's WebhookAdmissionConfiguration type
// (k8s.io/apiserver/pkg/admission/plugin/webhook/config/apis/webhookadmission/v1),
// as 1.38 has it; package v1before138 has the one of 1.36 and 1.37, which
// have no staticOrder.
type WebhookAdmission struct {
	metav1.TypeMeta    `json:""`
	KubeConfigFile     string `json:"kubeConfigFile"`
	StaticManifestsDir string `json:"staticManifestsDir,omitempty"`
	StaticOrder        string `json:"staticOrder,omitempty"`
}

// ValidatingAdmissionPolicyConfiguration is kube-apiserver's
// (k8s.io/apiserver/pkg/admission/plugin/policy/config/apis/policyconfig/v1).
type ValidatingAdmissionPolicyConfiguration struct {
	metav1.TypeMeta    `json:",inline"`
	StaticManifestsDir string `json:"staticManifestsDir,omitempty"`
}

// MutatingAdmissionPolicyConfiguration is kube-apiserver's (same package).
type MutatingAdmissionPolicyConfiguration struct {
	metav1.TypeMeta    `json:",inline"`
	StaticManifestsDir string `json:"staticManifestsDir,omitempty"`
}

// AdmissionConfiguration is kube-apiserver's
// (k8s.io/apiserver/pkg/apis/apiserver/v1).
type AdmissionConfiguration struct {
	metav1.TypeMeta `json:""`
	Plugins         []AdmissionPluginConfiguration `json:"plugins"`
}

// AdmissionPluginConfiguration is one plugin's entry.
type AdmissionPluginConfiguration struct {
	Name          string           `json:"name"`
	Path          string           `json:"path"`
	Configuration *runtime.Unknown `json:"configuration"`
}

// DeepCopyObject makes a runtime.Object.
func (w *WebhookAdmission) DeepCopyObject() runtime.Object { c := *w; return &c }

// DeepCopyObject makes a runtime.Object.
func (p *ValidatingAdmissionPolicyConfiguration) DeepCopyObject() runtime.Object { c := *p; return &c }

// DeepCopyObject makes a runtime.Object.
func (p *MutatingAdmissionPolicyConfiguration) DeepCopyObject() runtime.Object { c := *p; return &c }

// DeepCopyObject makes a runtime.Object.
func (a *AdmissionConfiguration) DeepCopyObject() runtime.Object {
	c := *a
	c.Plugins = append([]AdmissionPluginConfiguration(nil), a.Plugins...)
	return &c
}
