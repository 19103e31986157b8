package cel

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linearSearchWork replays the operations of a cost stack on cel-go's stack
// (interpreter.refValStack: a slice searched linearly from the top) and
// returns the number of entries it examines.
type linearSearchWork struct {
	ids      []int64
	examined uint64
}

func (l *linearSearchWork) op(op stackOp, id int64) {
	if op == opPush {
		l.ids = append(l.ids, id)
		l.examined++
		return
	}
	for i := len(l.ids) - 1; i >= 0; i-- {
		l.examined++
		if l.ids[i] == id {
			l.ids = l.ids[:i]
			return
		}
	}
}

func planExpr(t testing.TB, expr string) *Program {
	t.Helper()
	env, err := NewEnv()
	require.NoError(t, err)
	ast, iss := env.Compile(expr)
	require.NoError(t, iss.Err())
	planner, err := NewPlanner(env)
	require.NoError(t, err)
	prg, err := planner.NewProgram(ast)
	require.NoError(t, err)
	return prg
}

// TestComprehensionWorkIsLinear proves the cause of kube-apiserver's
// quadratic evaluation time and its fix, by counting work, not time: on
// lists.range(n).exists(i, i < 0), cel-go's cost stack examines a number of
// entries that grows with n², this package's stack does a number of
// operations that grows with n, and the cost is kube-apiserver's 7n+12.
func TestComprehensionWorkIsLinear(t *testing.T) {
	var ourWork, celGoWork []uint64
	sizes := []int{100, 1000, 10000}
	for _, n := range sizes {
		prg := planExpr(t, "lists.range("+strconv.Itoa(n)+").exists(i, i < 0)")
		linear := &linearSearchWork{}
		out, cost, work, err := prg.eval(context.Background(), map[string]any{}, linear.op)
		require.NoError(t, err)
		assert.Equal(t, false, out.Value())
		assert.Equal(t, uint64(7*n+12), cost, "kube-apiserver's cost")
		ourWork = append(ourWork, work)
		celGoWork = append(celGoWork, linear.examined)
	}
	for i := 1; i < len(sizes); i++ {
		// n grows tenfold: linear work grows about tenfold, quadratic work
		// about a hundredfold.
		assert.Less(t, ourWork[i], 11*ourWork[i-1], "work of this package's stack at n=%d", sizes[i])
		assert.Greater(t, celGoWork[i], 90*celGoWork[i-1], "work of cel-go's stack at n=%d", sizes[i])
	}
	assert.Less(t, ourWork[2], uint64(30*sizes[2]), "operations per iteration")
}

// TestComprehensionAtTheCostLimit evaluates the largest range kube-apiserver
// evaluates under its cost limit, and one beyond it.
func TestComprehensionAtTheCostLimit(t *testing.T) {
	prg := planExpr(t, "lists.range(142855).exists(i, i < 0)")
	out, cost, work, err := prg.eval(context.Background(), map[string]any{}, nil)
	require.NoError(t, err)
	assert.Equal(t, false, out.Value())
	assert.Equal(t, uint64(999_997), cost)
	assert.Less(t, work, uint64(30*142855))

	prg = planExpr(t, "lists.range(142856).exists(i, i < 0)")
	_, cost, _, err = prg.eval(context.Background(), map[string]any{}, nil)
	require.EqualError(t, err, "operation cancelled: actual cost limit exceeded")
	assert.Equal(t, uint64(PerCallLimit+1), cost)
}

