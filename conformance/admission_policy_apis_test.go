package conformance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// The API versions of the admission policy kinds lint reports as not served
// (or served only when enabled) are kube-apiserver's: the prerelease
// lifecycle k8s.io/api generates for each type (the same numbers in
// v0.35.10, v0.36.6 and v0.37.2), judged as kube-apiserver's
// ResourceExpirationEvaluator judges them in a release (k8s.io/apiserver
// pkg/server/deleted_kinds.go: removed at or before the version, not served;
// not imported here, as pkg/server would bring etcd's client into this
// module's build). The GA versions have no
// lifecycle: v1 ValidatingAdmissionPolicy is in every supported version,
// v1 MutatingAdmissionPolicy from 1.36 (k8s.io/api v0.35.10 has no such
// type), which kubeversions' own test pins.
func TestAdmissionPolicyServingMatchesKubeAPIServer(t *testing.T) {
	type lifecycle interface {
		APILifecycleIntroduced() (int, int)
	}
	type removed interface {
		APILifecycleRemoved() (int, int)
	}
	for _, c := range []struct {
		gvk schema.GroupVersionKind
		obj lifecycle
	}{
		{admissionregistrationv1alpha1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicy"), &admissionregistrationv1alpha1.ValidatingAdmissionPolicy{}},
		{admissionregistrationv1alpha1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicyBinding"), &admissionregistrationv1alpha1.ValidatingAdmissionPolicyBinding{}},
		{admissionregistrationv1alpha1.SchemeGroupVersion.WithKind("MutatingAdmissionPolicy"), &admissionregistrationv1alpha1.MutatingAdmissionPolicy{}},
		{admissionregistrationv1alpha1.SchemeGroupVersion.WithKind("MutatingAdmissionPolicyBinding"), &admissionregistrationv1alpha1.MutatingAdmissionPolicyBinding{}},
		{admissionregistrationv1beta1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicy"), &admissionregistrationv1beta1.ValidatingAdmissionPolicy{}},
		{admissionregistrationv1beta1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicyBinding"), &admissionregistrationv1beta1.ValidatingAdmissionPolicyBinding{}},
		{admissionregistrationv1beta1.SchemeGroupVersion.WithKind("MutatingAdmissionPolicy"), &admissionregistrationv1beta1.MutatingAdmissionPolicy{}},
		{admissionregistrationv1beta1.SchemeGroupVersion.WithKind("MutatingAdmissionPolicyBinding"), &admissionregistrationv1beta1.MutatingAdmissionPolicyBinding{}},
	} {
		for _, v := range kube.SupportedVersions() {
			if v == kube.V1_38 {
				continue // 1.38's lifecycles are its beta's k8s.io/api (Go 1.27)
			}
			target, err := kube.TargetFor(v)
			require.NoError(t, err)
			at := version.MajorMinor(1, uint(v.Minor()))
			want := kubeversions.ServedWhenEnabled // prerelease: off by default
			major, minor := c.obj.APILifecycleIntroduced()
			if version.MajorMinor(uint(major), uint(minor)).GreaterThan(at) {
				want = kubeversions.NotServed
			}
			if r, ok := c.obj.(removed); ok {
				if major, minor := r.APILifecycleRemoved(); !version.MajorMinor(uint(major), uint(minor)).GreaterThan(at) {
					want = kubeversions.NotServed
				}
			}
			got, known := kubeversions.AdmissionPolicyServing(target, c.gvk.GroupVersion().String(), c.gvk.Kind)
			assert.True(t, known)
			assert.Equal(t, want, got, "%s at %s", c.gvk, v)
		}
	}
}
