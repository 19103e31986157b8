package policycheck_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatehouse-dev/gatehouse/internal/policycheck"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// vap is a ValidatingAdmissionPolicy on deployments (or the rule given)
// with one validation, and its binding.
func vap(rule, validation string) string {
	if rule == "" {
		rule = `{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}`
	}
	return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [` + rule + `]
  validations:
  - expression: "` + validation + `"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
`
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer}
              color: {type: string}
`

type findingWant struct {
	rule     string
	severity policycheck.Severity
	field    string
	contains string
}

func checkVAP(t *testing.T, doc string, opts validatingpolicy.CheckOptions) []validatingpolicy.Finding {
	t.Helper()
	objs, err := validatingpolicy.Decode([]byte(doc))
	require.NoError(t, err)
	findings, err := validatingpolicy.Check(objs, opts)
	require.NoError(t, err)
	return findings
}

func assertFindings(t *testing.T, want []findingWant, got []policycheck.Finding) {
	t.Helper()
	require.Len(t, got, len(want), "%+v", got)
	for i, w := range want {
		assert.Equal(t, w.rule, got[i].Rule)
		assert.Equal(t, w.severity, got[i].Severity)
		assert.Equal(t, w.field, got[i].Field)
		assert.Contains(t, got[i].Message+" "+got[i].Fix, w.contains)
	}
}

func TestUnknownResource(t *testing.T) {
	crds := validatingpolicy.CheckOptions{CRDs: [][]byte{[]byte(widgetCRD)}}
	tests := []struct {
		name string
		rule string
		opts validatingpolicy.CheckOptions
		want []findingWant
	}{
		{"served", `{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods", "pods/status", "*/scale"]}`, validatingpolicy.CheckOptions{}, nil},
		{"wildcards", `{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}`, validatingpolicy.CheckOptions{}, nil},
		{"singular", `{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pod"]}`, validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnknownResource, policycheck.Warning, "spec.matchConstraints.resourceRules[0].resources[0]", `did you mean "pods"?`}}},
		{"wrong group", `{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["deployments"]}`, validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnknownResource, policycheck.Warning, "spec.matchConstraints.resourceRules[0].resources[0]", `"deployments" is served in apps/v1`}}},
		{"unknown group", `{apiGroups: ["app"], apiVersions: ["v1"], operations: ["*"], resources: ["deployments"]}`, validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnknownResource, policycheck.Warning, "spec.matchConstraints.resourceRules[0].apiGroups[0]", `did you mean "apps"?`}}},
		{"wrong version", `{apiGroups: ["apps"], apiVersions: ["v1beta1"], operations: ["*"], resources: ["deployments"]}`, validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnknownResource, policycheck.Warning, "spec.matchConstraints.resourceRules[0].apiVersions[0]", `served: v1`}}},
		{"unknown subresource", `{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods/stats"]}`, validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnknownResource, policycheck.Warning, "spec.matchConstraints.resourceRules[0].resources[0]", `did you mean "pods/status"?`}}},
		{"crd given", `{apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["*"], resources: ["widgets"]}`, crds, nil},
		{"crd not given", `{apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["*"], resources: ["widgets"]}`, validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnknownResource, policycheck.Warning, "spec.matchConstraints.resourceRules[0].apiGroups[0]", `no API group "example.com"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertFindings(t, tt.want, checkVAP(t, vap(tt.rule, "true"), tt.opts))
		})
	}
}

func TestBindingsAndParams(t *testing.T) {
	const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  validations: [{expression: "true"}]
`
	binding := func(policyName, paramRef string) string {
		return "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: " + policyName + ", validationActions: [Deny]" + paramRef + "}\n"
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits", "namespace": "default"}}}
	ref := `, paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}`
	tests := []struct {
		name string
		doc  string
		opts validatingpolicy.CheckOptions
		want []findingWant
	}{
		{"bound with params", policy + binding("p", ref), validatingpolicy.CheckOptions{Params: []*unstructured.Unstructured{cm}}, nil},
		{"params not read", policy + binding("p", ref), validatingpolicy.CheckOptions{}, nil},
		{"unbound", policy, validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnboundPolicy, policycheck.Warning, "metadata.name", "never applies it"}}},
		{"binding of a missing policy", policy + binding("q", ref), validatingpolicy.CheckOptions{},
			[]findingWant{
				{policycheck.RuleUnboundPolicy, policycheck.Warning, "metadata.name", "never applies it"},
				{policycheck.RuleMissingPolicy, policycheck.Warning, "spec.policyName", `"q" is given`},
			}},
		{"params missing", policy + binding("p", ref), validatingpolicy.CheckOptions{Params: []*unstructured.Unstructured{}},
			[]findingWant{{policycheck.RuleMissingParams, policycheck.Warning, "spec.paramRef", `named "limits" in namespace "default"`}}},
		{"no paramRef", policy + binding("p", ""), validatingpolicy.CheckOptions{Params: []*unstructured.Unstructured{cm}},
			[]findingWant{{policycheck.RuleMissingParams, policycheck.Warning, "spec.paramRef", "no paramRef"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkVAP(t, tt.doc, tt.opts)
			// the findings come policy first, then bindings
			assertFindings(t, tt.want, got)
		})
	}
}

