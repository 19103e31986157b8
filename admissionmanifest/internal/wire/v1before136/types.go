// Package v1before136 holds the decoding form of kube-apiserver 1.35's
// webhook plugin configuration: apiserver.config.k8s.io/v1
// WebhookAdmissionConfiguration and v1alpha1 WebhookAdmission, decoded
// without strictness (an unknown field, staticManifestsDir and staticOrder
// among them, is dropped).
package v1before136

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WebhookAdmission is kube-apiserver 1.35's WebhookAdmission type
// (k8s.io/apiserver/pkg/admission/plugin/webhook/config/apis/webhookadmission/v1
// and v1alpha1).
type WebhookAdmission struct {
	metav1.TypeMeta `json:""`
	KubeConfigFile  string `json:"kubeConfigFile"`
}

// DeepCopyObject makes a runtime.Object.
func (w *WebhookAdmission) DeepCopyObject() runtime.Object { c := *w; return &c }
