package conformance

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	gcel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// libraryOfSide checks each expression in the environment of the standard
// library and the libraries it calls (gcel.LibrariesOf, gcel.NewEnvOf), as
// matchcond does, and counts how often that environment sufficed.
func libraryOfSide(t *testing.T, small *int) celSide {
	side := oursSide(t)
	whole := side.env
	vars := celVariables(gcel.AuthorizerType, gcel.ResourceCheckType)
	declared := map[string]bool{}
	for _, name := range []string{"s1", "s2", "s3", "n", "u", "d", "by", "bo", "li", "ls", "ld", "m", "dy", "dy2", "authorizer", "requestResource"} {
		declared[name] = true
	}
	envs := map[gcel.Libraries]*cel.Env{}
	side.compile = func(expr string) (*cel.Env, *cel.Ast, *cel.Issues) {
		parsed, iss := whole.Parse(expr)
		if iss.Err() != nil {
			return whole, parsed, iss
		}
		libs, ok := gcel.LibrariesOf(parsed.NativeRep().Expr(), func(name string) bool { return declared[name] })
		if !ok {
			checked, iss := whole.Check(parsed)
			return whole, checked, iss
		}
		env := envs[libs]
		if env == nil {
			var err error
			if env, err = gcel.NewEnvOf(libs, vars...); err != nil {
				t.Fatalf("libraries %b: %v", libs, err)
			}
			envs[libs] = env
		}
		*small++
		checked, iss := env.Check(parsed)
		return env, checked, iss
	}
	return side
}

// TestCELLibrariesOfMatchKubeAPIServer checks the library corpus and random
// expressions in the smallest environments that gatehouse builds for them,
// against kube-apiserver's whole environment: the same compile errors,
// types, cost estimates, results, errors and costs.
func TestCELLibrariesOfMatchKubeAPIServer(t *testing.T) {
	cases := allLibraryCases()
	vars := extensionCases()[0].vars
	g := &exprGen{r: rand.New(rand.NewPCG(5, 41)), vars: []string{"s1", "s2", "s3", "n", "u", "d", "bo", "li", "ls", "m", "dy", "dy2", "by"}}
	for range 3000 {
		cases = append(cases, celCase{expr: g.expr(), vars: vars})
	}
	tg := &typedGen{r: rand.New(rand.NewPCG(3, 19))}
	for range 2000 {
		cases = append(cases, celCase{expr: tg.boolean(), vars: vars})
	}
	var small int
	compareCEL(t, cases, libraryOfSide(t, &small))
	t.Logf("%d of %d cases checked in a smaller environment", small, len(cases))
	// Most expressions of the corpus name only declared variables: if few
	// took the smaller environments, the test compared little.
	if small < len(cases)/2 {
		t.Errorf("only %d of %d cases took a smaller environment", small, len(cases))
	}
}

// TestCELNewExpressionsMatchKubeAPIServer compares the environment in which
// kube-apiserver checks expressions that a write adds or changes
// (NewExpressions at its default compatibility version, 1.36) with
// gcel.NewExpressionsEnv, on the library corpus: the same compile errors
// (includes() is unknown there), types, results and costs.
func TestCELNewExpressionsMatchKubeAPIServer(t *testing.T) {
	kube := kubeSide(t)
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	var err error
	kube.env, err = envSet.NewExpressionsEnv().Extend(celVariables(library.AuthorizerType, library.ResourceCheckType)...)
	if err != nil {
		t.Fatal(err)
	}
	ours := oursSide(t)
	ours.env, err = gcel.NewExpressionsEnv(celVariables(gcel.AuthorizerType, gcel.ResourceCheckType)...)
	if err != nil {
		t.Fatal(err)
	}
	cases := allLibraryCases()
	var includes int
	for _, c := range cases {
		if strings.Contains(c.expr, "includes(") {
			includes++
		}
	}
	if includes == 0 {
		t.Fatal("the corpus no longer calls includes(): the test compares nothing that differs between the environments")
	}
	compareCELSides(t, kube, cases, ours)
}
