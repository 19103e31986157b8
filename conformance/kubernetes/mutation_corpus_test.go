package kubernetes

import (
	"fmt"
	"math/rand/v2"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The corpus of mutating admission policies and bindings: base objects,
// each with each single change of every rule of kube-apiserver's
// validation (spec §6), then random combinations (seeded).

func mvBasePolicies() []*admissionregistrationv1.MutatingAdmissionPolicy {
	rules := func() *admissionregistrationv1.MatchResources {
		return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
			},
		}}}
	}
	simple := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replicas.example.com"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: rules(),
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{spec: Object.spec{replicas: 1}}"},
			}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	full := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "full"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
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
			Mutations: []admissionregistrationv1.Mutation{
				{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{
					Expression: "variables.over ? [JSONPatch{op: 'replace', path: '/spec/replicas', value: variables.limit}] : []",
				}},
				{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
					Expression: "Object{metadata: Object.metadata{labels: {'limited': string(variables.limit)}}}",
				}},
			},
			ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
		},
	}
	jsonPatch := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "label"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: rules(),
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{
				Expression: "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b'), value: 'x'}]",
			}}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	return []*admissionregistrationv1.MutatingAdmissionPolicy{simple, full, jsonPatch}
}

type mvPolicyChange struct {
	name  string
	apply func(p *admissionregistrationv1.MutatingAdmissionPolicy)
}

// mvMutationExpressions are expressions for mutations: those of the
// admission corpus and typed constructions right and wrong.
var mvMutationExpressions = append(append([]string(nil), admExpressions...),
	"Object{}",
	"  Object{metadata: Object.metadata{name: 'x'}}  ",
	"Object{spec: Object.spec{template: Object.spec.template{}}}",
	"Object{spec: Object.wrong{}}",
	"[JSONPatch{op: 'add', path: '/a', value: 1}]",
	"[JSONPatch{op: 'remove', path: '/a'}, JSONPatch{op: 'copy', from: '/a', path: '/b'}]",
	"JSONPatch{op: 'add', path: '/a'}",
	"[]",
	"[1]",
	"Object{}.x",
	"object",
	"params",
	"variables.replicas",
	"[JSONPatch{op: 'add', path: '/a', value: params.x}]",
	"Object{spec: Object.spec{replicas: variables.limit}}",
)

