package admission

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/gatehouse-dev/gatehouse/internal/benchkube"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// BenchmarkChainOverhead admits a Pod that one mutating and one validating
// policy match and no webhook does: through the chain (impl=chain), and
// through the two engines called one after the other (impl=engines), the
// sum of their costs. The chain's own cost is the difference (issue 23's
// target: at most 5%). It runs at each version of benchkube.
func BenchmarkChainOverhead(b *testing.B) { benchkube.Run(b, benchmarkChainOverhead) }

func benchmarkChainOverhead(b *testing.B, t kube.Target) {
	cfg, err := Decode([]byte(labelPolicies + "---\n" + requirePolicies))
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(*cfg, Options{Kube: t})
	if err != nil {
		b.Fatal(err)
	}
	m, err := mutation.NewDispatcher(cfg.MutatingPolicies, cfg.MutatingPolicyBindings, mutation.Options{Kube: t})
	if err != nil {
		b.Fatal(err)
	}
	v, err := validatingpolicy.NewDispatcher(cfg.ValidatingPolicies, cfg.ValidatingPolicyBindings, validatingpolicy.Options{Kube: t})
	if err != nil {
		b.Fatal(err)
	}
	req := podRequest(admissionv1.Create, map[string]string{"team": "a"})
	ctx := context.Background()
	b.Run("impl=chain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Admit(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=engines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rc := &mutation.ReinvocationContext{}
			mres, err := m.Admit(ctx, &mutation.Request{Operation: req.Operation, Kind: req.Kind, Resource: req.Resource, Name: req.Name,
				Namespace: req.Namespace, Object: req.Object, Reinvocation: rc})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := v.Validate(ctx, &validatingpolicy.Request{Operation: req.Operation, Kind: req.Kind, Resource: req.Resource, Name: req.Name,
				Namespace: req.Namespace, Object: mres.Object}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
