// Package v1before138 holds the decoding form of the
// apiserver.config.k8s.io/v1 WebhookAdmissionConfiguration of
// kube-apiserver 1.36 and 1.37, which have no staticOrder: decoded strictly,
// the field is unknown. Its type is named after kube-apiserver's, whose
// name is part of the decoding error texts.
package v1before138

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// WebhookAdmission is kube-apiserver 1.37's WebhookAdmissionConfiguration
// type (k8s.io/apiserver/pkg/admission/plugin/webhook/config/apis/webhookadmission/v1).
type WebhookAdmission struct {
	metav1.TypeMeta    `json:""`
	KubeConfigFile     string `json:"kubeConfigFile"`
	StaticManifestsDir string `json:"staticManifestsDir,omitempty"`
}

// DeepCopyObject makes a runtime.Object.
func (w *WebhookAdmission) DeepCopyObject() runtime.Object { c := *w; return &c }
