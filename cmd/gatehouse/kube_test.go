package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
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
	assert.NoError(t, os.WriteFile(policy, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label}
spec: {policyName: label}
`), 0o600))
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
