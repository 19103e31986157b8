package cel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
)

func TestFlavorOf(t *testing.T) {
	for version, want := range map[string][2]Flavor{ // stored, new
		"1.35": {{CELGo026: true, QuantityShallowCopy: true}, {CELGo026: true, QuantityShallowCopy: true}},
		"1.36": {{CELGo026: true, QuantityShallowCopy: true}, {CELGo026: true, QuantityShallowCopy: true}},
		"1.37": {StoredFlavor, NewExpressionsFlavor},
		"1.38": {{ListsIncludes: true, CIDRIsMask: true}, {ListsIncludes: true}},
	} {
		target, err := kube.ParseTarget(version)
		require.NoError(t, err)
		assert.Equal(t, want[0], FlavorOf(target, true), version)
		assert.Equal(t, want[1], FlavorOf(target, false), version)
	}
}

// A range larger than cel-go 0.29 builds is not built in the 0.26 flavor:
// the cost limit stops it (after charging its size), and without a limit
// any use of it fails.
func TestRange026(t *testing.T) {
	f := Flavor{CELGo026: true}
	env, err := f.NewEnv()
	require.NoError(t, err)
	planner, err := NewPlanner(env, WithFlavor(f))
	require.NoError(t, err)
	eval := func(expr string, opts ...ProgramOption) (any, uint64, error) {
		ast, iss := env.Compile(expr)
		require.NoError(t, iss.Err())
		prg, err := planner.NewProgram(ast, opts...)
		require.NoError(t, err)
		out, cost, err := prg.Eval(context.Background(), map[string]any{})
		if err != nil {
			return nil, cost, err
		}
		return out.Value(), cost, nil
	}
	out, _, err := eval("lists.range(-3).size()")
	require.NoError(t, err)
	assert.Equal(t, int64(0), out)
	out, _, err = eval("lists.range(3)")
	require.NoError(t, err)
	assert.Len(t, out, 3)
	_, cost, err := eval("lists.range(1000000000000).size()")
	assert.EqualError(t, err, "operation cancelled: actual cost limit exceeded")
	assert.Greater(t, cost, uint64(1000000000000))
	_, _, err = eval("lists.range(1000000000000).exists(x, x == 1)", WithCostLimit(^uint64(0)))
	assert.ErrorContains(t, err, "lists.range: size 1000000000000 exceeds maximum allowed (1000000)")
}

// cidr(...).isMask(): stored expressions of 1.38 have it (CIDR library
// version 1, nominal cost), new ones (checked at 1.37) and 1.37's do not.
func TestCIDRIsMask(t *testing.T) {
	t138, err := kube.ParseTarget("1.38")
	require.NoError(t, err)
	stored := FlavorOf(t138, true)
	env, err := stored.NewEnv()
	require.NoError(t, err)
	for expr, want := range map[string]bool{
		"cidr('10.0.0.0/8').isMask()":          true,
		"cidr('10.0.0.1/8').isMask()":          false,
		"cidr('0.0.0.0/0').isMask()":           true,
		"cidr('2001:db8::1/128').isMask()":     true,
		"cidr('2001:db8::1/64').isMask()":      false,
		"cidr('10.0.0.1/8').masked().isMask()": true,
	} {
		ast, iss := env.Compile(expr)
		require.NoError(t, iss.Err(), expr)
		est, err := env.EstimateCost(ast, stored.CostEstimator())
		require.NoError(t, err)
		planner, err := NewPlanner(env, WithFlavor(stored))
		require.NoError(t, err)
		prg, err := planner.NewProgram(ast)
		require.NoError(t, err)
		out, cost, err := prg.Eval(context.Background(), map[string]any{})
		require.NoError(t, err, expr)
		assert.Equal(t, want, out.Value(), expr)
		// cidr() traverses its string; isMask costs 1.
		assert.Equal(t, cost, est.Max, expr)
	}
	for _, f := range []Flavor{FlavorOf(t138, false), StoredFlavor, NewExpressionsFlavor} {
		env, err := f.NewEnv()
		require.NoError(t, err)
		_, iss := env.Compile("cidr('10.0.0.0/8').isMask()")
		assert.ErrorContains(t, iss.Err(), "undeclared reference to 'isMask'", "%+v", f)
	}
}
