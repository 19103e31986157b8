package kubernetes

import (
	"testing"

	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	admvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// BenchmarkMutationPolicyValidation validates the corpus's full policy
// (paramKind, a match condition, three variables, two mutations) on create:
// kube-apiserver's validation of the internal object, and the Validator on
// the v1 object.
func BenchmarkMutationPolicyValidation(b *testing.B) {
	p := mvBasePolicies()[1]
	mutation.SetDefaultsPolicy(p)
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		in := &admissionregistration.MutatingAdmissionPolicy{}
		admOracleInternal(b, p, in)
		b.ReportAllocs()
		for b.Loop() {
			if errs := admvalidation.ValidateMutatingAdmissionPolicy(in); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		v := mvGatehouseValidator(b)
		b.ReportAllocs()
		for b.Loop() {
			if errs := v.ValidateMutatingAdmissionPolicy(p, nil); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}
