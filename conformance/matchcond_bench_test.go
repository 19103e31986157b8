package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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

// BenchmarkAuthorizationEnvironmentAndCompile measures building the
// environment and compiling the three conditions with it, kube-apiserver's
// cache of base environments disabled: a server's startup, without the
// first-in-process costs of BenchmarkAuthorizationEnvironmentFirstInProcess.
func BenchmarkAuthorizationEnvironmentAndCompile(b *testing.B) {
	path := field.NewPath("matchConditions")
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			compiler, err := matchcond.NewAuthorizationCompiler()
			if err != nil {
				b.Fatal(err)
			}
			if _, errs := compiler.Compile(benchConditions, path); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		environment.DisableBaseEnvSetCachingForTests()
		conds := kubeMatchConditions(benchConditions)
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := apiservervalidation.ValidateAndCompileMatchConditions(authzcel.NewDefaultCompiler(), conds); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

// firstEnvironmentVar selects, in a child process of
// BenchmarkAuthorizationEnvironmentFirstInProcess, the implementation whose
// first environment build is timed.
const firstEnvironmentVar = "GATEHOUSE_MATCHCOND_FIRST_ENVIRONMENT"

// TestAuthorizationEnvironmentFirstInProcessChild is the child process of
// BenchmarkAuthorizationEnvironmentFirstInProcess; it does nothing in a
// normal run.
func TestAuthorizationEnvironmentFirstInProcessChild(t *testing.T) {
	impl := os.Getenv(firstEnvironmentVar)
	if impl == "" {
		t.Skip("run by BenchmarkAuthorizationEnvironmentFirstInProcess")
	}
	path := field.NewPath("matchConditions")
	start := time.Now()
	var built time.Duration
	switch impl {
	case "gatehouse":
		compiler, err := matchcond.NewAuthorizationCompiler()
		if err != nil {
			t.Fatal(err)
		}
		built = time.Since(start)
		if _, errs := compiler.Compile(benchConditions, path); len(errs) > 0 {
			t.Fatal(errs)
		}
	case "kube-apiserver":
		compiler := authzcel.NewDefaultCompiler()
		built = time.Since(start)
		if _, errs := apiservervalidation.ValidateAndCompileMatchConditions(compiler, kubeMatchConditions(benchConditions)); len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	fmt.Printf("first-build-ns %d\nfirst-build-and-compile-ns %d\n", built.Nanoseconds(), time.Since(start).Nanoseconds())
}

// BenchmarkAuthorizationEnvironmentFirstInProcess times the first build of
// the environment in a fresh process (each iteration starts one), and that
// build with the compilation of the three conditions: what a server pays at
// startup, with every lazily built cache of cel-go and of kube-apiserver
// empty. The figures are the metrics first-build-ns and
// first-build-and-compile-ns (gatehouse builds the environments of the
// libraries other than the standard one when an expression first needs
// them: the second figure is the one to compare).
func BenchmarkAuthorizationEnvironmentFirstInProcess(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, impl := range []string{"gatehouse", "kube-apiserver"} {
		b.Run("impl="+impl, func(b *testing.B) {
			var total, totalWithCompile time.Duration
			for b.Loop() {
				cmd := exec.Command(exe, "-test.run=^TestAuthorizationEnvironmentFirstInProcessChild$", "-test.count=1")
				cmd.Env = append(os.Environ(), firstEnvironmentVar+"="+impl)
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				var ns, withCompile int64
				for _, line := range strings.Split(string(out), "\n") {
					fmt.Sscanf(line, "first-build-ns %d", &ns)
					fmt.Sscanf(line, "first-build-and-compile-ns %d", &withCompile)
				}
				if ns == 0 || withCompile == 0 {
					b.Fatalf("no timing in %q", out)
				}
				total += time.Duration(ns)
				totalWithCompile += time.Duration(withCompile)
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "first-build-ns/op")
			b.ReportMetric(float64(totalWithCompile.Nanoseconds())/float64(b.N), "first-build-and-compile-ns/op")
		})
	}
}
