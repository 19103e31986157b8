package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemo(t *testing.T) {
	var out bytes.Buffer
	require.Equal(t, 0, run(nil, &out), out.String())
	s := out.String()
	// The ApplyConfiguration sidecar sets args, an atomic list: refused.
	assert.Contains(t, s, "may not mutate atomic arrays, maps or structs: .spec.initContainers[0].args")
	// The JSON Patch sidecar is appended to existing initContainers.
	assert.Contains(t, s, "image: mesh-proxy/v1.0.0")
	// The baseline label on a new namespace, not on kube-* nor on one
	// already labelled.
	assert.Contains(t, s, "pod-security.kubernetes.io/enforce: baseline")
	assert.Contains(t, s, "policy default-pod-security-baseline: matched")
}

func TestUsage(t *testing.T) {
	var out bytes.Buffer
	assert.Equal(t, 2, run([]string{"-policies", "x.yaml"}, &out))
	assert.Contains(t, out.String(), "usage")
	out.Reset()
	assert.Equal(t, 1, run([]string{"-policies", filepath.Join(t.TempDir(), "missing.yaml"), "m.yaml"}, &out))
}

func TestOwnFiles(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "p.yaml")
	require.NoError(t, os.WriteFile(policy, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: team}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/data", value: {"team": request.userInfo.username}}]'
`), 0o600))
	manifest := filepath.Join(dir, "m.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"), 0o600))
	var out bytes.Buffer
	require.Equal(t, 0, run([]string{"-policies", policy, manifest}, &out), out.String())
	assert.Contains(t, out.String(), "team: alice")
}
