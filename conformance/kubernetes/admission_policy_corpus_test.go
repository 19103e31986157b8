package kubernetes

import (
	"fmt"
	"math/rand/v2"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The corpus of validating admission policies and bindings, built as the
// webhook corpus is.

func admBasePolicies() []*admissionregistrationv1.ValidatingAdmissionPolicy {
	rules := func() *admissionregistrationv1.MatchResources {
		return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
			},
		}}}
	}
	simple := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replicas.example.com"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: rules(),
			Validations:      []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5", Message: "too many replicas"}},
		},
	}
	full := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "full"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    admPtr(admissionregistrationv1.Ignore),
			ParamKind:        &admissionregistrationv1.ParamKind{APIVersion: "rules.example.com/v1", Kind: "ReplicaLimit"},
			MatchConstraints: rules(),
			MatchConditions: []admissionregistrationv1.MatchCondition{
				{Name: "not-system", Expression: "!request.userInfo.username.startsWith('system:')"},
			},
			Variables: []admissionregistrationv1.Variable{
				{Name: "replicas", Expression: "object.spec.replicas"},
				{Name: "limit", Expression: "params.maxReplicas"},
				{Name: "over", Expression: "variables.replicas > variables.limit"},
			},
			Validations: []admissionregistrationv1.Validation{
				{Expression: "!variables.over", MessageExpression: "'replicas must be at most ' + string(variables.limit)", Reason: admPtr(metav1.StatusReasonInvalid)},
				{Expression: "authorizer.group('apps').resource('deployments').check('scale').allowed()", Message: "no scaling"},
			},
			AuditAnnotations: []admissionregistrationv1.AuditAnnotation{
				{Key: "high-replica-count", ValueExpression: "'replicas ' + string(variables.replicas)"},
			},
		},
	}
	audit := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "audit-only"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: rules(),
			AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "'v'"}},
		},
	}
	return []*admissionregistrationv1.ValidatingAdmissionPolicy{simple, full, audit}
}

type admPolicyMutation struct {
	name  string
	apply func(p *admissionregistrationv1.ValidatingAdmissionPolicy)
}

// admMatchResources are match resources kube-apiserver accepts and rejects,
// applied to a policy's matchConstraints or a binding's matchResources.
func admMatchResourcesMutations() []func(m **admissionregistrationv1.MatchResources) {
	var ms []func(m **admissionregistrationv1.MatchResources)
	ms = append(ms, func(m **admissionregistrationv1.MatchResources) { *m = nil })
	ms = append(ms, func(m **admissionregistrationv1.MatchResources) { *m = &admissionregistrationv1.MatchResources{} })
	for _, p := range []string{"Exact", "", "exact"} {
		ms = append(ms, func(m **admissionregistrationv1.MatchResources) {
			if *m != nil {
				(*m).MatchPolicy = admPtr(admissionregistrationv1.MatchPolicyType(p))
			}
		})
	}
	for _, sel := range admLabelSelectors() {
		ms = append(ms, func(m **admissionregistrationv1.MatchResources) {
			if *m != nil {
				(*m).NamespaceSelector = sel.DeepCopy()
			}
		}, func(m **admissionregistrationv1.MatchResources) {
			if *m != nil {
				(*m).ObjectSelector = sel.DeepCopy()
			}
		})
	}
	rule := func(names []string, ops []admissionregistrationv1.OperationType, groups, versions, resources []string, scope *admissionregistrationv1.ScopeType) admissionregistrationv1.NamedRuleWithOperations {
		return admissionregistrationv1.NamedRuleWithOperations{ResourceNames: names, RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: scope},
		}}
	}
	for _, r := range []admissionregistrationv1.NamedRuleWithOperations{
		rule([]string{"a", "a", "b/c", "..", ".", "%", ""}, []admissionregistrationv1.OperationType{"CREATE"}, []string{""}, []string{"v1"}, []string{"pods"}, nil),
		rule(nil, nil, nil, nil, nil, admPtr[admissionregistrationv1.ScopeType]("x")),
		rule(nil, []admissionregistrationv1.OperationType{"*", "DELETE"}, []string{"*", "x"}, []string{"*"}, []string{"*", "a/b", "*/*"}, nil),
		rule([]string{"ok"}, []admissionregistrationv1.OperationType{"CONNECT"}, []string{""}, []string{"v1"}, []string{"pods/exec"}, admPtr(admissionregistrationv1.NamespacedScope)),
	} {
		ms = append(ms, func(m **admissionregistrationv1.MatchResources) {
			if *m != nil {
				(*m).ResourceRules = append((*m).ResourceRules, *r.DeepCopy())
			}
		}, func(m **admissionregistrationv1.MatchResources) {
			if *m != nil {
				(*m).ExcludeResourceRules = append((*m).ExcludeResourceRules, *r.DeepCopy())
			}
		})
	}
	ms = append(ms, func(m **admissionregistrationv1.MatchResources) {
		if *m != nil {
			(*m).ResourceRules = nil
		}
	})
	return ms
}

