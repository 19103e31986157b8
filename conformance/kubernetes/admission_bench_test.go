package kubernetes

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
)

// BenchmarkAdmissionValidation validates, on create, a webhook
// configuration of three webhooks with match conditions and a policy with
// params, variables, validations and an audit annotation, each valid, as
// kube-apiserver's REST path does (defaults, conversion to the internal
// type, validation) and as gatehouse does (SetDefaults on a copy,
// Validator). kube-apiserver keeps its CEL environments in package state;
// gatehouse's Validator keeps them, built before the loop.
func BenchmarkAdmissionValidation(b *testing.B) {
	objects := []struct {
		name string
		obj  runtime.Object
	}{
		{"object=MutatingWebhookConfiguration", admBaseMWCs()[2]},
		{"object=ValidatingAdmissionPolicy", admBasePolicies()[1]},
		{"object=ValidatingAdmissionPolicyBinding", admBindingCorpus(0)[1]},
	}
	for _, o := range objects {
		b.Run(o.name, func(b *testing.B) {
			errs, _ := admOracle(b, o.obj, nil)
			require.Empty(b, errs)
			b.Run("impl=kube-apiserver", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					admOracle(b, o.obj, nil)
				}
			})
			v := admREST(b)
			b.Run("impl=gatehouse", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					admGatehouse(v, o.obj, nil)
				}
			})
		})
	}
}
