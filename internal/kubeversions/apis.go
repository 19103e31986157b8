package kubeversions

import (
	"strings"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// Serving is how kube-apiserver serves an API version of a kind.
type Serving int

const (
	// NotServed: the version is not in that Kubernetes (introduced later,
	// or removed): creating such an object fails with 404 (the server
	// could not find the requested resource).
	NotServed Serving = iota
	// ServedWhenEnabled: a prerelease version, off by default (alpha, and
	// betas since 1.24): served only when --runtime-config enables it.
	ServedWhenEnabled
	// Served: served by default.
	Served
)

// api is an API version's lifecycle: the minor versions of Kubernetes 1 it
// arrived in and was removed in (0: not removed), from the generated
// prerelease lifecycle of k8s.io/api (zz_generated.prerelease-lifecycle.go)
// of each version, which kube-apiserver's ResourceExpirationEvaluator
// applies; prerelease tells whether it is off by default.
type api struct {
	introduced, removed int
	prerelease          bool
}

// admissionAPIs are the admissionregistration.k8s.io versions of the
// admission policy kinds (a binding's lifecycle is its policy's).
var admissionAPIs = map[string]api{
	"v1/ValidatingAdmissionPolicy":      {introduced: 30},
	"v1beta1/ValidatingAdmissionPolicy": {introduced: 28, removed: 34, prerelease: true},
	// v1alpha1 arrived in 1.26.
	"v1alpha1/ValidatingAdmissionPolicy": {introduced: 26, removed: 32, prerelease: true},
	"v1/MutatingAdmissionPolicy":         {introduced: 36},
	"v1beta1/MutatingAdmissionPolicy":    {introduced: 34, removed: 40, prerelease: true},
	// 1.35 to 1.37 name 1.38 as its removal; 1.38's beta names none.
	"v1alpha1/MutatingAdmissionPolicy": {introduced: 32, prerelease: true},
}

// AdmissionPolicyServing tells how kube-apiserver as t serves apiVersion
// (admissionregistration.k8s.io/VERSION) of a ValidatingAdmissionPolicy,
// MutatingAdmissionPolicy or their bindings; known is false for any other
// group or kind.
func AdmissionPolicyServing(t kube.Target, apiVersion, kind string) (s Serving, known bool) {
	version, ok := strings.CutPrefix(apiVersion, "admissionregistration.k8s.io/")
	if !ok {
		return NotServed, false
	}
	kind = strings.TrimSuffix(kind, "Binding")
	if kind != "ValidatingAdmissionPolicy" && kind != "MutatingAdmissionPolicy" {
		return NotServed, false
	}
	a, ok := admissionAPIs[version+"/"+kind]
	minor := t.Version().Minor()
	switch {
	case !ok, minor < a.introduced, a.removed != 0 && minor >= a.removed:
		return NotServed, true
	case a.prerelease:
		return ServedWhenEnabled, true
	}
	return Served, true
}
