package validatingpolicy

import (
	"context"
	"fmt"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gatehouse-dev/gatehouse/internal/benchkube"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// BenchmarkValidatePod admits a Pod through one matching policy with three
// validations (and a messageExpression) that pass, at each version of
// benchkube.
func BenchmarkValidatePod(b *testing.B) { benchkube.Run(b, benchmarkValidatePod) }

func benchmarkValidatePod(b *testing.B, t kube.Target) {
	p := policy("p", validations(
		expr(`object.metadata.name.startsWith("a")`),
		admissionregistrationv1.Validation{Expression: `object.spec.containers.all(c, c.image != "")`, MessageExpression: `"bad image in " + object.metadata.name`},
		expr(`!has(object.metadata.labels) || !('forbidden' in object.metadata.labels)`),
	))
	d, err := NewDispatcher(policies{p}, bindings{binding("b", "p", deny)}, Options{Namespaces: namespaces, Kube: t})
	if err != nil {
		b.Fatal(err)
	}
	req := create(pod("dev", "alpha", map[string]string{"app": "web"}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Validate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate100Policies validates a Pod against 100 policies of
// which one matches it, at each version of benchkube.
func BenchmarkValidate100Policies(b *testing.B) { benchkube.Run(b, benchmarkValidate100Policies) }

func benchmarkValidate100Policies(b *testing.B, t kube.Target) {
	var ps policies
	var bs bindings
	for i := range 100 {
		name := fmt.Sprintf("p%d", i)
		resource := fmt.Sprintf("widgets%d", i)
		if i == 50 {
			resource = "pods"
		}
		ps = append(ps, policy(name, validations(expr(`object.metadata.name.startsWith("a")`)), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules[0].Resources = []string{resource}
		}))
		bs = append(bs, binding("b"+name, name, deny))
	}
	d, err := NewDispatcher(ps, bs, Options{Namespaces: namespaces, Kube: t})
	if err != nil {
		b.Fatal(err)
	}
	req := create(pod("dev", "alpha", nil))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Validate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile compiles a policy with three validations and a
// messageExpression, at each version of benchkube.
func BenchmarkCompile(b *testing.B) { benchkube.Run(b, benchmarkCompile) }

func benchmarkCompile(b *testing.B, t kube.Target) {
	c, err := NewCompilerFor(t)
	if err != nil {
		b.Fatal(err)
	}
	p := policy("p", validations(
		expr(`object.metadata.name.startsWith("a")`),
		admissionregistrationv1.Validation{Expression: `object.spec.containers.all(c, c.image != "")`, MessageExpression: `"bad image in " + object.metadata.name`},
		expr(`!has(object.metadata.labels) || !('forbidden' in object.metadata.labels)`),
	))
	b.ReportAllocs()
	for b.Loop() {
		if errs := c.Compile(p).CompileErrors(); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
