package admissionvalidation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestPolicyHead(t *testing.T) {
	path := field.NewPath("spec")
	other := admissionregistrationv1.FailurePolicyType("Other")
	assert.Equal(t, []string{
		`spec.failurePolicy: Required value`,
		`spec.matchConstraints: Required value`,
	}, errorStrings(PolicyHead(nil, nil, nil, path)))
	m := &admissionregistrationv1.MatchResources{}
	DefaultMatchResources(m)
	assert.Equal(t, []string{
		`spec.failurePolicy: Unsupported value: "Other": supported values: "Fail", "Ignore"`,
		`spec.paramKind.apiVersion: Required value`,
		`spec.paramKind.kind: Required value`,
		`spec.matchConstraints.resourceRules: Required value`,
	}, errorStrings(PolicyHead(&other, &admissionregistrationv1.ParamKind{}, m, path)))
}

func TestDefaultMatchResources(t *testing.T) {
	DefaultMatchResources(nil)
	exact := admissionregistrationv1.Exact
	m := &admissionregistrationv1.MatchResources{
		MatchPolicy:          &exact,
		ResourceRules:        []admissionregistrationv1.NamedRuleWithOperations{{}},
		ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{}},
	}
	DefaultMatchResources(m)
	assert.Equal(t, admissionregistrationv1.Exact, *m.MatchPolicy, "a field that is set is kept")
	assert.Equal(t, &metav1.LabelSelector{}, m.NamespaceSelector)
	assert.Equal(t, &metav1.LabelSelector{}, m.ObjectSelector)
	assert.Equal(t, admissionregistrationv1.AllScopes, *m.ResourceRules[0].Scope)
	assert.Equal(t, admissionregistrationv1.AllScopes, *m.ExcludeResourceRules[0].Scope)
}

func TestVariable(t *testing.T) {
	path := field.NewPath("spec", "variables").Index(0)
	compiled := 0
	compile := func() *field.Error { compiled++; return nil }
	assert.Equal(t, []string{
		`spec.variables[0].name: Invalid value: "while": must be a valid CEL identifier`,
	}, errorStrings(Variable(&admissionregistrationv1.Variable{Name: "while", Expression: "1"}, path, compile)))
	assert.Equal(t, 1, compiled)
	assert.Equal(t, []string{
		`spec.variables[0].name: Required value: name is not specified`,
		`spec.variables[0].expression: Required value: expression is not specified`,
	}, errorStrings(Variable(&admissionregistrationv1.Variable{Name: " ", Expression: "\t"}, path, compile)))
	assert.Equal(t, 1, compiled, "a blank expression is not compiled")
	assert.True(t, IsCELIdentifier("_a1"))
	assert.False(t, IsCELIdentifier("a-b"))
}
