package cel

import (
	"context"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
	"github.com/stretchr/testify/require"
)

// TestEvalAllocations bounds the allocations of evaluating a simple
// condition with a prepared activation: the per-request path allocates
// little.
func TestEvalAllocations(t *testing.T) {
	env, err := NewEnv(cel.Variable("request", cel.MapType(cel.StringType, cel.DynType)))
	require.NoError(t, err)
	planner, err := NewPlanner(env)
	require.NoError(t, err)
	ast, iss := env.Compile("has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system'")
	require.NoError(t, iss.Err())
	prg, err := planner.NewProgram(ast)
	require.NoError(t, err)
	act, err := interpreter.NewActivation(map[string]any{"request": map[string]any{"resourceAttributes": map[string]any{"namespace": "kube-system"}}})
	require.NoError(t, err)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		out, _, err := prg.Eval(ctx, act)
		if err != nil || out.Value() != true {
			t.Fatal(out, err)
		}
	})
	t.Logf("%.0f allocations", allocs)
	require.LessOrEqual(t, allocs, 6.0)
}
