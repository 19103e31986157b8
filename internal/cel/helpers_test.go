package cel

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/stretchr/testify/require"
)

func reflectTypeOf(v any) reflect.Type { return reflect.TypeOf(v) }

// testVariables are the variables the table tests may read.
func testVariables() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Variable("s", cel.StringType),
		cel.Variable("n", cel.IntType),
		cel.Variable("l", cel.ListType(cel.IntType)),
		cel.Variable("m", cel.MapType(cel.StringType, cel.StringType)),
		cel.Variable("d", cel.DynType),
	}
}

func testValues() map[string]any {
	return map[string]any{
		"s": "hello",
		"n": int64(3),
		"l": []int64{3, 1, 2},
		"m": map[string]string{"k": "v"},
		"d": []any{int64(1), "a"},
	}
}

// evaluation is the outcome of evaluating an expression.
type evaluation struct {
	value string
	err   string
	cost  uint64
}

// evalBoth compiles expr and evaluates it with cel-go's program (with
// ProgramOptions) and with Program, asserts that they agree on the value,
// the error and the cost, and returns the outcome. The value is rendered
// with render.
func evalBoth(t *testing.T, env *cel.Env, expr string, vars map[string]any) evaluation {
	t.Helper()
	ast, iss := env.Compile(expr)
	require.NoError(t, iss.Err(), expr)

	prg, err := env.Program(ast, ProgramOptions()...)
	require.NoError(t, err)
	out, det, err := prg.Eval(vars)
	want := outcome(out, *det.ActualCost(), err)

	planner, err := NewPlanner(env)
	require.NoError(t, err)
	p, err := planner.NewProgram(ast)
	require.NoError(t, err)
	out, cost, err := p.Eval(context.Background(), vars)
	got := outcome(out, cost, err)
	require.Equal(t, want, got, "cel-go's program and Program differ on %s", expr)
	return got
}

func outcome(out ref.Val, cost uint64, err error) evaluation {
	if err != nil {
		return evaluation{err: err.Error(), cost: cost}
	}
	return evaluation{value: render(out), cost: cost}
}

// render renders a CEL value compactly: strings quoted, lists in brackets,
// maps sorted, optionals as optional(...), other values as their string
// conversion.
func render(v ref.Val) string {
	switch x := v.(type) {
	case types.String:
		return fmt.Sprintf("%q", string(x))
	case types.Bool, types.Int, types.Uint, types.Double:
		return fmt.Sprint(x.Value())
	case *types.Optional:
		if !x.HasValue() {
			return "none"
		}
		return "optional(" + render(x.GetValue()) + ")"
	case *types.Type:
		return "type:" + x.TypeName()
	case types.Duration:
		return "duration(" + x.Duration.String() + ")"
	case traits.Lister:
		var parts []string
		for it := x.Iterator(); it.HasNext() == types.True; {
			parts = append(parts, render(it.Next()))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case traits.Mapper:
		var parts []string
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			parts = append(parts, render(k)+": "+render(x.Get(k)))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	if s, err := v.ConvertToNative(reflect.TypeOf("")); err == nil {
		return v.Type().TypeName() + "(" + s.(string) + ")"
	}
	return v.Type().TypeName()
}

// libraryCase is one row of a library table: the expression and either the
// rendered value or the error text.
type libraryCase struct {
	expr string
	want string
	err  string
}

func runLibraryTable(t *testing.T, tests []libraryCase) {
	t.Helper()
	env, err := NewEnv(testVariables()...)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got := evalBoth(t, env, tt.expr, testValues())
			if tt.err != "" {
				require.Equal(t, tt.err, got.err)
				return
			}
			require.Empty(t, got.err)
			require.Equal(t, tt.want, got.value)
		})
	}
}