func admPolicyMutations() []admPolicyMutation {
	var ms []admPolicyMutation
	add := func(name string, f func(p *admissionregistrationv1.ValidatingAdmissionPolicy)) {
		ms = append(ms, admPolicyMutation{name, f})
	}
	for _, n := range []string{"", "Policy", "a.static.k8s.io", strings.Repeat("a", 254), "a_b", strings.Repeat("p", 250) + ".x"} {
		add(fmt.Sprintf("name=%q", n), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Name = n })
	}
	for _, fp := range []string{"Fail", "", "Other"} {
		add(fmt.Sprintf("failurePolicy=%q", fp), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.FailurePolicy = admPtr(admissionregistrationv1.FailurePolicyType(fp))
		})
	}
	add("paramKind=nil", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.ParamKind = nil })
	for _, pk := range []admissionregistrationv1.ParamKind{
		{}, {APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "/", Kind: "x"}, {APIVersion: "a/b/c", Kind: "X"},
		{APIVersion: "Example.com/v1", Kind: "X"}, {APIVersion: "example.com/", Kind: "X"}, {APIVersion: "example.com/V1", Kind: "X"},
		{APIVersion: "example.com/v1", Kind: "Bad_Kind"}, {APIVersion: "example.com/v1", Kind: "1x"}, {APIVersion: "/v1", Kind: "MyKind"},
	} {
		add(fmt.Sprintf("paramKind=%+v", pk), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = pk.DeepCopy()
		})
	}
	for i, mm := range admMatchResourcesMutations() {
		add(fmt.Sprintf("matchConstraints[%d]", i), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { mm(&p.Spec.MatchConstraints) })
	}
	for i, mcs := range admMatchConditionSets() {
		add(fmt.Sprintf("matchConditions[%d]", i), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConditions = append([]admissionregistrationv1.MatchCondition(nil), mcs...)
		})
	}
	// Variables.
	for i, vs := range [][]admissionregistrationv1.Variable{
		nil,
		{{Name: "a", Expression: "1"}},
		{{Name: "a", Expression: "1"}, {Name: "b", Expression: "variables.a + 1 == 2"}},
		{{Name: "b", Expression: "variables.a"}, {Name: "a", Expression: "1"}},
		{{Name: "a", Expression: "variables.a"}},
		{{Name: "a", Expression: "1 +"}, {Name: "b", Expression: "variables.a.foo"}},
		{{Name: "a", Expression: "'x'"}, {Name: "a", Expression: "1"}, {Name: "b", Expression: "variables.a + 1"}},
		{{Name: "", Expression: ""}, {Name: " ", Expression: " "}, {Name: "1a", Expression: "true"}, {Name: "in", Expression: "true"}, {Name: "a-b", Expression: "true"}},
		{{Name: "_ok", Expression: "[1, 2]"}, {Name: "m", Expression: "{'a': [1]}"}, {Name: "o", Expression: "object"}, {Name: "t", Expression: "type(1)"}},
		{{Name: "p", Expression: "params.x"}},
		{{Name: "auth", Expression: "authorizer.group('').resource('pods').check('get').allowed()"}},
		{{Name: "inc", Expression: "[1].includes(1)"}},
		{{Name: "re", Expression: "'a'.matches('[')"}},
	} {
		add(fmt.Sprintf("variables[%d]", i), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = append([]admissionregistrationv1.Variable(nil), vs...)
		})
	}
	for i, e := range admExpressions {
		add(fmt.Sprintf("variable=expression[%d]", i), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = append(p.Spec.Variables, admissionregistrationv1.Variable{Name: fmt.Sprintf("e%d", i), Expression: e})
		})
	}
	// Validations.
	add("validations=none", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.Validations = nil })
	add("validations+audit=none", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.Validations, p.Spec.AuditAnnotations = nil, nil
	})
	add("validations+audit=empty", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.Validations, p.Spec.AuditAnnotations = []admissionregistrationv1.Validation{}, []admissionregistrationv1.AuditAnnotation{}
	})
	for i, e := range admExpressions {
		add(fmt.Sprintf("validation.expression[%d]", i), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: e})
		})
		add(fmt.Sprintf("validation.messageExpression[%d]", i), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: "true", MessageExpression: e})
		})
		add(fmt.Sprintf("audit.valueExpression[%d]", i), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: fmt.Sprintf("k%d", i), ValueExpression: e})
		})
	}
	for _, me := range []string{"'message'", "object.metadata.name", "'a' + string(1)", "authorizer.group('').resource('pods').check('get').reason()", "params.m", "variables.a", "  'padded'  ", " ", "\t", "1 +\n 'x'"} {
		add(fmt.Sprintf("messageExpression=%q", me), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			if len(p.Spec.Validations) > 0 {
				p.Spec.Validations[0].MessageExpression = me
			}
		})
	}
	for _, m := range []string{"", " ", "line\nbreak", "  trailing\n", "\r", "ok message", " padded "} {
		add(fmt.Sprintf("message=%q", m), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			if len(p.Spec.Validations) > 0 {
				p.Spec.Validations[0].Message = m
			}
		})
	}
	for _, r := range []string{"Forbidden", "Invalid", "RequestEntityTooLarge", "", "NotFound", "<x>"} {
		add(fmt.Sprintf("reason=%q", r), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			if len(p.Spec.Validations) > 0 {
				p.Spec.Validations[0].Reason = admPtr(metav1.StatusReason(r))
			}
		})
	}
	add("validation=blank", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: "  "})
	})
	// Audit annotations.
	for _, k := range []string{"", "ok", "a/b", "UPPER_case.x", "-bad", strings.Repeat("k", 63), strings.Repeat("k", 64), "k"} {
		add(fmt.Sprintf("audit.key=%q", k), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: k, ValueExpression: "'v'"})
		})
	}
	add("audit.long-value", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: "long", ValueExpression: "'" + strings.Repeat("v", 5200) + "'"})
	})
	add("audit.value-5120", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: "edge", ValueExpression: "  '" + strings.Repeat("v", 5118) + "'  "})
	})
	add("audit.value-padded", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: "pad", ValueExpression: "\n  1 +  "})
	})
	add("audit.21", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		for i := 0; i < 21; i++ {
			p.Spec.AuditAnnotations = append(p.Spec.AuditAnnotations, admissionregistrationv1.AuditAnnotation{Key: fmt.Sprintf("a%d", i%19), ValueExpression: "'v'"})
		}
	})
	return ms
}

