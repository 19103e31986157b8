package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// --kube-version and --feature-gates give that Kubernetes' answers, and the
// text says which answered.
func TestKubeVersionFlag(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "authz.yaml")
	assert.NoError(t, os.WriteFile(config, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: webhook
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: /etc/kubernetes/webhook.kubeconfig}
    matchConditions:
    - expression: "request.groups.includes('system:masters') == false"
- {type: RBAC, name: rbac}
`), 0o600))
	stdout, _, exit := runCommand([]string{"authz", "validate", "--kube-version", "1.36", config}, "")
	assert.Equal(t, exitFindings, exit, stdout)
	assert.Contains(t, stdout, "answers of Kubernetes 1.36\n")
	assert.Contains(t, stdout, "kube-apiserver 1.36 refuses it")
	assert.Contains(t, stdout, "undeclared reference to 'includes'")

	stdout, _, exit = runCommand([]string{"authz", "validate", "--kube-version", "1.37", config}, "")
	assert.Equal(t, exitOK, exit, stdout)
	stdout, _, exit = runCommand([]string{"authz", "validate", config}, "")
	assert.Equal(t, exitOK, exit, stdout)
	assert.NotContains(t, stdout, "answers of Kubernetes", "the default says nothing")

	policy := filepath.Join(dir, "policy.yaml")
	assert.NoError(t, os.WriteFile(policy, labelPolicy("v1", ""), 0o600))
	object := filepath.Join(dir, "cm.yaml")
	assert.NoError(t, os.WriteFile(object, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"), 0o600))
	stdout, _, _ = runCommand([]string{"mutate", "--kube-version", "1.35", "--policies", policy, object}, "")
	assert.Contains(t, stdout, "answers of Kubernetes 1.35\n")
	assert.NotContains(t, stdout, `mutated: "yes"`)
	stdout, _, _ = runCommand([]string{"mutate", "--kube-version", "1.35", "--feature-gates", "MutatingAdmissionPolicy=true", "--policies", policy, object}, "")
	assert.Contains(t, stdout, `mutated: "yes"`)
	stdout, _, _ = runCommand([]string{"mutate", "--kube-version", "1.36", "--policies", policy, object}, "")
	assert.Contains(t, stdout, `mutated: "yes"`)

	_, stderr, exit := runCommand([]string{"mutate", "--kube-version", "1.34", "--policies", policy, object}, "")
	assert.Equal(t, exitUsage, exit)
	assert.Contains(t, stderr, "--kube-version: unsupported Kubernetes version 1.34: gatehouse answers for Kubernetes 1.35, 1.36, 1.37, 1.38 (beta)")
}

// lint --kube-version reports what that version does not have (an API
// version it does not serve, a plugin its gates leave off, a CEL function or
// overload its cel-go lacks), and warns of what the other versions do
// differently.
func TestLintKubeVersion(t *testing.T) {
	dir := t.TempDir()
	maps := filepath.Join(dir, "map.yaml")
	assert.NoError(t, os.WriteFile(maps, labelPolicy("v1beta1", ""), 0o600))
	stdout, _, exit := runCommand([]string{"lint", "--kube-version", "1.35", maps}, "")
	assert.Equal(t, exitFindings, exit, stdout)
	assert.Contains(t, stdout, "answers of Kubernetes 1.35\n")
	assert.Contains(t, stdout, "map.yaml:1: error [api-version] MutatingAdmissionPolicy/label apiVersion\n    Kubernetes 1.35 does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicy")
	assert.Contains(t, stdout, "fix: write it as admissionregistration.k8s.io/v1beta1, which Kubernetes 1.35 serves when enabled")
	assert.Contains(t, stdout, "map.yaml:14: warning [api-version] MutatingAdmissionPolicyBinding/label apiVersion\n    Kubernetes 1.35 serves admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicyBinding only when")
	assert.Contains(t, stdout, "warning [plugin-disabled] MutatingAdmissionPolicy/label spec")
	assert.NotContains(t, stdout, "other-version", "1.35 has every finding the others have")

	stdout, _, _ = runCommand([]string{"lint", "--kube-version", "1.35", "--feature-gates", "MutatingAdmissionPolicy=true", maps}, "")
	assert.NotContains(t, stdout, "plugin-disabled")

	stdout, _, exit = runCommand([]string{"lint", maps}, "")
	assert.Equal(t, exitOK, exit, stdout)
	assert.Contains(t, stdout, "map.yaml:1: warning [other-version] MutatingAdmissionPolicy/label apiVersion\n    on Kubernetes 1.35, not 1.37: error [api-version]: Kubernetes 1.35 does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicy")
	assert.Contains(t, stdout, "on Kubernetes 1.35, not 1.37: warning [plugin-disabled]")
	assert.Contains(t, stdout, "warning [api-version] MutatingAdmissionPolicyBinding/label apiVersion\n    Kubernetes 1.37 serves admissionregistration.k8s.io/v1beta1")
	assert.Contains(t, stdout, "fix: write it as admissionregistration.k8s.io/v1, which Kubernetes 1.37 serves\n")
	stdout, _, _ = runCommand([]string{"lint", "--across-versions=false", maps}, "")
	assert.NotContains(t, stdout, "other-version")
	assert.Contains(t, stdout, "0 errors, 1 warning\n")

	vap := filepath.Join(dir, "vap.yaml")
	assert.NoError(t, os.WriteFile(vap, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: images}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  variables:
  - name: long
    expression: "duration(size(object.metadata.name)) > duration('1s')"
  validations:
  - expression: "object.spec.containers.all(c, object.spec.containers.all(d, matches(d.name, c.name)))"
  - expression: "['a'].includes('a')"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: images}
spec: {policyName: images, validationActions: [Deny]}
`), 0o600))
	const (
		durationInt = "found no matching overload for 'duration' applied to '(int)'"
		includes    = "undeclared reference to 'includes'"
	)
	// 1.36 links cel-go 0.26: duration(int) compiles, the global matches()
	// is nearly free; includes() is not declared.
	stdout, _, exit = runCommand([]string{"lint", "--kube-version", "1.36", vap}, "")
	assert.Equal(t, exitFindings, exit, stdout)
	assert.Contains(t, stdout, "vap.yaml:11: warning [other-version] ValidatingAdmissionPolicy/images spec.variables[0].expression\n    on Kubernetes 1.37, 1.38, not 1.36: error [invalid]: ")
	assert.Contains(t, stdout, durationInt)
	assert.Contains(t, stdout, "vap.yaml:13: warning [other-version] ValidatingAdmissionPolicy/images spec.validations[0].expression\n    on Kubernetes 1.37, 1.38, not 1.36: warning [cost-near-limit]")
	assert.Contains(t, stdout, "vap.yaml:14: error [invalid]")
	assert.Contains(t, stdout, includes)
	// 1.37: duration(int) and the cost are its own; includes() is a stored
	// expressions' function, not yet new expressions'.
	stdout, _, _ = runCommand([]string{"lint", vap}, "")
	assert.Contains(t, stdout, "vap.yaml:11: error [invalid]")
	assert.Contains(t, stdout, "vap.yaml:13: warning [cost-near-limit]")
	assert.Contains(t, stdout, "vap.yaml:14: error [invalid]")
	assert.NotContains(t, stdout, "other-version")
	// 1.38 accepts includes() in new expressions.
	stdout, _, _ = runCommand([]string{"lint", "--kube-version", "1.38", vap}, "")
	assert.Contains(t, stdout, "vap.yaml:14: warning [other-version] ValidatingAdmissionPolicy/images spec.validations[1].expression\n    on Kubernetes 1.35, 1.36, 1.37, not 1.38: error [invalid]: ")
	assert.Contains(t, stdout, includes)
}

