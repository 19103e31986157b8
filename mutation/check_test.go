package mutation_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// checkMAP is a MutatingAdmissionPolicy on Deployments with one
// ApplyConfiguration mutation, and its binding.
func checkMAP(failurePolicy, matchCondition, expression string) string {
	doc := "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  failurePolicy: " + failurePolicy +
		"\n  reinvocationPolicy: Never\n  matchConstraints:\n    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]\n"
	if matchCondition != "" {
		doc += fmt.Sprintf("  matchConditions: [{name: m, expression: %q}]\n", matchCondition)
	}
	return doc + fmt.Sprintf("  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration: {expression: %q}\n", expression) +
		"---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p}\n"
}

func TestCheckPatches(t *testing.T) {
	const field = "spec.mutations[0].applyConfiguration.expression"
	tests := []struct {
		name, failurePolicy, matchCondition, expression string
		// rule and severity of the one finding; "" for none
		rule     string
		severity mutation.Severity
		contains string
	}{
		{"granular map", "Fail", "", `Object{metadata: Object.metadata{labels: {"a": "b"}}}`, "", "", ""},
		{"associative list", "Fail", "", `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "c", image: "i"}]}}}}`, "", "", ""},
		{"atomic map", "Fail", "", `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}`, "atomic-write", mutation.SeverityError, ".spec.selector"},
		{"atomic list", "Fail", "", `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "c", args: ["x"]}]}}}}`, "atomic-write", mutation.SeverityError, ".spec.template.spec.containers[*].args"},
		{"atomic map under a match condition", "Fail", "true", `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}`, "atomic-write", mutation.SeverityWarning, ".spec.selector"},
		{"atomic map under Ignore", "Ignore", "", `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}`, "atomic-write", mutation.SeverityWarning, ".spec.selector"},
		{"atomic map in a branch", "Fail", "", `object.spec.paused ? Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}} : Object{}`, "atomic-write", mutation.SeverityWarning, ".spec.selector"},
		{"declared field", "Fail", "", `Object{spec: Object.spec{minReadySeconds: 3}}`, "", "", ""},
		{"undeclared field", "Fail", "", `Object{spec: Object.spec{replica: 3}}`, "no-such-field", mutation.SeverityError, ".spec.replica: field not declared in schema"},
		{"undeclared field in a branch", "Fail", "", `object.spec.paused ? Object{spec: Object.spec{replica: 3}} : Object{}`, "no-such-field", mutation.SeverityWarning, ".spec.replica"},
		{"wrong type", "Fail", "", `Object{spec: Object.spec{replicas: "3"}}`, "wrong-type", mutation.SeverityError, ".spec.replicas: expected numeric (int or float)"},
		{"wrong type in a branch", "Fail", "", `object.spec.paused ? Object{spec: Object.spec{paused: "no"}} : Object{}`, "wrong-type", mutation.SeverityWarning, ".spec.paused: expected boolean"},
		{"double for an int", "Fail", "", `Object{spec: Object.spec{replicas: 2.0}}`, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := mutation.Decode([]byte(checkMAP(tt.failurePolicy, tt.matchCondition, tt.expression)))
			require.NoError(t, err)
			findings, err := mutation.Check(objs, mutation.CheckOptions{})
			require.NoError(t, err)
			var got []mutation.Finding
			for _, f := range findings {
				if f.Rule == "atomic-write" || f.Rule == "wrong-type" || f.Rule == "no-such-field" && f.Field == field {
					got = append(got, f)
				}
			}
			if tt.rule == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1, "%+v", got)
			assert.Equal(t, tt.rule, got[0].Rule)
			assert.Equal(t, tt.severity, got[0].Severity)
			assert.Equal(t, field, got[0].Field)
			assert.Contains(t, got[0].Message, tt.contains)
		})
	}
}