func mvPolicyChanges() []mvPolicyChange {
	var cs []mvPolicyChange
	add := func(name string, f func(p *admissionregistrationv1.MutatingAdmissionPolicy)) {
		cs = append(cs, mvPolicyChange{name, f})
	}
	for _, n := range []string{"", "Policy", "a.static.k8s.io", strings.Repeat("a", 254), "a_b"} {
		add(fmt.Sprintf("name=%q", n), func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Name = n })
	}
	for _, fp := range []string{"Fail", "", "Other"} {
		add(fmt.Sprintf("failurePolicy=%q", fp), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.FailurePolicy = admPtr(admissionregistrationv1.FailurePolicyType(fp))
		})
	}
	add("paramKind=nil", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.ParamKind = nil })
	for _, pk := range []admissionregistrationv1.ParamKind{
		{}, {APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "/", Kind: "x"}, {APIVersion: "a/b/c", Kind: "X"},
		{APIVersion: "Example.com/v1", Kind: "X"}, {APIVersion: "example.com/", Kind: "X"}, {APIVersion: "example.com/v1", Kind: "Bad_Kind"},
	} {
		add(fmt.Sprintf("paramKind=%+v", pk), func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.ParamKind = pk.DeepCopy() })
	}
	for i, mm := range admMatchResourcesMutations() {
		add(fmt.Sprintf("matchConstraints[%d]", i), func(p *admissionregistrationv1.MutatingAdmissionPolicy) { mm(&p.Spec.MatchConstraints) })
	}
	for _, ops := range [][]admissionregistrationv1.OperationType{{"DELETE"}, {"*"}, {"CONNECT", "UPDATE"}, {"DELETE", "PATCH", ""}} {
		add(fmt.Sprintf("operations=%v", ops), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			if p.Spec.MatchConstraints != nil && len(p.Spec.MatchConstraints.ResourceRules) > 0 {
				p.Spec.MatchConstraints.ResourceRules[0].Operations = append([]admissionregistrationv1.OperationType(nil), ops...)
			}
		})
	}
	for i, mcs := range admMatchConditionSets() {
		add(fmt.Sprintf("matchConditions[%d]", i), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConditions = append([]admissionregistrationv1.MatchCondition(nil), mcs...)
		})
	}
	for i, vs := range [][]admissionregistrationv1.Variable{
		nil,
		{{Name: "a", Expression: "1"}},
		{{Name: "a", Expression: "1"}, {Name: "b", Expression: "variables.a + 1 == 2"}},
		{{Name: "b", Expression: "variables.a"}, {Name: "a", Expression: "1"}},
		{{Name: "a", Expression: "1 +"}, {Name: "b", Expression: "variables.a.foo"}},
		{{Name: "", Expression: ""}, {Name: " ", Expression: " "}, {Name: "1a", Expression: "true"}, {Name: "in", Expression: "true"}, {Name: "a-b", Expression: "true"}},
		{{Name: "p", Expression: "params.x"}},
		{{Name: "o", Expression: "Object{}"}},
		{{Name: "auth", Expression: "authorizer.group('').resource('pods').check('get').allowed()"}},
	} {
		add(fmt.Sprintf("variables[%d]", i), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Variables = append([]admissionregistrationv1.Variable(nil), vs...)
		})
	}
	for i, e := range admExpressions {
		add(fmt.Sprintf("variable=expression[%d]", i), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Variables = append(p.Spec.Variables, admissionregistrationv1.Variable{Name: fmt.Sprintf("e%d", i), Expression: e})
		})
	}
	add("mutations=nil", func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.Mutations = nil })
	add("mutations=empty", func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		p.Spec.Mutations = []admissionregistrationv1.Mutation{}
	})
	ac := func(e string) *admissionregistrationv1.ApplyConfiguration {
		return &admissionregistrationv1.ApplyConfiguration{Expression: e}
	}
	jp := func(e string) *admissionregistrationv1.JSONPatch {
		return &admissionregistrationv1.JSONPatch{Expression: e}
	}
	for i, m := range []admissionregistrationv1.Mutation{
		{},
		{PatchType: "Merge"},
		{PatchType: "applyconfiguration", ApplyConfiguration: ac("Object{}")},
		{PatchType: admissionregistrationv1.PatchTypeJSONPatch},
		{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration},
		{PatchType: admissionregistrationv1.PatchTypeJSONPatch, ApplyConfiguration: ac("Object{}")},
		{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, JSONPatch: jp("[]")},
		{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: jp("[]"), ApplyConfiguration: ac("Object{}")},
		{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: ac(" \n")},
		{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: jp("")},
		{PatchType: "", JSONPatch: jp("[]")},
	} {
		add(fmt.Sprintf("mutation[%d]", i), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = append(p.Spec.Mutations, *m.DeepCopy())
		})
	}
	for i, e := range mvMutationExpressions {
		add(fmt.Sprintf("applyConfiguration=expression[%d]", i), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: ac(e)})
		})
		add(fmt.Sprintf("jsonPatch=expression[%d]", i), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = append(p.Spec.Mutations, admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: jp(e)})
		})
	}
	for _, r := range []string{"Never", "IfNeeded", "", "never", "Always"} {
		add(fmt.Sprintf("reinvocationPolicy=%q", r), func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.ReinvocationPolicy = admissionregistrationv1.ReinvocationPolicyType(r)
		})
	}
	return cs
}

