package conformance

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/internal/mutationcel"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// sidecarPolicy is the website's sidecar policy: one ApplyConfiguration
// mutation.
func sidecarPolicy() *admissionregistrationv1.MutatingAdmissionPolicy {
	return &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "sidecar-policy.example.com"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "does-not-already-have-sidecar",
				Expression: `!object.spec.initContainers.exists(ic, ic.name == "mesh-proxy")`}},
			FailurePolicy: ptrTo(admissionregistrationv1.Fail),
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{
  spec: Object.spec{
    initContainers: [
      Object.spec.initContainers{
        name: "mesh-proxy",
        image: "mesh/proxy:v1.0.0",
        args: ["proxy", "sidecar"],
        restartPolicy: "Always"
      }
    ]
  }
}`},
			}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
}

// BenchmarkMutationCompile compiles the sidecar policy (one match
// condition, one ApplyConfiguration mutation) as kube-apiserver does when it
// loads it (its compilePolicy: a composited compiler on the base
// environment, then each expression), and with gatehouse's Compiler.
func BenchmarkMutationCompile(b *testing.B) {
	pol := sidecarPolicy()
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		for b.Loop() {
			if errs := kubeCompileSidecar(b, pol); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		c, err := mutation.NewCompiler()
		require.NoError(b, err)
		for b.Loop() {
			if errs := c.Compile(pol).CompileErrors(); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

// BenchmarkMutationEvaluate evaluates the sidecar mutation on a Pod into its
// patch (not applied).
func BenchmarkMutationEvaluate(b *testing.B) {
	c := mutationCELCase{name: "sidecar", patchType: admissionregistrationv1.PatchTypeApplyConfiguration,
		expression: sidecarPolicy().Spec.Mutations[0].ApplyConfiguration.Expression,
		object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web", "namespace": "default"},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}}
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		eval := kubeMutationEvaluator(b, c)
		for b.Loop() {
			if _, _, err := eval(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		compiler, err := mutationcel.NewCompiler()
		require.NoError(b, err)
		eval := gatehouseMutationEvaluator(b, compiler, c)
		ctx := context.Background()
		for b.Loop() {
			if _, err := eval(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
