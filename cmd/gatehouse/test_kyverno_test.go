package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kyvernoFiles writes files into a new directory and returns the path of
// its kyverno-test.yaml.
func kyvernoFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return filepath.Join(dir, "kyverno-test.yaml")
}

// runKyverno runs gatehouse test -o json on a file and returns its report
// and exit status.
func runKyverno(t *testing.T, path string, flags ...string) (testReport, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append(append([]string{"test", "-o", "json"}, flags...), path), nil, &out, &errOut)
	var r testReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &r), out.String()+errOut.String())
	return r, code
}

const (
	kyvVAP = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  matchConditions:
  - {name: not-skipped, expression: "!has(object.metadata.labels) || !('skip' in object.metadata.labels)"}
  validations:
  - {expression: "object.spec.replicas <= 2", message: too many}
  - {expression: "object.spec.replicas != 2 || object.metadata.name != 'broken' || object.spec.nope == 1", message: unreachable}
`
	kyvBinding = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec:
  policyName: replicas
  validationActions: [%s]
  matchResources:
    namespaceSelector: {matchLabels: {env: prod}}
`
	kyvDeployments = `apiVersion: apps/v1
kind: Deployment
metadata: {name: small, namespace: prod}
spec: {replicas: 1, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: prod}
spec: {replicas: 5, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: dev}
spec: {replicas: 5, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: skipped, namespace: prod, labels: {skip: "yes"}}
spec: {replicas: 5, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: broken, namespace: prod}
spec: {replicas: 2, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}
`
	kyvValues = `apiVersion: cli.kyverno.io/v1alpha1
kind: Value
metadata: {name: values}
namespaceSelector:
- {name: prod, labels: {env: prod}}
- {name: dev, labels: {env: dev}}
`
	kyvMAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"by": request.userInfo.username}}}'
`
	kyvConfigMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {a: b}
`
	kyvPatched = `apiVersion: v1
kind: ConfigMap
metadata: {name: cm, labels: {by: alice}}
data: {a: b}
`
)

// TestKyvernoMapping pins the mapping of kube-apiserver's verdict of a
// policy on a request to Kyverno's results.
func TestKyvernoMapping(t *testing.T) {
	vapSuite := func(actions, results string) map[string]string {
		return map[string]string{
			"policy.yaml":    kyvVAP + "---\n" + strings.Replace(kyvBinding, "%s", actions, 1),
			"resources.yaml": kyvDeployments,
			"values.yaml":    kyvValues,
			"kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
variables: values.yaml
results:
` + results,
		}
	}
	type want struct {
		name, got  string
		reason     string
		passed     bool
		skipped    bool
		note, fail string
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		flags []string
		want  []want
	}{{
		name: "validating: pass, fail, skip by binding, skip by match condition, error",
		files: vapSuite("Deny", `- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/small], result: pass}
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/big], result: fail}
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [dev/big], result: skip}
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [skipped], result: skip}
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [broken], result: error}
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/small], result: fail}
`),
		want: []want{
			{name: "t: replicas Deployment prod/small", got: "pass", passed: true},
			{name: "t: replicas Deployment prod/big", got: "fail", passed: true},
			{name: "t: replicas Deployment dev/big", got: "skip", passed: true},
			{name: "t: replicas Deployment prod/skipped", got: "skip", passed: true},
			{name: "t: replicas Deployment prod/broken", got: "error", passed: true},
			{name: "t: replicas Deployment prod/small #2", got: "pass", fail: "kube-apiserver: pass, Kyverno expects fail"},
		},
	}, {
		name: "validating: Warn warns, Audit fails",
		files: vapSuite("Warn", `- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/big], result: warn}
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/big], operation: UPDATE, result: fail}
`),
		want: []want{
			{name: "t: replicas Deployment prod/big", got: "warn", passed: true},
			{name: "t: replicas Deployment prod/big (UPDATE)", got: "warn", fail: "kube-apiserver: warn (too many), Kyverno expects fail"},
		},
	}, {
		name: "validating: DELETE has no object",
		files: vapSuite("Audit", `- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/big], result: fail}
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/big], operation: DELETE, result: skip}
`),
		want: []want{
			{name: "t: replicas Deployment prod/big", got: "fail", passed: true},
			{name: "t: replicas Deployment prod/big (DELETE)", got: "skip", passed: true},
		},
	}, {
		name: "unbound, invalid, Kyverno's kinds, missing resource",
		files: map[string]string{
			"policy.yaml": kyvVAP + `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-operations}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]
  validations: [{expression: "false"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-operations}
spec: {policyName: no-operations, validationActions: [Deny]}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-labels}
spec: {rules: []}
`,
			"resources.yaml": kyvDeployments,
			"kyverno-test.yaml": `name: old-format
