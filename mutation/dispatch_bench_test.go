package mutation

import (
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// BenchmarkAdmitDispatchOnly measures the dispatcher's own work (matching
// 50 policies, of which one matches, params, reinvocation bookkeeping,
// metrics) with evaluation and application faked: the real ones are
// measured with the package's compiler and patchers.
func BenchmarkAdmitDispatchOnly(b *testing.B) {
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
	d := newDispatcher(ps, bs, Options{}, compileFake, applyFake)
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