func TestUnguardedFields(t *testing.T) {
	crds := validatingpolicy.CheckOptions{CRDs: [][]byte{[]byte(widgetCRD)}}
	widgets := `{apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"]}`
	const vf = "spec.validations[0].expression"
	tests := []struct {
		name, rule, expr string
		opts             validatingpolicy.CheckOptions
		want             []findingWant
	}{
		{"always present", "", "object.spec.template.spec.containers.size() > 0", validatingpolicy.CheckOptions{}, nil},
		{"optional", "", "object.spec.minReadySeconds < 5", validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnguardedField, policycheck.Warning, vf, "object.spec.minReadySeconds may be absent"}}},
		{"defaulted", "", "object.spec.replicas < 5 && object.spec.template.spec.containers.all(c, c.imagePullPolicy != 'Always')", validatingpolicy.CheckOptions{}, nil},
		{"has guard", "", "!has(object.spec.minReadySeconds) || object.spec.minReadySeconds < 5", validatingpolicy.CheckOptions{}, nil},
		{"optional guard", "", "object.spec.?minReadySeconds.orValue(1) < 5", validatingpolicy.CheckOptions{}, nil},
		{"hasValue guard", "", "object.spec.template.spec.?securityContext.?runAsUser.hasValue() ? object.spec.template.spec.securityContext.runAsUser > 0 : true", validatingpolicy.CheckOptions{}, nil},
		{"map key", "", "object.metadata.labels['app'] == 'x'", validatingpolicy.CheckOptions{}, []findingWant{
			{policycheck.RuleUnguardedField, policycheck.Warning, vf, "object.metadata.labels['app'] may be absent"},
			{policycheck.RuleUnguardedField, policycheck.Warning, vf, "object.metadata.labels may be absent"},
		}},
		{"map key guarded", "", "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels['app'] == 'x'", validatingpolicy.CheckOptions{}, nil},
		{"item field", "", "object.spec.template.spec.containers.all(c, c.securityContext.privileged == false)", validatingpolicy.CheckOptions{}, []findingWant{
			{policycheck.RuleUnguardedField, policycheck.Warning, vf, "securityContext.privileged may be absent"},
			{policycheck.RuleUnguardedField, policycheck.Warning, vf, "object.spec.template.spec.containers[*].securityContext may be absent"},
		}},
		{"item field guarded", "", "object.spec.template.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)", validatingpolicy.CheckOptions{}, nil},
		{"never present", "", "object.replicas < 5", validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleNoSuchField, policycheck.Error, vf, "every matching request"}}},
		{"never present, short-circuited", "", "object.spec.template.spec.containers.size() > 1 || object.replicas < 5", validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleNoSuchField, policycheck.Warning, vf, "wherever it reads it"}}},
		{"field of another kind", `{apiGroups: ["", "apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods", "deployments"]}`, "object.spec.template.spec.containers.size() > 0", validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnguardedField, policycheck.Warning, vf, "no such field in Pod v1"}}},
		{"field of another kind, kind tested", `{apiGroups: ["", "apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods", "deployments"]}`, "object.kind != 'Deployment' || object.spec.template.spec.containers.size() > 0", validatingpolicy.CheckOptions{}, nil},
		{"has of a field no kind has", "", "object.spec.template.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.Privileged) || !c.securityContext.Privileged)", validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleNoSuchField, policycheck.Warning, vf, "has(object.spec.template.spec.containers[*].securityContext.Privileged) is always false"}}},
		{"has of an optional field", "", "object.spec.template.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || !c.securityContext.privileged)", validatingpolicy.CheckOptions{}, nil},
		{"crd required", widgets, "object.spec.size < 5", crds, nil},
		{"crd optional", widgets, "object.spec.color == 'red'", crds,
			[]findingWant{{policycheck.RuleUnguardedField, policycheck.Warning, vf, "optional in Widget example.com/v1"}}},
		{"crd no such field", widgets, "object.spec.colour == 'red'", crds,
			[]findingWant{{policycheck.RuleNoSuchField, policycheck.Error, vf, "Widget example.com/v1 has no such field"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertFindings(t, tt.want, checkVAP(t, vap(tt.rule, tt.expr), tt.opts))
		})
	}
}