// mutate validates the policies as --kube-version's REST API does: a
// variable with duration(int) is refused by 1.37 and accepted by 1.36
// (cel-go 0.26), where the policy then mutates (the variable is never read).
func TestMutateValidatesPerVersion(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	assert.NoError(t, os.WriteFile(policy, labelPolicy("v1", durationVariable), 0o600))
	object := filepath.Join(dir, "cm.yaml")
	assert.NoError(t, os.WriteFile(object, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"), 0o600))
	stdout, _, exit := runCommand([]string{"mutate", "--policies", policy, object}, "")
	assert.Equal(t, exitFindings, exit, stdout)
	assert.Contains(t, stdout, "found no matching overload for 'duration' applied to '(int)'")
	assert.NotContains(t, stdout, `mutated: "yes"`)
	stdout, _, exit = runCommand([]string{"mutate", "--kube-version", "1.36", "--policies", policy, object}, "")
	assert.Equal(t, exitOK, exit, stdout)
	assert.Contains(t, stdout, `mutated: "yes"`)
}

// The JSON and YAML reports name the Kubernetes that answered, after
// schemaVersion, unless they name it themselves.
func TestReportNamesKubernetes(t *testing.T) {
	target, err := kube.ParseTarget("1.36")
	require.NoError(t, err)
	a := &app{kube: target}
	for _, c := range []struct {
		in   any
		want string
	}{
		{struct{}{}, `{"kubernetes":"1.36"}`},
		{map[string]int{"schemaVersion": 1}, `{"schemaVersion":1,"kubernetes":"1.36"}`},
		{struct {
			SchemaVersion int    `json:"schemaVersion"`
			Text          string `json:"text"`
		}{1, "a<b, c"}, `{"schemaVersion":1,"kubernetes":"1.36","text":"a<b, c"}`},
		{map[string]string{"other": "x"}, `{"kubernetes":"1.36","other":"x"}`},
		{map[string]string{"kubernetes": "1.35"}, `{"kubernetes":"1.35"}`},
		{[]int{1}, `[1]`},
	} {
		got, err := a.reportJSON(c.in)
		require.NoError(t, err)
		assert.Equal(t, c.want, string(got))
	}

	dir := t.TempDir()
	config := filepath.Join(dir, "authz.yaml")
	require.NoError(t, os.WriteFile(config, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n"), 0o600))
	stdout, _, exit := runCommand([]string{"authz", "validate", "--kube-version", "1.36", "-o", "json", config}, "")
	assert.Equal(t, exitOK, exit, stdout)
	assert.Contains(t, stdout, "{\n  \"schemaVersion\": 1,\n  \"kubernetes\": \"1.36\",\n")
	stdout, _, _ = runCommand([]string{"authz", "validate", "-o", "yaml", config}, "")
	assert.Contains(t, stdout, "kubernetes: \"1.37\"\n")
}

// labelPolicy is a MutatingAdmissionPolicy (v1) labelling ConfigMaps with
// mutated: "yes", with the variables given (YAML lines), and its binding in
// bindingVersion.
func labelPolicy(bindingVersion, variables string) []byte {
	return []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
` + variables + `  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}"
---
apiVersion: admissionregistration.k8s.io/` + bindingVersion + `
kind: MutatingAdmissionPolicyBinding
metadata: {name: label}
spec: {policyName: label}
`)
}

// durationVariable is a variable with duration(int): it compiles before
// 1.37 only.
const durationVariable = `  variables:
  - name: long
    expression: "duration(size(object.metadata.name)) > duration('1s')"
`

// authz validate --kube-version 1.38 knows a webhook's conditionsReview and
// gives kube-apiserver 1.38's errors; 1.37 does not know the field.
func TestAuthzValidateConditionsReview(t *testing.T) {
	config := filepath.Join(t.TempDir(), "authz.yaml")
	require.NoError(t, os.WriteFile(config, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: webhook
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo: {type: InClusterConfig}
    conditionsReview: {version: v1alpha1}
`), 0o600))
	stdout, _, exit := runCommand([]string{"authz", "validate", config}, "")
	assert.Equal(t, exitFindings, exit, stdout)
	assert.Contains(t, stdout, `strict decoding error: unknown field "authorizers[0].webhook.conditionsReview"`)
	stdout, _, exit = runCommand([]string{"authz", "validate", "--kube-version", "1.38", config}, "")
	assert.Equal(t, exitFindings, exit, stdout)
	assert.Contains(t, stdout, "authorizers[0].conditionsReview: Forbidden: the ConditionalAuthorization feature gate must be on to use this field")
	stdout, _, exit = runCommand([]string{"authz", "validate", "--kube-version", "1.38", "--feature-gates", "ConditionalAuthorization=true", config}, "")
	assert.Equal(t, exitOK, exit, stdout)
}