// admPolicyCorpus is each base policy with each mutation, then n random
// combinations.
func admPolicyCorpus(n int) []*admissionregistrationv1.ValidatingAdmissionPolicy {
	bases := admBasePolicies()
	muts := admPolicyMutations()
	out := append([]*admissionregistrationv1.ValidatingAdmissionPolicy(nil), bases...)
	for _, b := range bases {
		for _, m := range muts {
			p := b.DeepCopy()
			m.apply(p)
			out = append(out, p)
		}
	}
	r := rand.New(rand.NewPCG(3488, 5793))
	for range n {
		p := bases[r.IntN(len(bases))].DeepCopy()
		for range 1 + r.IntN(4) {
			muts[r.IntN(len(muts))].apply(p)
		}
		out = append(out, p)
	}
	return out
}

func admBindingCorpus(n int) []*admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	base := []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "binding"},
			Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replicas.example.com", ValidationActions: []admissionregistrationv1.ValidationAction{"Deny"}},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "full-binding"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        "full",
				ParamRef:          &admissionregistrationv1.ParamRef{Name: "limits", Namespace: "default", ParameterNotFoundAction: admPtr(admissionregistrationv1.DenyAction)},
				MatchResources:    &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}},
				ValidationActions: []admissionregistrationv1.ValidationAction{"Warn", "Audit"},
			},
		},
	}
	type mut func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	var muts []mut
	for _, n := range []string{"", "Binding", "x.static.k8s.io", strings.Repeat("b", 254)} {
		muts = append(muts, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) { b.Name = n })
	}
	for _, n := range []string{"", "Policy", "a..b", strings.Repeat("p", 254), "ok.example.com"} {
		muts = append(muts, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) { b.Spec.PolicyName = n })
	}
	muts = append(muts, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) { b.Spec.ParamRef = nil })
	for _, pr := range []admissionregistrationv1.ParamRef{
		{}, {Name: "a"}, {Name: "a", ParameterNotFoundAction: admPtr[admissionregistrationv1.ParameterNotFoundActionType]("")},
		{Name: "a", ParameterNotFoundAction: admPtr(admissionregistrationv1.AllowAction)},
		{Name: "a", ParameterNotFoundAction: admPtr[admissionregistrationv1.ParameterNotFoundActionType]("Ignore")},
		{Name: "a/b", Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: admPtr(admissionregistrationv1.DenyAction)},
		{Name: "..", ParameterNotFoundAction: admPtr(admissionregistrationv1.DenyAction)},
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b c"}}, Namespace: "NS", ParameterNotFoundAction: admPtr(admissionregistrationv1.DenyAction)},
		{Selector: &metav1.LabelSelector{}},
	} {
		muts = append(muts, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) { b.Spec.ParamRef = pr.DeepCopy() })
	}
	for _, mm := range admMatchResourcesMutations() {
		muts = append(muts, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) { mm(&b.Spec.MatchResources) })
	}
	for _, va := range [][]admissionregistrationv1.ValidationAction{nil, {}, {"Deny", "Warn"}, {"Audit", "Audit"}, {"deny"}, {""}, {"Warn", "Deny", "Warn", "Other"}, {"Audit", "Warn", "Deny"}} {
		muts = append(muts, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
			b.Spec.ValidationActions = append([]admissionregistrationv1.ValidationAction(nil), va...)
		})
	}
	out := append([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding(nil), base...)
	for _, b := range base {
		for _, m := range muts {
			c := b.DeepCopy()
			m(c)
			out = append(out, c)
		}
	}
	r := rand.New(rand.NewPCG(3488, 1))
	for range n {
		c := base[r.IntN(len(base))].DeepCopy()
		for range 1 + r.IntN(4) {
			muts[r.IntN(len(muts))](c)
		}
		out = append(out, c)
	}
	return out
}
