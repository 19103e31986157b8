package cel

import (
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeclaredTypes(t *testing.T) {
	inner := NewObjectType("test.Inner", map[string]*cel.Type{"__if__": cel.IntType})
	obj := NewObjectType("test.Object", map[string]*cel.Type{
		"__namespace__": cel.StringType,
		"name":          cel.StringType,
		"inner":         inner.CelType(),
	})
	env, err := NewEnv(DeclaredTypes(obj, inner), cel.Variable("obj", obj.CelType()))
	require.NoError(t, err)
	vars := map[string]any{"obj": map[string]any{"namespace": "ns", "name": "n", "inner": map[string]any{"if": int64(2)}}}
	tests := []struct {
		expr       string
		want       string
		compileErr string
		evalErr    string
	}{
		{expr: "obj.namespace", want: `"ns"`},
		{expr: "obj.__namespace__", evalErr: "no such key: __namespace__"},
		{expr: "obj.inner.if + 1", want: "3"},
		{expr: "has(obj.namespace)", want: "true"},
		{expr: "obj.?name.orValue('x')", want: `"n"`},
		{expr: "obj.inner.__if__", evalErr: "no such key: __if__"},
		{expr: "obj.missing", compileErr: "undefined field 'missing'"},
		{expr: "obj.name.size()", want: "1"},
		{expr: "type(obj) == map", want: "true"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, iss := env.Compile(tt.expr)
			if tt.compileErr != "" {
				require.Error(t, iss.Err())
				assert.Contains(t, iss.Err().Error(), tt.compileErr)
				return
			}
			require.NoError(t, iss.Err())
			got := evalBoth(t, env, tt.expr, vars)
			if tt.evalErr != "" {
				assert.Equal(t, tt.evalErr, got.err)
				return
			}
			require.Empty(t, got.err)
			assert.Equal(t, tt.want, got.value)
		})
	}
}
