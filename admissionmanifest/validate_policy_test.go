package admissionmanifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// validVAP is a valid, defaulted policy with params and variables.
func validVAP() *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replicas.example.com"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "rules.example.com/v1", Kind: "ReplicaLimit"},
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{"CREATE"},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				},
			}}},
			Variables: []admissionregistrationv1.Variable{
				{Name: "replicas", Expression: "object.spec.replicas"},
				{Name: "over", Expression: "variables.replicas > params.max"},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "!variables.over", MessageExpression: "'at most ' + string(params.max)"}},
		},
	}
	SetDefaultsValidatingAdmissionPolicy(p)
	return p
}

func TestValidatePolicyCreate(t *testing.T) {
	v := testValidator(t)
	tests := []struct {
		name   string
		mutate func(p *admissionregistrationv1.ValidatingAdmissionPolicy)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.ValidatingAdmissionPolicy) {}, nil},
		{"no match constraints, no validations", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints, p.Spec.Validations = nil, nil
		}, []string{
			`spec.matchConstraints: Required value`,
			`spec.validations: Required value: validations or auditAnnotations must contain at least one item`,
			`spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item`,
		}},
		{"match constraints", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{ResourceNames: []string{"a", "a", ".."}}}}
		}, []string{
			`spec.matchConstraints.matchPolicy: Required value`,
			`spec.matchConstraints.namespaceSelector: Required value`,
			`spec.matchConstraints.objectSelector: Required value`,
			`spec.matchConstraints.excludeResourceRules[0].resourceNames[1]: Duplicate value: "a"`,
			`spec.matchConstraints.excludeResourceRules[0].resourceNames[2]: Invalid value: "..": may not be '..'`,
			`spec.matchConstraints.excludeResourceRules[0].operations: Required value`,
			`spec.matchConstraints.excludeResourceRules[0].apiGroups: Required value`,
			`spec.matchConstraints.excludeResourceRules[0].apiVersions: Required value`,
			`spec.matchConstraints.excludeResourceRules[0].resources: Required value`,
			`spec.matchConstraints.resourceRules: Required value`,
		}},
		{"param kind", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "a/b/c", Kind: "Bad_Kind"}
		}, []string{
			`spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
			`spec.paramKind.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{"without params, params is undeclared", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.ParamKind = nil }, []string{
			"spec.variables[1].expression: Invalid value: \"variables.replicas > params.max\": compilation failed: ERROR: <input>:1:22: undeclared reference to 'params' (in container '')\n | variables.replicas > params.max\n | .....................^",
			"spec.validations[0].messageExpression: Invalid value: \"'at most ' + string(params.max)\": compilation failed: ERROR: <input>:1:21: undeclared reference to 'params' (in container '')\n | 'at most ' + string(params.max)\n | ....................^",
		}},
		{"variables in order", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "a", Expression: "variables.b"}, {Name: "b", Expression: "1"}, {Name: "in", Expression: " "}}
			p.Spec.Validations = []admissionregistrationv1.Validation{{Expression: "variables.b"}}
		}, []string{
			"spec.variables[0].expression: Invalid value: \"variables.b\": compilation failed: ERROR: <input>:1:10: undefined field 'b'\n | variables.b\n | .........^",
			`spec.variables[2].name: Invalid value: "in": must be a valid CEL identifier`,
			`spec.variables[2].expression: Required value: expression is not specified`,
			`spec.validations[0].expression: Invalid value: "variables.b": must evaluate to bool but got int`,
		}},
		{"no variables, variables is undeclared", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = nil
		}, []string{
			"spec.validations[0].expression: Invalid value: \"!variables.over\": compilation failed: ERROR: <input>:1:2: undeclared reference to 'variables' (in container '')\n | !variables.over\n | .^",
		}},
		{"the message expression has no authorizer", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations = []admissionregistrationv1.Validation{{
				Expression:        "authorizer.group('').resource('pods').check('get').allowed()",
				MessageExpression: "authorizer.group('').resource('pods').check('get').reason()",
				Message:           " line\nbreak ",
				Reason:            ptrTo[metav1.StatusReason]("NotFound"),
			}}
		}, []string{
			"spec.validations[0].messageExpression: Invalid value: \"authorizer.group('').resource('pods').check('get').reason()\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.group('').resource('pods').check('get').reason()\n | ^",
			`spec.validations[0].message: Invalid value: " line\nbreak ": must not contain line breaks`,
			`spec.validations[0].reason: Unsupported value: "NotFound": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`,
		}},
		{"audit annotations", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{
				{Key: "a/b", ValueExpression: " 1 "},
				{Key: "a/b", ValueExpression: "  "},
				{Key: "ok", ValueExpression: "'" + strings.Repeat("x", 5200) + "'"},
			}
		}, []string{
			`spec.auditAnnotations[0].key: Invalid value: "replicas.example.com/a/b": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
			`spec.auditAnnotations[0].valueExpression: Invalid value: " 1 ": must evaluate to one of [string null_type] but got int`,
			`spec.auditAnnotations[1].key: Invalid value: "replicas.example.com/a/b": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
			`spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified`,
			`spec.auditAnnotations[1].key: Duplicate value: "a/b"`,
			`spec.auditAnnotations[2].valueExpression: Required value: must not exceed 5120 bytes in length`,
		}},
		{"too many audit annotations, printed as kube-apiserver's internal type", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			for i := range 21 {
				p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: fmt.Sprintf("k%d", i), ValueExpression: "'v'"})
			}
		}, []string{
			`spec.auditAnnotations: Invalid value: [{"Key":"k0","ValueExpression":"'v'"},{"Key":"k1","ValueExpression":"'v'"},{"Key":"k2","ValueExpression":"'v'"},{"Key":"k3","ValueExpression":"'v'"},{"Key":"k4","ValueExpression":"'v'"},{"Key":"k5","ValueExpression":"'v'"},{"Key":"k6","ValueExpression":"'v'"},{"Key":"k7","ValueExpression":"'v'"},{"Key":"k8","ValueExpression":"'v'"},{"Key":"k9","ValueExpression":"'v'"},{"Key":"k10","ValueExpression":"'v'"},{"Key":"k11","ValueExpression":"'v'"},{"Key":"k12","ValueExpression":"'v'"},{"Key":"k13","ValueExpression":"'v'"},{"Key":"k14","ValueExpression":"'v'"},{"Key":"k15","ValueExpression":"'v'"},{"Key":"k16","ValueExpression":"'v'"},{"Key":"k17","ValueExpression":"'v'"},{"Key":"k18","ValueExpression":"'v'"},{"Key":"k19","ValueExpression":"'v'"},{"Key":"k20","ValueExpression":"'v'"}]: must not have more than 20 auditAnnotations`,
		}},
		{"match conditions see params, not variables", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "p", Expression: "params.on"}, {Name: "q", Expression: "params.on == true"}, {Name: "v", Expression: "variables.over"}}
		}, []string{
			`spec.matchConditions[0].expression: Invalid value: "params.on": must evaluate to bool but got dyn`,
			"spec.matchConditions[2].expression: Invalid value: \"variables.over\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.over\n | ^",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validVAP()
			tt.mutate(p)
			errs, warnings := v.ValidateValidatingAdmissionPolicy(p, nil)
			assert.Equal(t, tt.want, rendered(errs))
			assert.Empty(t, warnings)
		})
	}
}

