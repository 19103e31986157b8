package mutationcel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestExpressionChecker(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	ac := func(e string) admissionregistrationv1.Mutation {
		return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: e}}
	}
	jp := func(e string) admissionregistrationv1.Mutation {
		return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch,
			JSONPatch: &admissionregistrationv1.JSONPatch{Expression: e}}
	}
	path := field.NewPath("spec", "mutations").Index(0).Child("applyConfiguration", "expression")
	tests := []struct {
		name      string
		hasParams bool
		stored    []string
		variables [][2]string
		mutation  admissionregistrationv1.Mutation
		want      string // the error's text; empty: valid
	}{
		{name: "valid", mutation: ac(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`)},
		{name: "trimmed", mutation: ac("  Object{}\n"), want: ""},
		{name: "wrong type", mutation: ac(`"x"`),
			want: `spec.mutations[0].applyConfiguration.expression: Invalid value: "\"x\"": must evaluate to Object but got string`},
		{name: "includes is new in 1.37", mutation: ac(`[1].includes(1) ? Object{} : Object{}`),
			want: "spec.mutations[0].applyConfiguration.expression: Invalid value: \"[1].includes(1) ? Object{} : Object{}\": compilation failed: ERROR: <input>:1:13: undeclared reference to 'includes' (in container '')\n | [1].includes(1) ? Object{} : Object{}\n | ............^"},
		{name: "includes when stored", stored: []string{`[1].includes(1) ? Object{} : Object{}`}, mutation: ac(`[1].includes(1) ? Object{} : Object{}`)},
		{name: "variables typed in order", variables: [][2]string{{"n", `"x"`}, {"m", `variables.n + "y"`}},
			mutation: ac(`Object{metadata: Object.metadata{name: variables.m}}`)},
		{name: "variable of the wrong type", variables: [][2]string{{"n", `1`}},
			mutation: jp(`[JSONPatch{op: "add", path: variables.n}]`),
			want:     "spec.mutations[0].applyConfiguration.expression: Invalid value: \"[JSONPatch{op: \\\"add\\\", path: variables.n}]\": compilation failed: ERROR: <input>:1:27: expected type of field 'path' is 'string' but provided type is 'int'\n | [JSONPatch{op: \"add\", path: variables.n}]\n | ..........................^"},
		{name: "params without a paramKind", mutation: ac(`Object{metadata: Object.metadata{name: params.name}}`),
			want: "spec.mutations[0].applyConfiguration.expression: Invalid value: \"Object{metadata: Object.metadata{name: params.name}}\": compilation failed: ERROR: <input>:1:40: undeclared reference to 'params' (in container '')\n | Object{metadata: Object.metadata{name: params.name}}\n | .......................................^"},
		{name: "params with a paramKind", hasParams: true, mutation: ac(`Object{metadata: Object.metadata{name: params.name}}`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stored := func(e string) bool {
				for _, s := range tc.stored {
					if s == e {
						return true
					}
				}
				return false
			}
			x := c.NewExpressionChecker(tc.hasParams)
			for i, v := range tc.variables {
				require.Nil(t, x.Variable(v[0], v[1], stored(v[1]), field.NewPath("spec", "variables").Index(i).Child("expression")))
			}
			_, expr, _ := returnTypeOf(tc.mutation)
			got := x.Mutation(tc.mutation, stored(expr), path)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.want, got.Error())
		})
	}
}

func TestExpressionCheckerVariables(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	x := c.NewExpressionChecker(false)
	path := field.NewPath("spec", "variables").Index(0).Child("expression")
	got := x.Variable("o", `Object{}`, false, path)
	require.NotNil(t, got)
	assert.Equal(t, field.ErrorTypeInvalid, got.Type)
	assert.Contains(t, got.Detail, "undeclared reference to 'Object'")
	got = x.Variable("k", `jsonpatch.escapeKey("a/b")`, false, path)
	require.NotNil(t, got, "jsonpatch.escapeKey is only declared for mutations")
	assert.Contains(t, got.Detail, "undeclared reference to 'escapeKey'")
	// A variable that did not compile is declared dyn for the later ones.
	assert.Nil(t, x.Mutation(admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
		ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{spec: variables.o}`}}, false, path))
}
