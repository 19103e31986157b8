package cel

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProgramHonoursCancellation compares cancellation with cel-go's
// ContextEval: with an interrupt check frequency, comprehensions stop on a
// cancelled context; without, the evaluation completes.
func TestProgramHonoursCancellation(t *testing.T) {
	env, err := NewEnv()
	require.NoError(t, err)
	planner, err := NewPlanner(env)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, expr := range []string{"lists.range(1000).all(i, true)", "lists.range(10).all(i, true)", "1 + 1 == 2"} {
		for _, every := range []uint{0, 1, 100} {
			ast, iss := env.Compile(expr)
			require.NoError(t, iss.Err())
			opts := append(ProgramOptions(), cel.InterruptCheckFrequency(every))
			ref, err := env.Program(ast, opts...)
			require.NoError(t, err)
			_, det, wantErr := ref.ContextEval(ctx, map[string]any{})

			prg, err := planner.NewProgram(ast, WithInterruptCheckFrequency(every))
			require.NoError(t, err)
			_, cost, gotErr := prg.Eval(ctx, map[string]any{})
			assert.Equal(t, errorText(wantErr), errorText(gotErr), "%s every %d", expr, every)
			assert.Equal(t, *det.ActualCost(), cost, "%s every %d", expr, every)
			if every > 0 && expr == "lists.range(1000).all(i, true)" {
				require.Error(t, gotErr)
				assert.True(t, errors.Is(gotErr, context.Canceled))
				assert.True(t, errors.Is(gotErr, interpreter.InterruptError{}))
			}
		}
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestProgramConcurrentEvaluations evaluates one program from many
// goroutines (run with -race).
func TestProgramConcurrentEvaluations(t *testing.T) {
	prg := planExpr(t, "lists.range(200).filter(i, i % 3 == 0).map(i, string(i)).join(',').size()")
	want, wantCost, err := prg.Eval(context.Background(), map[string]any{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, cost, err := prg.Eval(context.Background(), map[string]any{})
				assert.NoError(t, err)
				assert.Equal(t, want, got)
				assert.Equal(t, wantCost, cost)
			}
		})
	}
	wg.Wait()
}

// TestProgramActivations accepts a map or an interpreter.Activation, and
// reports a bad input as an error.
func TestProgramActivations(t *testing.T) {
	env, err := NewEnv(cel.Variable("x", cel.IntType))
	require.NoError(t, err)
	planner, err := NewPlanner(env)
	require.NoError(t, err)
	ast, iss := env.Compile("x + 1")
	require.NoError(t, iss.Err())
	prg, err := planner.NewProgram(ast)
	require.NoError(t, err)

	out, cost, err := prg.Eval(context.TODO(), map[string]any{"x": 1})
	require.NoError(t, err)
	assert.Equal(t, int64(2), out.Value())
	assert.Equal(t, uint64(2), cost)

	act, err := interpreter.NewActivation(map[string]any{"x": 41})
	require.NoError(t, err)
	out, _, err = prg.Eval(context.Background(), act)
	require.NoError(t, err)
	assert.Equal(t, int64(42), out.Value())

	_, _, err = prg.Eval(context.Background(), 12)
	require.Error(t, err)
	_, _, err = prg.Eval(context.Background(), map[string]any{})
	require.EqualError(t, err, "no such attribute(s): x")
}

// TestProgramCostLimit applies the limit given, and none with MaxUint64.
func TestProgramCostLimit(t *testing.T) {
	env, err := NewEnv()
	require.NoError(t, err)
	planner, err := NewPlanner(env)
	require.NoError(t, err)
	ast, iss := env.Compile("lists.range(100).map(i, i).size()")
	require.NoError(t, iss.Err())

	prg, err := planner.NewProgram(ast, WithCostLimit(50))
	require.NoError(t, err)
	_, cost, err := prg.Eval(context.Background(), map[string]any{})
	require.EqualError(t, err, "operation cancelled: actual cost limit exceeded")
	assert.Equal(t, uint64(111), cost, "lists.range(100) is checked before it runs and costs 111")

	prg, err = planner.NewProgram(ast, WithCostLimit(^uint64(0)))
	require.NoError(t, err)
	out, cost, err := prg.Eval(context.Background(), map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, int64(100), out.Value())
	assert.Greater(t, cost, uint64(111))
}
