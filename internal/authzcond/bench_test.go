package authzcond

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// The three conditions of issue 3 (KEP-3221's example).
var benchConditions = []string{
	"has(request.resourceAttributes)",
	"request.resourceAttributes.namespace == 'kube-system'",
	"!('system:serviceaccounts:kube-system' in request.groups)",
}

var benchRequests = []struct {
	name string
	spec authorizationv1.SubjectAccessReviewSpec
}{
	{"resource", authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:kube-system:generic-garbage-collector",
		Groups:             []string{"system:serviceaccounts", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: "list", Version: "v1", Resource: "pods"},
	}},
	{"nonresource", authorizationv1.SubjectAccessReviewSpec{
		User:                  "jane",
		Groups:                []string{"system:authenticated"},
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"},
	}},
}

func BenchmarkAuthorizationMatch(b *testing.B) {
	m := compile(b, benchConditions...)
	instrumented := m.WithOptions(AuthorizationMatcherOptions{AuthorizerName: "bench", Metrics: metrics.Noop{}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, r := range benchRequests {
		spec := r.spec
		b.Run("request="+r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Match(context.Background(), &spec); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("request="+r.name+"/metrics", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = instrumented.Match(context.Background(), &spec)
			}
		})
		b.Run("request="+r.name+"/cancellable-context", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = m.Match(ctx, &spec)
			}
		})
		b.Run("request="+r.name+"/explain", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = m.Explain(context.Background(), &spec)
			}
		})
	}
}

func BenchmarkAuthorizationCompile(b *testing.B) {
	c := compiler(b)
	path := field.NewPath("matchConditions")
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := c.Compile(benchConditions, path); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkNewAuthorizationCompiler(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewAuthorizationCompiler(); err != nil {
			b.Fatal(err)
		}
	}
}