// TestUnguardedFieldsEveryExpressionKind: match conditions, variables,
// validations, messageExpressions, audit annotations and mutations are
// all read.
func TestUnguardedFieldsEveryExpressionKind(t *testing.T) {
	const v = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}]
  matchConditions: [{name: m, expression: "object.spec.paused"}]
  variables: [{name: r, expression: "object.spec.minReadySeconds"}]
  validations: [{expression: "variables.r < 5 && object.spec.template.spec.nodeName != ''", messageExpression: "string(object.spec.template.spec.hostname)"}]
  auditAnnotations: [{key: k, valueExpression: "string(object.spec.template.spec.priority)"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
`
	got := checkVAP(t, v, validatingpolicy.CheckOptions{})
	var fields []string
	for _, f := range got {
		fields = append(fields, f.Field)
	}
	assert.Equal(t, []string{
		"spec.matchConditions[0].expression", "spec.variables[0].expression", "spec.validations[0].expression",
		"spec.validations[0].messageExpression", "spec.auditAnnotations[0].valueExpression",
	}, fields)

	const m = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{spec: Object.spec{replicas: object.spec.minReadySeconds + 1}}"}
  - patchType: JSONPatch
    jsonPatch: {expression: "[JSONPatch{op: 'add', path: '/spec/paused', value: object.spec.paused}]"}
  - patchType: JSONPatch
    jsonPatch: {expression: "has(object.spec.paused) ? [JSONPatch{op: 'add', path: '/spec/paused', value: object.spec.paused}] : []"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p}
`
	objs, err := mutation.Decode([]byte(m))
	require.NoError(t, err)
	mf, err := mutation.Check(objs, mutation.CheckOptions{})
	require.NoError(t, err)
	fields = nil
	for _, f := range mf {
		fields = append(fields, f.Field)
	}
	assert.Equal(t, []string{"spec.mutations[0].applyConfiguration.expression", "spec.mutations[1].jsonPatch.expression"}, fields)
}

func TestUnknownParamKind(t *testing.T) {
	policy := func(paramKind string) string {
		return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  paramKind: ` + paramKind + `
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  validations: [{expression: "true"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
`
	}
	crds := validatingpolicy.CheckOptions{CRDs: [][]byte{[]byte(widgetCRD)}}
	tests := []struct {
		name, paramKind string
		opts            validatingpolicy.CheckOptions
		want            []findingWant
	}{
		{"built-in", "{apiVersion: v1, kind: ConfigMap}", validatingpolicy.CheckOptions{}, nil},
		{"crd given", "{apiVersion: example.com/v1, kind: Widget}", crds, nil},
		{"crd not given", "{apiVersion: example.com/v1, kind: Widget}", validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnknownParamKind, policycheck.Warning, "spec.paramKind", "failed to find resource referenced by paramKind"}}},
		{"wrong version", "{apiVersion: v2, kind: ConfigMap}", validatingpolicy.CheckOptions{},
			[]findingWant{{policycheck.RuleUnknownParamKind, policycheck.Warning, "spec.paramKind", "/v2, Kind=ConfigMap"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertFindings(t, tt.want, checkVAP(t, policy(tt.paramKind), tt.opts))
		})
	}
}

func TestNullObject(t *testing.T) {
	rule := func(ops string) string {
		return `{apiGroups: ["apps"], apiVersions: ["v1"], operations: [` + ops + `], resources: ["deployments"]}`
	}
	const vf = "spec.validations[0].expression"
	tests := []struct {
		name, ops, expr string
		want            []findingWant
	}{
		{"oldObject on UPDATE", "UPDATE", "object.spec.replicas >= oldObject.spec.replicas", nil},
		{"oldObject on CREATE", "CREATE, UPDATE", "object.spec.replicas >= oldObject.spec.replicas",
			[]findingWant{{policycheck.RuleNullObject, policycheck.Warning, vf, "oldObject is null on CREATE requests"}}},
		{"oldObject guarded", "CREATE, UPDATE", "oldObject == null || object.spec.replicas >= oldObject.spec.replicas", nil},
		{"operation tested", "'*'", "request.operation != 'UPDATE' || object.spec.replicas >= oldObject.spec.replicas", nil},
		{"object on DELETE", "DELETE", "object.spec.replicas < 5",
			[]findingWant{{policycheck.RuleNullObject, policycheck.Warning, vf, "object is null on DELETE requests"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertFindings(t, tt.want, checkVAP(t, vap(rule(tt.ops), tt.expr), validatingpolicy.CheckOptions{}))
		})
	}
}

func TestCostNearLimit(t *testing.T) {
	const vf = "spec.validations[0].expression"
	tests := []struct {
		name, expr string
		want       []findingWant
	}{
		{"linear", "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/'))", nil},
		{"quadratic", "object.spec.template.spec.containers.all(c, object.spec.template.spec.containers.all(d, c.name == d.name || c.image != d.image))",
			[]findingWant{{policycheck.RuleCostNearLimit, policycheck.Warning, vf, "when the lists it iterates over hold 166 items"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkVAP(t, vap("", tt.expr), validatingpolicy.CheckOptions{})
			var cost []policycheck.Finding
			for _, f := range got {
				if f.Rule == policycheck.RuleCostNearLimit {
					cost = append(cost, f)
				}
			}
			assertFindings(t, tt.want, cost)
			for _, f := range cost {
				t.Log(f.Message)
			}
		})
	}
}

// TestCheckerConcurrent: one Checker of each engine checks from several
// goroutines at once (go test -race).
func TestCheckerConcurrent(t *testing.T) {
	vc, err := validatingpolicy.NewChecker(validatingpolicy.CheckOptions{CRDs: [][]byte{[]byte(widgetCRD)}})
	require.NoError(t, err)
	mc, err := mutation.NewChecker(mutation.CheckOptions{})
	require.NoError(t, err)
	v, err := validatingpolicy.Decode([]byte(vap("", "object.spec.minReadySeconds < 5 && object.spec.template.spec.containers.all(c, object.spec.template.spec.containers.all(d, c.name != d.name))")))
	require.NoError(t, err)
	m, err := mutation.Decode([]byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules: [{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments", "statefulsets"]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {'a': 'b'}}}}"}
`))
	require.NoError(t, err)
	want := vc.Check(v)
	wantM := mc.Check(m)
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 5 {
				assert.Equal(t, want, vc.Check(v))
				assert.Equal(t, wantM, mc.Check(m))
			}
		}()
	}
	for range 4 {
		<-done
	}
	assert.NotEmpty(t, want)
	assert.NotEmpty(t, wantM)
}