// authz explain at 1.38 with the gate ConditionalAuthorization asks the
// requests admission sees conditionally: a webhook with a conditionsReview
// answering with conditions makes the decision Conditional (left to
// admission), a read is asked plainly, an unconditional answer decides.
func TestAuthzExplainConditional(t *testing.T) {
	base := []string{"authz", "explain", "-o", "json", "--config", "testdata/explain/conditional.yaml",
		"--webhook-answers", "testdata/explain/conditional-answers.yaml", "--as", "alice", "--groups", "developers,system:authenticated"}
	on := []string{"--kube-version", "1.38", "--feature-gates", "ConditionalAuthorization=true"}
	for _, tc := range []struct {
		name        string
		flags, args []string
		exit        int
		decision    string
		status      float64
		conditional any
	}{{
		name: "a create in dev: conditional", flags: on, args: []string{"create", "deployments.apps", "-n", "dev"}, exit: exitFindings,
		decision: "Conditional",
		conditional: map[string]any{"possible": []any{"Deny", "Allow", "NoOpinion"},
			"decision": `Union[system-privileged-group.authorizer.kubernetes.io: NoOpinion, policy.example.com: ConditionsMap(denies=1, allows=1), alwaysdeny: NoOpinion(reason="Everything is forbidden.")]`},
	}, {
		name: "a get: asked plainly", flags: on, args: []string{"get", "deployments.apps", "-n", "dev"}, exit: exitOK,
		decision: "Allow", status: 200,
	}, {
		name: "a create in prod: denied unconditionally", flags: on, args: []string{"create", "deployments.apps", "-n", "prod"}, exit: exitFindings,
		decision: "Deny", status: 403,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append(append([]string{}, base...), tc.flags...), tc.args...)
			stdout, stderr, exit := runCommand(args, "")
			require.Equal(t, tc.exit, exit, "%s%s", stdout, stderr)
			var report map[string]any
			require.NoError(t, json.Unmarshal([]byte(stdout), &report), stdout)
			assert.Equal(t, tc.decision, report["decision"])
			assert.Equal(t, tc.status, report["httpStatus"])
			assert.Equal(t, tc.conditional, report["conditional"])
		})
	}
	// With the gate off, kube-apiserver 1.38 refuses the conditionsReview.
	_, stderr, exit := runCommand(append(append([]string{}, base...), "--kube-version", "1.38", "create", "deployments.apps", "-n", "dev"), "")
	assert.Equal(t, exitUsage, exit)
	assert.Contains(t, stderr, "conditionsReview: Forbidden: the ConditionalAuthorization feature gate must be on to use this field")
}

