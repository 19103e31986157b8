package mutation

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/mutationcel"
)

// celChecks compiles a policy's variables and mutations for the Validator
// with mutationcel's checker, in kube-apiserver's environments of
// expressions.
type celChecks struct {
	x      *mutationcel.ExpressionChecker
	stored func(expression string) bool
}

// celExpressions is the Validator's expressions hook over compiler.
func celExpressions(compiler *mutationcel.Compiler) func(hasParams bool, stored func(string) bool) expressionChecks {
	return func(hasParams bool, stored func(string) bool) expressionChecks {
		return celChecks{x: compiler.NewExpressionChecker(hasParams), stored: stored}
	}
}

// variable compiles spec.variables[i] (path), reporting at its expression.
func (c celChecks) variable(v admissionregistrationv1.Variable, path *field.Path) *field.Error {
	return c.x.Variable(v.Name, v.Expression, c.stored(v.Expression), path.Child("expression"))
}

// mutation compiles spec.mutations[i] (path), reporting at the expression
// of its body.
func (c celChecks) mutation(m admissionregistrationv1.Mutation, path *field.Path) *field.Error {
	var expression string
	switch m.PatchType {
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			return nil
		}
		expression, path = m.ApplyConfiguration.Expression, path.Child("applyConfiguration", "expression")
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			return nil
		}
		expression, path = m.JSONPatch.Expression, path.Child("jsonPatch", "expression")
	default:
		return nil
	}
	return c.x.Mutation(m, c.stored(expression), path)
}
