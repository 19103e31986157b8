package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: deny-privileged.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods"]
  validations:
  - expression: "!object.spec.containers.exists(c, has(c.securityContext) && c.securityContext.privileged == true)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: deny-privileged-binding.static.k8s.io
spec:
  policyName: deny-privileged.static.k8s.io
  validationActions: ["Deny"]
`

func TestStaticAdmission(t *testing.T) {
	root := t.TempDir()
	policies := filepath.Join(root, "policies")
	webhooks := filepath.Join(root, "webhooks")
	require.NoError(t, os.MkdirAll(policies, 0o755))
	require.NoError(t, os.MkdirAll(webhooks, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(policies, "deny-privileged.yaml"), []byte(policy), 0o644))
	// A webhook without the static suffix, as in the KEP's early example.
	require.NoError(t, os.WriteFile(filepath.Join(webhooks, "hook.yaml"), []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: platform.security-webhook
webhooks:
- name: security.platform.example.com
  clientConfig:
    url: https://security-webhook.example.com/validate
  sideEffects: None
  admissionReviewVersions: ["v1"]
`), 0o644))

	var out strings.Builder
	assert.Equal(t, 0, run([]string{"-plugin", "ValidatingAdmissionPolicy", policies}, &out))
	assert.Contains(t, out.String(), "ValidatingAdmissionPolicy: "+policies+" loads 2 objects, hash sha256:")
	assert.Contains(t, out.String(), "  deny-privileged-binding.static.k8s.io\n")

	out.Reset()
	assert.Equal(t, 1, run([]string{"-plugin", "ValidatingAdmissionWebhook", webhooks}, &out))
	assert.Equal(t, `ValidatingAdmissionWebhook: kube-apiserver would not start: failed to load static webhook manifests from "`+webhooks+
		`": error loading `+webhooks+`/hook.yaml: "platform.security-webhook" in file "`+webhooks+`/hook.yaml" must have a name ending with ".static.k8s.io"`+"\n", out.String())

	config := filepath.Join(root, "admission.yaml")
	require.NoError(t, os.WriteFile(config, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ValidatingAdmissionPolicyConfiguration
    staticManifestsDir: `+policies+`
- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    staticManifestsDir: relative/dir
`), 0o644))
	out.Reset()
	assert.Equal(t, 1, run([]string{"-admission-config", config}, &out))
	assert.Equal(t, []string{
		"ValidatingAdmissionWebhook: no static manifests",
		`MutatingAdmissionWebhook: staticManifestsDir: Invalid value: "relative/dir": must be an absolute file path`,
	}, strings.Split(out.String(), "\n")[:2])
	assert.Contains(t, out.String(), "ValidatingAdmissionPolicy: "+policies+" loads 2 objects")
	assert.Contains(t, out.String(), "MutatingAdmissionPolicy: no static manifests\n")

	out.Reset()
	assert.Equal(t, 2, run([]string{"-plugin", "Webhooks", webhooks}, &out))
}
