package mutation

import (
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/gatehouse-dev/gatehouse/internal/benchkube"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// BenchmarkAdmitDispatchOnly measures the dispatcher's own work (matching
// 50 policies, of which one matches, params, reinvocation bookkeeping,
// metrics) with evaluation and application faked: the real ones are
// measured with the package's compiler and patchers. It runs at each
// version of benchkube.
func BenchmarkAdmitDispatchOnly(b *testing.B) { benchkube.Run(b, benchmarkAdmitDispatchOnly) }

func benchmarkAdmitDispatchOnly(b *testing.B, t kube.Target) {
	var ps policies
	var bs bindings
	for i := range 50 {
		name := fmt.Sprintf("p%d", i)
		res := "deployments"
		if i == 25 {
			res = "pods"
		}
		ps = append(ps, newPolicy(name, []string{"label:a=1"}, withResources(res), ifNeeded))
		bs = append(bs, newBinding(name+"-b", name))
	}
	d := newDispatcher(ps, bs, Options{Kube: t}, compileFake, applyFake)
	req := podRequest(admissionv1.Create, map[string]any{"app": "web"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req.Reinvocation = &ReinvocationContext{}
		if _, err := d.Admit(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
