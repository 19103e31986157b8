// Package v1alpha1 holds the decoding form of the v1alpha1
// AdmissionConfiguration (apiserver.k8s.io/v1alpha1 and
// apiserver.config.k8s.io/v1alpha1), named after kube-apiserver's
// (k8s.io/apiserver/pkg/apis/apiserver/v1alpha1) for its error texts.
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AdmissionConfiguration is kube-apiserver's.
type AdmissionConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	Plugins         []AdmissionPluginConfiguration `json:"plugins"`
}

// AdmissionPluginConfiguration is one plugin's entry.
type AdmissionPluginConfiguration struct {
	Name          string           `json:"name"`
	Path          string           `json:"path"`
	Configuration *runtime.Unknown `json:"configuration"`
}

// DeepCopyObject makes a runtime.Object.
func (a *AdmissionConfiguration) DeepCopyObject() runtime.Object {
	c := *a
	c.Plugins = append([]AdmissionPluginConfiguration(nil), a.Plugins...)
	return &c
}