policies: [policy.yaml]
resources: [resources.yaml]
results:
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/big], result: fail}
- {policy: no-operations, kind: Deployment, resource: small, namespace: prod, status: fail}
- {policy: require-labels, rule: check, kind: Deployment, resources: [prod/big], result: pass}
- {isValidatingPolicy: true, policy: vpol, kind: Deployment, resources: [nowhere], result: pass}
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [nowhere], result: pass}
- {isMutatingAdmissionPolicy: true, policy: absent, kind: Deployment, resources: [prod/big], result: pass}
checks:
- match: {resource: {kind: Deployment}}
  assert: {status: pass}
`,
		},
		want: []want{
			{name: "old-format: replicas Deployment prod/big", got: "skip", fail: "Kyverno expects fail", note: "run gatehouse test --bind-unbound"},
			{name: "old-format: no-operations Deployment prod/small", got: "skip", fail: "Kyverno expects fail", note: "operations: Required value"},
			{name: "old-format: require-labels/check Deployment prod/big", skipped: true},
			{name: "old-format: vpol Deployment nowhere", skipped: true},
			{name: "old-format: replicas Deployment nowhere", fail: "no Deployment nowhere in the test's resources"},
			{name: "old-format: absent Deployment prod/big", fail: `no MutatingAdmissionPolicy "absent"`},
			{name: "old-format: checks[0]", skipped: true, reason: "assertion trees"},
		},
	}, {
		name: "--bind-unbound binds as Kyverno evaluates",
		files: map[string]string{
			"policy.yaml":    kyvVAP,
			"resources.yaml": kyvDeployments,
			"kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
results:
- {isValidatingAdmissionPolicy: true, policy: replicas, kind: Deployment, resources: [prod/big, prod/small], result: fail}
`,
		},
		flags: []string{"--bind-unbound"},
		want: []want{
			{name: "t: replicas Deployment prod/big", got: "fail", passed: true},
			{name: "t: replicas Deployment prod/small", got: "pass", fail: "kube-apiserver: pass, Kyverno expects fail"},
		},
	}, {
		name: "mutating: patched resources, userinfo, default namespace, skip",
		files: map[string]string{
			"policy.yaml":    kyvMAP + "---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: label}\nspec: {policyName: label}\n",
			"resources.yaml": kyvConfigMap + "---\n" + strings.Replace(kyvDeployments, "name: small, namespace: prod", "name: small", 1),
			"patched.yaml":   kyvPatched,
			"wrong.yaml":     strings.Replace(kyvPatched, "alice", "bob", 1),
			"user.yaml":      "apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nmetadata: {name: u}\nclusterRoles: [admin]\nuserInfo: {username: alice, groups: [devs]}\n",
			"kyverno-test.yaml": `apiVersion: kyverno.io/v1
kind: Test
metadata: {name: m}
policies: [policy.yaml]
resources: [resources.yaml]
userinfo: user.yaml
results:
- {isMutatingAdmissionPolicy: true, policy: label, kind: ConfigMap, patchedResources: patched.yaml, result: pass}
- {isMutatingAdmissionPolicy: true, policy: label, kind: ConfigMap, resources: [cm], patchedResources: wrong.yaml, result: pass}
- {isMutatingAdmissionPolicy: true, policy: label, kind: Deployment, resources: [default/small], result: skip}
`,
		},
		want: []want{
			{name: "m: label ConfigMap default/cm", got: "pass", passed: true},
			{name: "m: label ConfigMap default/cm #2", got: "pass", fail: "the admitted object differs from wrong.yaml"},
			{name: "m: label Deployment default/small", got: "skip", passed: true},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := runKyverno(t, kyvernoFiles(t, tc.files), tc.flags...)
			require.Len(t, r.Files, 1)
			require.Empty(t, r.Files[0].Error)
			assert.Equal(t, "kyverno", r.Files[0].Format)
			var names []string
			for _, c := range r.Files[0].Cases {
				names = append(names, c.Name)
			}
			require.Len(t, r.Files[0].Cases, len(tc.want), "cases %q", names)
			for i, w := range tc.want {
				c := r.Files[0].Cases[i]
				assert.Equal(t, w.name, c.Name)
				assert.Equal(t, w.skipped, c.Skipped, c.Name)
				if w.skipped {
					reason := w.reason
					if reason == "" {
						reason = "out of gatehouse's scope"
					}
					assert.Contains(t, c.SkipReason, reason)
					continue
				}
				assert.Equal(t, w.passed, c.Passed, "%s: %s", c.Name, c.Failure)
				if w.got != "" {
					assert.Equal(t, w.got, c.Got, c.Name)
				}
				if w.fail != "" {
					assert.Contains(t, c.Failure, w.fail, c.Name)
				}
				if w.note != "" {
					assert.Contains(t, c.Note, w.note, c.Name)
				}
			}
		})
	}
}

