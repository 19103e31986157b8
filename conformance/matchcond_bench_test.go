package conformance

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverapi "k8s.io/apiserver/pkg/apis/apiserver"
	apiservervalidation "k8s.io/apiserver/pkg/apis/apiserver/validation"
	authzcel "k8s.io/apiserver/pkg/authorization/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// benchConditions are the three conditions of issue 3's benchmark (KEP-3221's
// example, with request.groups for the KEP's request.user.groups).
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
		User:   "system:serviceaccount:kube-system:generic-garbage-collector",
		Groups: []string{"system:serviceaccounts", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: "kube-system", Verb: "list", Version: "v1", Resource: "pods",
		},
	}},
	{"nonresource", authorizationv1.SubjectAccessReviewSpec{
		User:                  "jane",
		Groups:                []string{"system:authenticated"},
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"},
	}},
}

func kubeMatchConditions(exprs []string) []apiserverapi.WebhookMatchCondition {
	out := make([]apiserverapi.WebhookMatchCondition, len(exprs))
	for i, e := range exprs {
		out[i] = apiserverapi.WebhookMatchCondition{Expression: e}
	}
	return out
}

func BenchmarkAuthorizationMatch(b *testing.B) {
	ctx := context.Background()
	compiler, err := matchcond.NewAuthorizationCompiler()
	if err != nil {
		b.Fatal(err)
	}
	ours, errs := compiler.Compile(benchConditions, field.NewPath("matchConditions"))
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	kube, errs := apiservervalidation.ValidateAndCompileMatchConditions(authzcel.NewDefaultCompiler(), kubeMatchConditions(benchConditions))
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	// A request's context can be cancelled: kube-apiserver binds it to
	// every evaluation, gatehouse only to comprehensions.
	reqCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, r := range benchRequests {
		sar := &authorizationv1.SubjectAccessReview{Spec: r.spec}
		for _, c := range []struct {
			name string
			ctx  context.Context
		}{{"background", ctx}, {"cancellable", reqCtx}} {
			b.Run("impl=gatehouse/request="+r.name+"/ctx="+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ours.Match(c.ctx, &sar.Spec); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("impl=kube-apiserver/request="+r.name+"/ctx="+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := kube.Eval(c.ctx, sar); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkAuthorizationCompile(b *testing.B) {
	path := field.NewPath("matchConditions")
	b.Run("impl=gatehouse", func(b *testing.B) {
		compiler, err := matchcond.NewAuthorizationCompiler()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := compiler.Compile(benchConditions, path); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		compiler := authzcel.NewDefaultCompiler()
		conds := kubeMatchConditions(benchConditions)
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := apiservervalidation.ValidateAndCompileMatchConditions(compiler, conds); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

// BenchmarkAuthorizationEnvironment measures building the environment as the
// first use in a process does: kube-apiserver's cache of base environments is
// disabled, so that every iteration builds them (cel-go's own standard
// environment is cached for both sides).
func BenchmarkAuthorizationEnvironment(b *testing.B) {
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := matchcond.NewAuthorizationCompiler(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		environment.DisableBaseEnvSetCachingForTests()
		b.ReportAllocs()
		for b.Loop() {
			_ = authzcel.NewDefaultCompiler()
		}
	})
}