func TestCheckIdempotence(t *testing.T) {
	policy := func(reinvocation, patch string) string {
		return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  reinvocationPolicy: " + reinvocation +
			"\n  matchConstraints:\n    resourceRules: [{apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n" +
			fmt.Sprintf("  mutations:\n  - patchType: JSONPatch\n    jsonPatch: {expression: %q}\n", patch) +
			"---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p}\n"
	}
	const counter = `[JSONPatch{op: "add", path: "/metadata/annotations", value: {"admissions": string(has(object.metadata.annotations) && "admissions" in object.metadata.annotations ? int(object.metadata.annotations["admissions"]) + 1 : 1)}}]`
	const set = `[JSONPatch{op: "add", path: "/metadata/annotations", value: {"owner": "team"}}]`
	tests := []struct {
		name, reinvocation, patch string
		want                      bool
	}{
		{"counter, IfNeeded", "IfNeeded", counter, true},
		{"counter, Never", "Never", counter, false},
		{"set, IfNeeded", "IfNeeded", set, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := mutation.Decode([]byte(policy(tt.reinvocation, tt.patch)))
			require.NoError(t, err)
			findings, err := mutation.Check(objs, mutation.CheckOptions{})
			require.NoError(t, err)
			var got []mutation.Finding
			for _, f := range findings {
				if f.Rule == "not-idempotent" {
					got = append(got, f)
				}
			}
			if !tt.want {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, mutation.SeverityWarning, got[0].Severity)
			assert.Equal(t, "spec.mutations[0].jsonPatch.expression", got[0].Field)
			assert.Contains(t, got[0].Message, "sample Pod v1")
		})
	}
}

func TestCheckJSONPatches(t *testing.T) {
	policy := func(failurePolicy, patch string) string {
		return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  failurePolicy: " + failurePolicy + "\n  reinvocationPolicy: Never" +
			"\n  matchConstraints:\n    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]\n" +
			fmt.Sprintf("  mutations:\n  - patchType: JSONPatch\n    jsonPatch: {expression: %q}\n", patch) +
			"---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p}\n"
	}
	tests := []struct {
		name, failurePolicy, patch string
		rule                       string
		severity                   mutation.Severity
		contains                   string
	}{
		{"declared field", "Fail", `[JSONPatch{op: "add", path: "/spec/minReadySeconds", value: 5}]`, "", "", ""},
		{"label", "Fail", `[JSONPatch{op: "add", path: "/metadata/labels/a~1b", value: "x"}]`, "", "", ""},
		{"list item", "Fail", `[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "c", "image": "i"}}]`, "", "", ""},
		{"unknown field", "Fail", `[JSONPatch{op: "add", path: "/spec/bogus", value: 5}]`, "no-such-field", mutation.SeverityError, `no field "spec.bogus"`},
		{"unknown field under Ignore", "Ignore", `[JSONPatch{op: "add", path: "/spec/bogus", value: 5}]`, "no-such-field", mutation.SeverityError, `no field "spec.bogus"`},
		{"unknown field after a test", "Fail", `[JSONPatch{op: "test", path: "/spec/paused", value: true}, JSONPatch{op: "add", path: "/spec/bogus", value: 5}]`, "no-such-field", mutation.SeverityWarning, `no field "spec.bogus"`},
		{"unknown field in a branch", "Fail", `object.spec.paused ? [JSONPatch{op: "add", path: "/spec/bogus", value: 5}] : []`, "no-such-field", mutation.SeverityWarning, `no field "spec.bogus"`},
		{"wrong type", "Fail", `[JSONPatch{op: "replace", path: "/spec/replicas", value: "3"}]`, "wrong-type", mutation.SeverityError, "a string for a number field"},
		{"remove unknown", "Fail", `[JSONPatch{op: "remove", path: "/spec/bogus"}]`, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := mutation.Decode([]byte(policy(tt.failurePolicy, tt.patch)))
			require.NoError(t, err)
			findings, err := mutation.Check(objs, mutation.CheckOptions{})
			require.NoError(t, err)
			var got []mutation.Finding
			for _, f := range findings {
				if f.Rule == "no-such-field" || f.Rule == "wrong-type" {
					got = append(got, f)
				}
			}
			if tt.rule == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1, "%+v", got)
			assert.Equal(t, tt.rule, got[0].Rule)
			assert.Equal(t, tt.severity, got[0].Severity)
			assert.Contains(t, got[0].Message, tt.contains)
		})
	}
}