// TestValidatePolicyUpdate137 is what kube-apiserver 1.37 does and 1.36 did
// not: on update, an expression the old policy had is compiled in 1.37's
// environment of stored expressions, which has the Lists library's
// includes().
func TestValidatePolicyUpdate137(t *testing.T) {
	v := testValidator(t)
	const includes = "[1, 2].includes(1)"
	old := validVAP()
	old.Spec.Validations = append(old.Spec.Validations, admissionregistrationv1.Validation{Expression: includes, MessageExpression: includes})
	old.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: includes}}
	old.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: includes}}

	errs, _ := v.ValidateValidatingAdmissionPolicy(old, nil)
	undeclared := "compilation failed: ERROR: <input>:1:16: undeclared reference to 'includes' (in container '')"
	var got []string
	for _, e := range errs {
		got = append(got, e.Field+": "+strings.SplitN(e.Detail, "\n", 2)[0])
	}
	assert.Equal(t, []string{
		"spec.matchConditions[0].expression: " + undeclared,
		"spec.validations[1].expression: " + undeclared,
		"spec.validations[1].messageExpression: " + undeclared,
		"spec.auditAnnotations[0].valueExpression: " + undeclared,
	}, got, "new expressions: no includes() before 1.38")

	// Stored: includes() compiles, and the types are checked.
	n := old.DeepCopy()
	n.Spec.MatchConditions = append(n.Spec.MatchConditions, admissionregistrationv1.MatchCondition{Name: "d", Expression: "true"})
	n.Spec.Variables = append(n.Spec.Variables, admissionregistrationv1.Variable{Name: "inc", Expression: includes})
	errs, _ = v.ValidateValidatingAdmissionPolicy(n, old)
	assert.Equal(t, []string{
		`spec.validations[1].messageExpression: Invalid value: "[1, 2].includes(1)": must evaluate to string but got bool`,
		`spec.auditAnnotations[0].valueExpression: Invalid value: "[1, 2].includes(1)": must evaluate to one of [string null_type] but got bool`,
	}, rendered(errs), "the variable is looked up among the old validations, as in kube-apiserver")
}

func TestValidatePolicyUpdateIgnoresUnchangedMatchConditions(t *testing.T) {
	v := testValidator(t)
	old := validVAP()
	old.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "1"}}
	n := old.DeepCopy()
	n.Spec.Validations[0].Message = "changed"
	errs, _ := v.ValidateValidatingAdmissionPolicy(n, old)
	assert.Empty(t, errs)
	n.Spec.ParamKind.Kind = "Other"
	errs, _ = v.ValidateValidatingAdmissionPolicy(n, old)
	assert.Equal(t, []string{`spec.matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int`}, rendered(errs), "a new paramKind revalidates them")
}