// admission validate --admission-config reads the webhook plugins'
// staticOrder as that version does: 1.38 checks it, 1.36 and 1.37 refuse
// the unknown field, 1.35 ignores it (and the staticManifestsDir).
func TestAdmissionValidateStaticOrder(t *testing.T) {
	dir := t.TempDir()
	manifests := filepath.Join(dir, "mutating")
	assert.NoError(t, os.Mkdir(manifests, 0o700))
	write := func(name, plugin, order string) string {
		file := filepath.Join(dir, name)
		assert.NoError(t, os.WriteFile(file, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: `+plugin+`
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: /etc/kubernetes/webhook.kubeconfig
    staticManifestsDir: `+manifests+`
    staticOrder: `+order+`
`), 0o600))
		return file
	}
	mutating := write("mutating.yaml", "MutatingAdmissionWebhook", "ByName")
	stdout, _, exit := runCommand([]string{"admission", "validate", "--kube-version", "1.38", "--admission-config", mutating}, "")
	assert.Equal(t, exitOK, exit, stdout)
	assert.Contains(t, stdout, manifests+" (MutatingAdmissionWebhook): loads, no manifests, staticOrder ByName\n")
	stdout, _, _ = runCommand([]string{"admission", "validate", "--kube-version", "1.38", "--admission-config", mutating, "-o", "json"}, "")
	assert.Contains(t, stdout, `"staticOrder": "ByName"`)

	for _, version := range []string{"1.37", "1.36"} {
		stdout, _, exit = runCommand([]string{"admission", "validate", "--kube-version", version, "--feature-gates", "ManifestBasedAdmissionControlConfig=true", "--admission-config", mutating}, "")
		assert.Equal(t, exitFindings, exit, stdout)
		assert.Contains(t, stdout, `strict decoding error: unknown field "staticOrder"`, version)
	}
	stdout, _, exit = runCommand([]string{"admission", "validate", "--kube-version", "1.35", "--admission-config", mutating}, "")
	assert.Equal(t, exitOK, exit, stdout)
	assert.NotContains(t, stdout, "staticOrder")

	for _, tt := range []struct{ plugin, order, gates, err string }{
		{"ValidatingAdmissionWebhook", "StaticLast", "", `staticOrder: Invalid value: "StaticLast": only "StaticFirst" is supported by ValidatingAdmissionWebhook`},
		{"MutatingAdmissionWebhook", "Last", "", `staticOrder: Unsupported value: "Last": supported values: "ByName", "StaticFirst", "StaticLast"`},
		{"MutatingAdmissionWebhook", "ByName", "ManifestBasedAdmissionControlConfig=false",
			"staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled"},
	} {
		config := write("config.yaml", tt.plugin, tt.order)
		stdout, _, exit = runCommand([]string{"admission", "validate", "--kube-version", "1.38", "--feature-gates", tt.gates, "--admission-config", config}, "")
		assert.Equal(t, exitFindings, exit, stdout)
		assert.Contains(t, stdout, tt.err)
	}
}
