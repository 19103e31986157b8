package matchcond

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestPolicyValidator(t *testing.T) {
	c, err := NewAdmissionCompiler()
	require.NoError(t, err)
	path := field.NewPath("x")
	render := func(e *field.Error) string {
		if e == nil {
			return ""
		}
		return e.Error()
	}

	v := c.NewPolicyValidator(PolicyValidateOptions{HasParams: true, Composition: true})
	assert.Equal(t, "", render(v.Variable("a", "params.n + 1", false, path)))
	assert.Equal(t, "", render(v.Variable("b", "variables.a > 2", false, path)))
	assert.Equal(t, "x: Invalid value: \"variables.c\": compilation failed: ERROR: <input>:1:10: undefined field 'c'\n | variables.c\n | .........^",
		render(v.Variable("broken", "variables.c", false, path)), "a later variable is unknown")
	assert.Equal(t, "", render(v.Expression(PolicyValidation, "variables.b", false, path)), "variables.b is a bool")
	assert.Equal(t, `x: Invalid value: "variables.a": must evaluate to bool but got int`, render(v.Expression(PolicyValidation, "variables.a", false, path)))
	assert.Equal(t, `x: Invalid value: "variables.broken": must evaluate to bool but got dyn`,
		render(v.Expression(PolicyValidation, "variables.broken", false, path)), "a broken variable is dyn, and dyn is not bool")
	assert.Equal(t, `x: Invalid value: "variables.b": must evaluate to string but got bool`, render(v.Expression(PolicyMessage, "variables.b", false, path)))
	assert.Contains(t, render(v.Expression(PolicyMessage, "string(authorizer.group('').resource('pods').check('get').allowed())", false, path)),
		"undeclared reference to 'authorizer'", "no authorizer in a message expression")
	assert.Equal(t, "", render(v.Expression(PolicyValidation, "authorizer.group('').resource('pods').check('get').allowed()", false, path)))
	assert.Equal(t, "", render(v.Expression(PolicyAuditAnnotation, "null", false, path)))
	assert.Equal(t, `x: Invalid value: "1": must evaluate to one of [string null_type] but got int`, render(v.Expression(PolicyAuditAnnotation, "1", false, path)))
	assert.Contains(t, render(v.Expression(PolicyValidation, "[1].includes(1)", false, path)), "undeclared reference to 'includes'", "new expressions")
	assert.Equal(t, "", render(v.Expression(PolicyValidation, "[1].includes(1)", true, path)), "stored expressions")
	assert.Equal(t, "x: Invalid value: \"'a'.matches('[')\": compilation failed: ERROR: <input>:1:13: invalid matches argument\n | 'a'.matches('[')\n | ............^",
		render(v.Expression(PolicyValidation, "'a'.matches('[')", false, path)))
	assert.Equal(t, "x: Internal error: unknown kind of policy expression 0", render(v.Expression(0, "true", false, path)))

	// A later variable of the same name replaces the earlier one.
	assert.Equal(t, "", render(v.Variable("a", "'s'", false, path)))
	assert.Equal(t, "", render(v.Expression(PolicyMessage, "variables.a", false, path)))

	plain := c.NewPolicyValidator(PolicyValidateOptions{})
	assert.Equal(t, "x: Internal error: variable composition is not allowed", render(plain.Variable("a", "1", false, path)))
	assert.Contains(t, render(plain.Expression(PolicyValidation, "variables.a == 1", false, path)), "undeclared reference to 'variables'")
	assert.Contains(t, render(plain.Expression(PolicyValidation, "params == null", false, path)), "undeclared reference to 'params'")
}