func TestValidateBinding(t *testing.T) {
	v := testValidator(t)
	tests := []struct {
		name string
		spec admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec
		want []string
	}{
		{"valid", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p", ValidationActions: []admissionregistrationv1.ValidationAction{"Deny"}}, nil},
		{"actions", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "P", ValidationActions: []admissionregistrationv1.ValidationAction{"Deny", "Warn", "Deny", "deny"}}, []string{
			`spec.policyName: Invalid value: "P": ` + dns1123Subdomain,
			`spec.validationActions[2]: Duplicate value: "Deny"`,
			`spec.validationActions[3]: Unsupported value: "deny": supported values: "Audit", "Deny", "Warn"`,
			`spec.validationActions: Invalid value: ["Deny","Warn","Deny","deny"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
		}},
		{"param ref", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "p",
			ValidationActions: []admissionregistrationv1.ValidationAction{"Audit"},
			ParamRef: &admissionregistrationv1.ParamRef{
				Name: "a/b", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b c"}},
				ParameterNotFoundAction: ptrTo[admissionregistrationv1.ParameterNotFoundActionType]("Ignore"),
			},
		}, []string{
			`spec.paramRef.name: Invalid value: "a/b": may not contain '/'`,
			`spec.paramRef.name: Forbidden: name and selector are mutually exclusive`,
			`spec.paramRef.selector.matchLabels: Invalid value: "b c": ` + labelValue,
			`spec.paramRef.selector: Forbidden: name and selector are mutually exclusive`,
			`spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"`,
		}},
		{"empty param ref", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: "p", ValidationActions: []admissionregistrationv1.ValidationAction{"Audit"}, ParamRef: &admissionregistrationv1.ParamRef{},
		}, []string{
			`spec.paramRef: Required value: one of name or selector must be specified`,
			`spec.paramRef.parameterNotFoundAction: Required value`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: tt.spec}
			SetDefaults(b)
			errs, _ := v.Validate(b, nil)
			assert.Equal(t, tt.want, rendered(errs))
			errs, _ = v.Validate(b, b.DeepCopy())
			assert.Equal(t, tt.want, rendered(errs), "an update validates alike")
		})
	}
}

// TestBindingDeclarativePerVersion: a binding's empty policyName and
// validationActions per version (TestValidateBinding has the rest). From
// 1.37 the registry's declarative validation reports them (no detail, after
// the other errors, the static name's too), and not on an update that keeps
// them, where 1.37's handwritten errors stand; 1.38 has no handwritten
// errors for them.
func TestBindingDeclarativePerVersion(t *testing.T) {
	const (
		policyName   = `spec.policyName: Required value`
		actions      = `spec.validationActions: Required value`
		actionsHW    = `spec.validationActions: Required value: at least one validation action is required`
		badParamName = `spec.paramRef.name: Invalid value: "a/b": may not contain '/'`
		static       = `metadata.name: Invalid value: "b.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`
	)
	tests := []struct {
		version                    kube.Version
		create, keep, fromNonEmpty []string
	}{
		{kube.V1_35, []string{policyName, badParamName, actionsHW, static}, []string{policyName, badParamName, actionsHW}, []string{policyName, badParamName, actionsHW}},
		{kube.V1_36, []string{policyName, badParamName, actionsHW, static}, []string{policyName, badParamName, actionsHW}, []string{policyName, badParamName, actionsHW}},
		{kube.V1_37, []string{badParamName, static, policyName, actions}, []string{policyName, badParamName, actionsHW}, []string{badParamName, policyName, actions}},
		{kube.V1_38, []string{badParamName, static, policyName, actions}, []string{badParamName}, []string{badParamName, policyName, actions}},
	}
	for _, tt := range tests {
		target, err := kube.TargetFor(tt.version)
		require.NoError(t, err)
		v := withOptions(t, Options{Kube: target, StaticNames: StaticNamesReserved})
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b.static.k8s.io"}}
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "a/b", ParameterNotFoundAction: ptrTo[admissionregistrationv1.ParameterNotFoundActionType]("Deny")}
		SetDefaults(b)
		errs, _ := v.Validate(b, nil)
		assert.Equal(t, tt.create, rendered(errs), "%s create", tt.version)
		errs, _ = v.Validate(b, b.DeepCopy())
		assert.Equal(t, tt.keep, rendered(errs), "%s update keeping them", tt.version)
		full := b.DeepCopy()
		full.Spec.PolicyName = "p"
		full.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{"Deny"}
		errs, _ = v.Validate(b, full)
		assert.Equal(t, tt.fromNonEmpty, rendered(errs), "%s update emptying them", tt.version)
	}
}

// TestOwnerReferences137 is the metadata validation of apimachinery v0.37
// (kube-apiserver 1.37), which indexes owner references and says Required
// where v0.36 said Invalid.
func TestOwnerReferences137(t *testing.T) {
	c := validVWC()
	c.OwnerReferences = []metav1.OwnerReference{{Name: "o", UID: "u", Kind: "K"}}
	errs, _ := testValidator(t).Validate(c, nil)
	assert.Equal(t, []string{`metadata.ownerReferences[0].apiVersion: Required value: must not be empty`}, rendered(errs))
}
