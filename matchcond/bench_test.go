package matchcond

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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

func BenchmarkAdmissionMatch(b *testing.B) {
	m := compileAdmission(b, AdmissionOptions{Policy: true, Variables: []admissionregistrationv1.Variable{{Name: "app", Expression: "object.metadata.labels.app"}}},
		"request.operation == 'CREATE'", "variables.app == 'web'", "'dev' in request.userInfo.groups")
	a := podCreate()
	b.ReportAllocs()
	for b.Loop() {
		if r := m.Match(context.Background(), a); !r.Matches {
			b.Fatal(r)
		}
	}
}

func BenchmarkNewAdmissionCompiler(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewAdmissionCompiler(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmissionCompilePolicy compiles one policy's variables and match
// conditions, as a server does for each policy it loads.
func BenchmarkAdmissionCompilePolicy(b *testing.B) {
	c, err := NewAdmissionCompiler()
	if err != nil {
		b.Fatal(err)
	}
	conds := []admissionregistrationv1.MatchCondition{
		{Name: "create", Expression: "request.operation == 'CREATE'"},
		{Name: "web", Expression: "variables.app == 'web'"},
		{Name: "dev", Expression: "'dev' in request.userInfo.groups"},
	}
	o := AdmissionOptions{Policy: true, HasParams: true, Variables: []admissionregistrationv1.Variable{{Name: "app", Expression: "object.metadata.labels.app"}}}
	b.ReportAllocs()
	for b.Loop() {
		m, err := c.Compile(conds, o)
		if err != nil || len(m.CompileErrors()) > 0 {
			b.Fatal(err, m.CompileErrors())
		}
	}
}
