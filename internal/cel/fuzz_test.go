package cel

import (
	"context"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/stretchr/testify/require"
)

// fuzzCostLimit keeps fuzz evaluations short: cel-go's program, the
// reference, takes time quadratic in the cost.
const fuzzCostLimit = 5_000

// FuzzEval compiles arbitrary expressions in the base environment and
// evaluates them with cel-go's program (kube-apiserver's) and with Program:
// neither may panic, and both must give the same value, error and cost.
func FuzzEval(f *testing.F) {
	for _, seed := range []string{
		"url('https://a.b:8/c?d=1').getQuery()", "'abc'.find('[a-z]+')", "s.findAll(s, n)", "l.sum() + l.max()",
		"quantity('1Ki').add(quantity(s))", "ip('::1').family()", "cidr('10.0.0.0/8').containsIP(s)",
		"format.named(s).orValue(format.uuid()).validate(s)", "semver(s, true).major()", "isSemver(s)",
		"d.includes(1)", "[1, 2].exists(x, x > n)", "has(m.k) ? m.k : 'none'", "(n > 2 ? m : {'a': 'b'}).k",
		"m.?k.orValue('x')", "lists.range(n).map(i, i * i).filter(i, i % 2 == 0)", "s.split('').join('-')",
		"'%s %d'.format([s, n])", "sets.contains(l, [1])", "l.all(i, v, v > 0)", "dyn(l)[0] in [3, 4]",
		"optional.of(s).or(optional.none()).value()", "[?m.?k, ?optional.none()]", "int(s)", "s.matches('^h')",
	} {
		f.Add(seed, "hello", int64(3))
	}
	env, err := NewEnv(testVariables()...)
	require.NoError(f, err)
	planner, err := NewPlanner(env)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, expr, s string, n int64) {
		if len(expr) > 512 {
			return
		}
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			return
		}
		if _, err := env.EstimateCost(ast, &CostEstimator{}); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%s: estimate: %v", expr, err)
		}
		vars := testValues()
		vars["s"], vars["n"] = s, n
		got := evaluation{err: "program"}
		if prg, err := planner.NewProgram(ast, WithCostLimit(fuzzCostLimit)); err == nil {
			out, cost, err := prg.Eval(context.Background(), vars)
			got = outcome(out, cost, err)
		}
		if strings.Contains(got.err, "internal error") {
			t.Fatalf("%s (s=%q, n=%d): %s", expr, s, n, got.err)
		}
		if got.err == costLimitExceeded.Error() {
			// cel-go may first run a call whose work grows faster than its
			// arguments (lists.range(99999).distinct()), for hours.
			return
		}
		want := evaluation{err: "program"}
		if prg, err := env.Program(ast, append(ProgramOptions(), cel.CostLimit(fuzzCostLimit))...); err == nil {
			out, det, err := prg.Eval(vars)
			want = outcome(out, *det.ActualCost(), err)
		}
		if want != got {
			t.Fatalf("%s (s=%q, n=%d):\ncel-go:  %+v\nProgram: %+v", expr, s, n, want, got)
		}
	})
}