// mvPolicyCorpus is each base policy with each change, then n random
// combinations of one to four changes.
func mvPolicyCorpus(n int) []*admissionregistrationv1.MutatingAdmissionPolicy {
	bases := mvBasePolicies()
	changes := mvPolicyChanges()
	out := append([]*admissionregistrationv1.MutatingAdmissionPolicy(nil), bases...)
	for _, b := range bases {
		for _, c := range changes {
			p := b.DeepCopy()
			c.apply(p)
			out = append(out, p)
		}
	}
	r := rand.New(rand.NewPCG(3962, 1))
	for range n {
		p := bases[r.IntN(len(bases))].DeepCopy()
		for range 1 + r.IntN(4) {
			changes[r.IntN(len(changes))].apply(p)
		}
		out = append(out, p)
	}
	return out
}

func mvBindingCorpus(n int) []*admissionregistrationv1.MutatingAdmissionPolicyBinding {
	base := []*admissionregistrationv1.MutatingAdmissionPolicyBinding{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "binding"},
			Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "replicas.example.com"},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "full-binding"},
			Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
				PolicyName: "full",
				ParamRef:   &admissionregistrationv1.ParamRef{Name: "limits", Namespace: "default", ParameterNotFoundAction: admPtr(admissionregistrationv1.DenyAction)},
				MatchResources: &admissionregistrationv1.MatchResources{
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
					ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{"CREATE"},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
					}}},
				},
			},
		},
	}
	type change func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding)
	var changes []change
	for _, n := range []string{"", "Binding", "x.static.k8s.io", strings.Repeat("b", 254)} {
		changes = append(changes, func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { b.Name = n })
	}
	for _, n := range []string{"", "Policy", "a..b", strings.Repeat("p", 254), "ok.example.com"} {
		changes = append(changes, func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { b.Spec.PolicyName = n })
	}
	changes = append(changes, func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { b.Spec.ParamRef = nil })
	for _, pr := range []admissionregistrationv1.ParamRef{
		{}, {Name: "a"}, {Name: "a", ParameterNotFoundAction: admPtr[admissionregistrationv1.ParameterNotFoundActionType]("")},
		{Name: "a", ParameterNotFoundAction: admPtr(admissionregistrationv1.AllowAction)},
		{Name: "a", ParameterNotFoundAction: admPtr[admissionregistrationv1.ParameterNotFoundActionType]("Ignore")},
		{Name: "a/b", Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: admPtr(admissionregistrationv1.DenyAction)},
		{Name: "..", ParameterNotFoundAction: admPtr(admissionregistrationv1.DenyAction)},
		{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b c"}}, Namespace: "NS", ParameterNotFoundAction: admPtr(admissionregistrationv1.DenyAction)},
		{Selector: &metav1.LabelSelector{}},
	} {
		changes = append(changes, func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { b.Spec.ParamRef = pr.DeepCopy() })
	}
	for _, mm := range admMatchResourcesMutations() {
		changes = append(changes, func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { mm(&b.Spec.MatchResources) })
	}
	for _, ops := range [][]admissionregistrationv1.OperationType{{"DELETE"}, {"*"}, {"CONNECT", "UPDATE", "DELETE"}} {
		changes = append(changes, func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			if b.Spec.MatchResources != nil && len(b.Spec.MatchResources.ResourceRules) > 0 {
				b.Spec.MatchResources.ResourceRules[0].Operations = append([]admissionregistrationv1.OperationType(nil), ops...)
			}
		})
	}
	out := append([]*admissionregistrationv1.MutatingAdmissionPolicyBinding(nil), base...)
	for _, b := range base {
		for _, c := range changes {
			x := b.DeepCopy()
			c(x)
			out = append(out, x)
		}
	}
	r := rand.New(rand.NewPCG(3962, 2))
	for range n {
		x := base[r.IntN(len(base))].DeepCopy()
		for range 1 + r.IntN(4) {
			changes[r.IntN(len(changes))](x)
		}
		out = append(out, x)
	}
	return out
}
