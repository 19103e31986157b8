package cel_test

import (
	"context"
	"fmt"

	"github.com/google/cel-go/cel"

	gcel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// Compile an expression in kube-apiserver's environment, estimate its cost,
// and evaluate it with its runtime cost.
func Example() {
	env, err := gcel.NewEnv(cel.Variable("limits", cel.MapType(cel.StringType, cel.StringType)))
	if err != nil {
		panic(err)
	}
	ast, iss := env.Compile("quantity(limits.memory).isLessThan(quantity('1Gi')) && ip('10.0.0.1').family() == 4")
	if iss.Err() != nil {
		panic(iss.Err())
	}
	estimate, err := env.EstimateCost(ast, &gcel.CostEstimator{})
	if err != nil {
		panic(err)
	}
	planner, err := gcel.NewPlanner(env)
	if err != nil {
		panic(err)
	}
	prg, err := planner.NewProgram(ast)
	if err != nil {
		panic(err)
	}
	out, cost, err := prg.Eval(context.Background(), map[string]any{"limits": map[string]string{"memory": "512Mi"}})
	fmt.Println(out, cost, err, estimate.Min <= cost)
	// Output: true 8 <nil> true
}

// allowAll is an Authorizer that allows everything.
type allowAll struct{}

func (allowAll) Authorize(_ context.Context, a *gcel.AuthorizationAttributes) (gcel.Decision, string, error) {
	return gcel.DecisionAllow, "allowed " + a.Verb + " " + a.Resource, nil
}

// Check an authorization from an expression, through the Authz library.
func ExampleNewAuthorizerValue() {
	env, err := gcel.NewEnv(cel.Variable("authorizer", gcel.AuthorizerType))
	if err != nil {
		panic(err)
	}
	ast, iss := env.Compile("authorizer.group('apps').resource('deployments').namespace('prod').check('delete').reason()")
	if iss.Err() != nil {
		panic(iss.Err())
	}
	planner, err := gcel.NewPlanner(env)
	if err != nil {
		panic(err)
	}
	prg, err := planner.NewProgram(ast)
	if err != nil {
		panic(err)
	}
	user := &gcel.UserInfo{Name: "alice", Groups: []string{"dev"}}
	out, cost, err := prg.Eval(context.Background(), map[string]any{
		"authorizer": gcel.NewAuthorizerValue(context.Background(), user, allowAll{}),
	})
	fmt.Println(out, cost, err)
	// Output: allowed delete deployments 350005 <nil>
}
