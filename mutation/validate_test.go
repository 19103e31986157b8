package mutation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validPolicy() *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				}}},
			},
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{}"},
			}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	SetDefaultsPolicy(p)
	return p
}

func validBinding() *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "p"},
	}
	SetDefaultsBinding(b)
	return b
}

func errorStrings(errs field.ErrorList) []string {
	if len(errs) == 0 {
		return nil
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func newTestValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := NewValidator(ValidatorOptions{})
	require.NoError(t, err)
	return v
}

func TestValidatePolicyStructure(t *testing.T) {
	v := newTestValidator(t)
	for _, tc := range []struct {
		name   string
		modify func(p *admissionregistrationv1.MutatingAdmissionPolicy)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.MutatingAdmissionPolicy) {}, nil},
		{"name", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Name = "A_b" }, []string{
			`metadata.name: Invalid value: "A_b": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},
		{"failure policy", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.FailurePolicy = new(admissionregistrationv1.FailurePolicyType("Sometimes"))
		}, []string{`spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"`}},
		{"no failure policy", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.FailurePolicy = nil }, []string{`spec.failurePolicy: Required value`}},
		{"param kind", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "a/b/c"}
		}, []string{`spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`, `spec.paramKind.kind: Required value`}},
		{"no match constraints", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.MatchConstraints = nil }, []string{`spec.matchConstraints: Required value`}},
		{"no resource rules", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.MatchConstraints.ResourceRules = nil }, []string{`spec.matchConstraints.resourceRules: Required value`}},
		{"delete", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules[0].Operations = []admissionregistrationv1.OperationType{"DELETE", "CREATE", "PATCH"}
		}, []string{
			`spec.matchConstraints.resourceRules[0].operations[2]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`,
			`spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`,
			`spec.matchConstraints.resourceRules.operations: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "UPDATE"`,
		}},
		{"match conditions", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "true"}, {Name: "a", Expression: " "}, {Name: "b", Expression: "variables.x"}}
		}, []string{
			`spec.matchConditions[1].expression: Required value`,
			`spec.matchConditions[1].name: Duplicate value: "a"`,
			`spec.matchConditions[2].expression: Invalid value: "variables.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')
 | variables.x
 | ^`,
		}},
		{"variables", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: " ", Expression: ""}, {Name: "in", Expression: "1"}, {Name: "1a", Expression: "1"}}
		}, []string{
			`spec.variables[0].name: Required value: name is not specified`,
			`spec.variables[0].expression: Required value: expression is not specified`,
			`spec.variables[1].name: Invalid value: "in": must be a valid CEL identifier`,
			`spec.variables[2].name: Invalid value: "1a": must be a valid CEL identifier`,
		}},
		{"no mutations", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.Mutations = nil }, []string{
			`spec.mutations: Required value: mutations must contain at least one item`,
		}},
		{"mutations", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = []admissionregistrationv1.Mutation{
				{},
				{PatchType: "Merge"},
				{PatchType: admissionregistrationv1.PatchTypeJSONPatch, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{}},
				{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, JSONPatch: &admissionregistrationv1.JSONPatch{}},
				{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: " \n"}},
			}
		}, []string{
			`spec.mutations[0].patchType: Required value`,
			`spec.mutations[1].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"`,
			`spec.mutations[2].jsonPatch: Required value: must be specified when patchType is JSONPatch`,
			`spec.mutations[2].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch`,
			`spec.mutations[3].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration`,
			`spec.mutations[3].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration`,
			`spec.mutations[4].jsonPatch.expression: Required value`,
		}},
		{"reinvocation", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.ReinvocationPolicy = "Always" }, []string{
			`spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`,
		}},
		{"no reinvocation", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.ReinvocationPolicy = "" }, []string{
			`spec.reinvocationPolicy: Required value`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := validPolicy()
			tc.modify(p)
			assert.Equal(t, tc.want, errorStrings(v.ValidateMutatingAdmissionPolicy(p, nil)))
			assert.Equal(t, tc.want, errorStrings(v.Validate(p, nil)))
		})
	}
}

func TestValidatePolicyUpdateSkipsUnchangedMatchConditions(t *testing.T) {
	v := newTestValidator(t)
	old := validPolicy()
	old.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "a", Expression: "params.x"}}
	p := old.DeepCopy()
	assert.Len(t, v.ValidateMutatingAdmissionPolicy(p, nil), 1, "params is not declared without paramKind")
	assert.Empty(t, v.ValidateMutatingAdmissionPolicy(p, old), "unchanged match conditions and paramKind are not validated on update")
	p.Spec.MatchConditions[0].Name = "b"
	assert.Len(t, v.ValidateMutatingAdmissionPolicy(p, old), 1)
}

func TestValidateBinding(t *testing.T) {
	v := newTestValidator(t)
	for _, tc := range []struct {
		name   string
		modify func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.MutatingAdmissionPolicyBinding) {}, nil},
		{"policy name", func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { b.Spec.PolicyName = "" }, []string{`spec.policyName: Required value`}},
		{"param ref", func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "a", Selector: &metav1.LabelSelector{}}
		}, []string{
			`spec.paramRef.name: Forbidden: name and selector are mutually exclusive`,
			`spec.paramRef.selector: Forbidden: name and selector are mutually exclusive`,
			`spec.paramRef.parameterNotFoundAction: Required value`,
		}},
		{"match resources", func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}}}}
		}, []string{`spec.matchResources.matchPolicy: Required value`, `spec.matchResources.namespaceSelector: Required value`, `spec.matchResources.objectSelector: Required value`}},
		{"delete", func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}}}}
			SetDefaultsBinding(b)
		}, []string{`spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := validBinding()
			tc.modify(b)
			assert.Equal(t, tc.want, errorStrings(v.ValidateMutatingAdmissionPolicyBinding(b, nil)))
			assert.Equal(t, tc.want, errorStrings(v.Validate(b, b.DeepCopy())))
		})
	}
}

func TestValidateWrongTypes(t *testing.T) {
	v := newTestValidator(t)
	assert.Equal(t, []string{`<nil>: Internal error: cannot validate a *v1.ValidatingAdmissionPolicy`}, errorStrings(v.Validate(&admissionregistrationv1.ValidatingAdmissionPolicy{}, nil)))
	assert.Equal(t, []string{`<nil>: Internal error: cannot validate an update of a *v1.MutatingAdmissionPolicy from a *v1.MutatingAdmissionPolicyBinding`},
		errorStrings(v.Validate(validPolicy(), validBinding())))
	assert.Equal(t, []string{`<nil>: Internal error: no object to validate`}, errorStrings(v.ValidateMutatingAdmissionPolicy(nil, nil)))
}