// TestKyvernoDecodingErrors pins the errors of files gatehouse cannot read:
// each names the file.
func TestKyvernoDecodingErrors(t *testing.T) {
	good := map[string]string{"policy.yaml": kyvVAP, "resources.yaml": kyvDeployments}
	for _, tc := range []struct {
		name  string
		test  string
		extra map[string]string
		want  []string
	}{
		{name: "unknown field", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [policy.yaml]\nresults: [{policy: p, kind: Pod, result: pass}]\nunknownField: 1\n",
			want: []string{"kyverno-test.yaml: document 1", `unknown field "unknownField"`}},
		{name: "unknown result field", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nresults: [{policy: p, kind: Pod, result: pass, bogus: 1}]\n",
			want: []string{"kyverno-test.yaml", `unknown field "bogus"`}},
		{name: "bad result", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nresults: [{policy: p, kind: Pod, result: ok}]\n",
			want: []string{"kyverno-test.yaml", `result "ok": expected pass, fail, skip, error or warn`}},
		{name: "bad operation", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nresults: [{policy: p, kind: Pod, result: pass, operation: PATCH}]\n",
			want: []string{"kyverno-test.yaml", `invalid operation "PATCH"`}},
		{name: "other kind", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\n---\napiVersion: cli.kyverno.io/v1alpha1\nkind: Values\n",
			want: []string{"kyverno-test.yaml: document 2", "unsupported kind Values"}},
		{name: "missing policy file", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [nope.yaml]\nresults: [{policy: p, kind: Pod, result: pass}]\n",
			want: []string{"nope.yaml"}},
		{name: "missing values", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [policy.yaml]\nvariables: values.yaml\nresults: [{policy: p, kind: Pod, result: pass}]\n",
			want: []string{"values.yaml"}},
		{name: "unknown values field", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [policy.yaml]\nvariables: values.yaml\nresults: [{policy: p, kind: Pod, result: pass}]\n",
			extra: map[string]string{"values.yaml": "namespaceSelectors: []\n"},
			want:  []string{"values.yaml", `unknown field "namespaceSelectors"`}},
		{name: "unknown userinfo field", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [policy.yaml]\nuserinfo: user.yaml\nresults: [{policy: p, kind: Pod, result: pass}]\n",
			extra: map[string]string{"user.yaml": "userInfo: {name: alice}\n"},
			want:  []string{"user.yaml", `unknown field "name"`}},
		{name: "missing patched resources", test: "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [policy.yaml]\nresults: [{policy: p, kind: Pod, result: pass, patchedResources: patched.yaml}]\n",
			want: []string{"patched.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"kyverno-test.yaml": tc.test}
			for k, v := range good {
				files[k] = v
			}
			for k, v := range tc.extra {
				files[k] = v
			}
			r, code := runKyverno(t, kyvernoFiles(t, files))
			assert.Equal(t, exitUsage, code)
			require.Len(t, r.Files, 1)
			for _, w := range tc.want {
				assert.Contains(t, r.Files[0].Error, w)
			}
		})
	}
}

func TestIsKyvernoTest(t *testing.T) {
	for _, tc := range []struct {
		probe map[string]any
		want  bool
	}{
		{map[string]any{"apiVersion": "cli.kyverno.io/v1alpha1", "kind": "Test"}, true},
		{map[string]any{"apiVersion": "kyverno.io/v1", "kind": "Test"}, true},
		{map[string]any{"name": "t", "results": []any{}}, true},
		{map[string]any{"apiVersion": "gatehouse.dev/v1alpha1", "kind": "AdmissionTest"}, false},
		{map[string]any{"vapTestSuites": []any{}}, false},
		{map[string]any{"apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy"}, false},
	} {
		assert.Equal(t, tc.want, isKyvernoTest(tc.probe), "%v", tc.probe)
	}
}

// FuzzReadKyvernoTest: the decoder never panics, and what it accepts has
// results it can name.
func FuzzReadKyvernoTest(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/kyverno/*/*/kyverno-test.yaml")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("name: t\nresults: [{policy: p, kind: Pod, resource: r, status: pass}]\n"))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		tests, err := readKyvernoTests("kyverno-test.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "kyverno-test.yaml") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		for _, tt := range tests {
			for _, r := range tt.Results {
				if r.Policy == "" || r.result() == "" {
					t.Fatalf("accepted a result without policy or result: %+v", r)
				}
			}
		}
	})
}
