package cel

import (
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBaseEnvironment(t *testing.T) {
	env, err := NewEnv(cel.Variable("s", cel.StringType))
	require.NoError(t, err)
	tests := []struct {
		expr string
		want any
	}{
		{"s.upperAscii()", "ABC"},              // ext.Strings v2
		{"sets.contains([1, 2], [2])", true},   // ext.Sets
		{"[1, 2].all(i, v, v > i)", true},      // ext.TwoVarComprehensions
		{"lists.range(3)", []int64{0, 1, 2}},   // ext.Lists v3
		{"optional.of(s).orValue('x')", "abc"}, // optional types
		{"1 < 1.5", true},                      // cross-type numeric comparisons
		{"duration('1s') < duration('2s')", true},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			ast, iss := env.Compile(tt.expr)
			require.NoError(t, iss.Err())
			prg, err := env.Program(ast, ProgramOptions()...)
			require.NoError(t, err)
			out, _, err := prg.Eval(map[string]any{"s": "abc"})
			require.NoError(t, err)
			native, err := out.ConvertToNative(reflectTypeOf(tt.want))
			require.NoError(t, err)
			assert.Equal(t, tt.want, native)
		})
	}
}

func TestBaseEnvironmentRejects(t *testing.T) {
	env, err := NewEnv()
	require.NoError(t, err)
	for expr, want := range map[string]string{
		"duration('1x')":   "invalid duration argument",              // duration literal validator
		"'a'.matches('[')": "invalid matches argument",               // regex literal validator
		"[1, 'a']":         "expected type 'int' but found 'string'", // homogeneous literals
	} {
		_, iss := env.Compile(expr)
		require.Error(t, iss.Err(), expr)
		assert.Contains(t, iss.Err().Error(), want, expr)
	}
}