// BenchmarkComprehension shows evaluation time linear in the number of
// iterations; kube-apiserver takes about 0.26 s, 1.4 s and 14 s on a 2-core
// machine (see conformance/cel_bench_test.go for the side-by-side run).
func BenchmarkComprehension(b *testing.B) {
	for _, n := range []int{10000, 30000, 100000} {
		prg := planExpr(b, "lists.range("+strconv.Itoa(n)+").exists(i, i < 0)")
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := prg.Eval(context.Background(), map[string]any{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSuperlinearCallsStopBeforeRunning checks that calls whose work grows
// faster than their arguments fail before running when their cost exceeds
// the limit, with kube-apiserver's error and cost: at these sizes cel-go
// would first run 10¹¹ to 10¹² comparisons.
func TestSuperlinearCallsStopBeforeRunning(t *testing.T) {
	tests := []struct {
		expr string
		cost uint64
	}{
		// lists.range(n) costs n+11 (with the list creation), distinct and
		// sort 2n²+11, sets.contains 1+n·m.
		{"lists.range(999000).distinct()", 999011 + 2*999000*999000 + 11},
		{"lists.range(900000).sort()", 900011 + 2*900000*900000 + 11},
		{"lists.range(400000).sortBy(x, -x).size()", 0},
		{"sets.contains(lists.range(400000), lists.range(500000))", 400011 + 500011 + 1 + 400000*500000},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			prg := planExpr(t, tt.expr)
			_, cost, _, err := prg.eval(context.Background(), map[string]any{}, nil)
			require.EqualError(t, err, "operation cancelled: actual cost limit exceeded")
			if tt.cost != 0 {
				assert.Equal(t, tt.cost, cost)
			}
			assert.Greater(t, cost, uint64(PerCallLimit))
		})
	}
}

// TestSuperlinearCallsMatchCelGo compares, at sizes where cel-go finishes,
// the early failure with cel-go's program.
func TestSuperlinearCallsMatchCelGo(t *testing.T) {
	env, err := NewEnv(testVariables()...)
	require.NoError(t, err)
	for _, expr := range []string{
		"lists.range(1000).distinct()", "lists.range(700).distinct().size()", "lists.range(800).sort()",
		"lists.range(500).sort()", "lists.range(800).sortBy(x, -x)", "sets.contains(lists.range(1000), lists.range(1001))",
		"sets.equivalent(lists.range(800), lists.range(800))", "sets.intersects(lists.range(900), [1])",
		"dyn(lists.range(1000)).distinct()", "[lists.range(1000)].map(x, x.distinct().size())", "lists.range(-1).distinct()",
		"lists.range(1000).map(x, string(x)).sort()", "[l, lists.range(1000)].exists(x, x.distinct().size() > 5)",
	} {
		t.Run(expr, func(t *testing.T) {
			evalBoth(t, env, expr, testValues())
		})
	}
}

// TestReplaceResultIsBounded refuses a replace whose result would exceed
// maxReplaceResult, before building it, and builds smaller ones.
func TestReplaceResultIsBounded(t *testing.T) {
	thousand := "'" + strings.Repeat("a", 1000) + "'"
	tests := []struct {
		expr string
		err  string
		want int64
	}{
		{expr: thousand + ".replace('', " + thousand + ").size()", want: 1000 + 1001*1000},
		{expr: "[" + thousand + ".replace('', " + thousand + ")].all(x, x.replace('', x).size() > 0)",
			err: "replace: the result would have 1004006004000 bytes, more than the limit of 33554432"},
		{expr: "dyn(" + thousand + ".replace('', " + thousand + ")).replace('', " + thousand + ", 40000).size()",
			err: "replace: the result would have 41002000 bytes, more than the limit of 33554432"},
		{expr: "'abc'.replace('b', 'xyz', 0)", want: -1},
	}
	for _, tt := range tests {
		prg := planExpr(t, tt.expr)
		out, _, err := prg.Eval(context.Background(), map[string]any{})
		if tt.err != "" {
			require.EqualError(t, err, tt.err)
			continue
		}
		require.NoError(t, err)
		if tt.want >= 0 {
			assert.Equal(t, tt.want, out.Value())
		}
	}
}

// TestStepLimit stops an expression whose steps mostly cost nothing in
// kube-apiserver's cost model: the cost stays far below the cost limit, the
// steps reach the step limit.
func TestStepLimit(t *testing.T) {
	flood := "true" + strings.Repeat(" && true", 63)
	prg := planExpr(t, "lists.range(100000).all(i, "+flood+")")
	_, cost, _, err := prg.eval(context.Background(), map[string]any{}, nil)
	require.EqualError(t, err, "operation cancelled: evaluation step limit exceeded")
	assert.Less(t, cost, uint64(PerCallLimit/2), "the cost model charges little of this work")

	// The largest comprehensions within the cost limit stay within the step
	// limit.
	for _, expr := range []string{"lists.range(142855).exists(i, i < 0)", "lists.range(249997).all(i, true)", "lists.range(71427).map(i, i).size()"} {
		prg := planExpr(t, expr)
		_, cost, _, err := prg.eval(context.Background(), map[string]any{}, nil)
		require.NoError(t, err, expr)
		assert.LessOrEqual(t, cost, uint64(PerCallLimit), expr)
	}

	// Without a step limit, as kube-apiserver.
	env, err := NewEnv()
	require.NoError(t, err)
	planner, err := NewPlanner(env)
	require.NoError(t, err)
	ast, iss := env.Compile("lists.range(10000).all(i, " + flood + ")")
	require.NoError(t, iss.Err())
	unlimited, err := planner.NewProgram(ast, WithStepLimit(^uint64(0)))
	require.NoError(t, err)
	out, _, err := unlimited.Eval(context.Background(), map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, true, out.Value())
}

// TestFormatCountsItsOutput counts the text string.format writes as steps:
// formatting a large list many times costs little in kube-apiserver's model.
func TestFormatCountsItsOutput(t *testing.T) {
	prg := planExpr(t, "[lists.range(100000)].all(l, lists.range(1000).all(i, '%s'.format([l]).size() > 0))")
	_, cost, _, err := prg.eval(context.Background(), map[string]any{}, nil)
	require.EqualError(t, err, "operation cancelled: evaluation step limit exceeded")
	assert.Less(t, cost, uint64(PerCallLimit/2))

	prg = planExpr(t, "'%s'.format([lists.range(1000)]).size()")
	out, _, _, err := prg.eval(context.Background(), map[string]any{}, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(4890), out.Value())
}
