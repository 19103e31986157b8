package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRBACGitOpsDirectory runs can-i and who-can over testdata/rbac, laid
// out as a GitOps repository: RBAC objects mixed with Namespaces,
// ServiceAccounts and Deployments, in nested directories, with an aggregated
// ClusterRole, a List, and a binding to a role that does not exist.
func TestRBACGitOpsDirectory(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		allowed bool
		binding string // the allowing binding, namespace/name or name
	}{
		{"aggregated role through a group", []string{"--as", "jane", "--groups", "developers", "watch", "statefulsets.apps", "-n", "dev"}, true, "dev/developers-view"},
		{"aggregated role through a user in a List", []string{"--as", "alice", "get", "services", "-n", "dev"}, true, "dev/developers-view"},
		{"RoleBinding does not reach another namespace", []string{"--as", "alice", "get", "services", "-n", "prod"}, false, ""},
		{"view role does not write", []string{"--as", "alice", "update", "deployments.apps", "-n", "dev"}, false, ""},
		{"service account of the binding's namespace", []string{"--as", "system:serviceaccount:dev:deployer", "update", "deployments.apps", "web", "-n", "dev"}, true, "dev/deployer"},
		{"service account of another namespace", []string{"--as", "system:serviceaccount:prod:deployer", "update", "deployments.apps", "web", "-n", "dev"}, false, ""},
		{"resource name allowed", []string{"--as", "system:serviceaccount:dev:deployer", "get", "secrets", "web-tls", "-n", "dev"}, true, "dev/deployer"},
		{"resource name not listed", []string{"--as", "system:serviceaccount:dev:deployer", "list", "secrets", "-n", "dev"}, false, ""},
		{"cluster-admin everywhere", []string{"--as", "root", "--groups", "platform-admins", "delete", "nodes", "n1"}, true, "platform-admins"},
		{"non-resource prefix", []string{"--as", "bob", "--groups", "system:authenticated", "get", "/healthz/ping"}, true, "health-readers"},
		{"non-resource verb", []string{"--as", "bob", "--groups", "system:authenticated", "post", "/healthz"}, false, ""},
		{"binding to a missing role", []string{"--as", "eve", "get", "pods", "-n", "dev"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, exit := runCommand(append([]string{"rbac", "can-i", "-o", "json", "-f", rbacDir}, tt.args...), "")
			require.Empty(t, stderr)
			var r canIReport
			require.NoError(t, json.Unmarshal([]byte(stdout), &r))
			assert.Equal(t, tt.allowed, r.Allowed)
			if tt.allowed {
				assert.Equal(t, exitOK, exit)
				require.NotNil(t, r.AllowedBy)
				b := r.AllowedBy.Binding.Name
				if r.AllowedBy.Binding.Namespace != "" {
					b = r.AllowedBy.Binding.Namespace + "/" + b
				}
				assert.Equal(t, tt.binding, b)
			} else {
				assert.Equal(t, exitFindings, exit)
				assert.Nil(t, r.AllowedBy)
			}
			assert.Len(t, r.Notes, 3, "the Namespace, ServiceAccount and Deployment are skipped")
		})
	}
}

// TestRBACWhoCanAgreesWithCanI: each subject who-can lists (but
// system:masters, which RBAC does not see) is allowed by can-i, through the
// binding who-can names.
func TestRBACWhoCanAgreesWithCanI(t *testing.T) {
	requests := [][]string{
		{"list", "pods", "-n", "dev"},
		{"patch", "deployments.apps/scale", "web", "-n", "dev"},
		{"get", "/readyz"},
		{"delete", "secrets", "-n", "prod"},
	}
	for _, req := range requests {
		stdout, _, exit := runCommand(append([]string{"rbac", "who-can", "-o", "json", "-f", rbacDir}, req...), "")
		require.Equal(t, exitOK, exit, req)
		var r whoCanReport
		require.NoError(t, json.Unmarshal([]byte(stdout), &r))
		require.NotEmpty(t, r.Grants, req)
		assert.Equal(t, "system:masters", r.Subjects[0].Name)
		for _, g := range r.Grants {
			for _, s := range g.Subjects {
				as := []string{"--as", s.Name}
				switch s.Kind {
				case "Group":
					as = []string{"--as", "someone", "--groups", s.Name}
				case "ServiceAccount":
					as = []string{"--as", "system:serviceaccount:" + g.Binding.Namespace + ":" + s.Name}
				}
				_, _, exit := runCommand(append(append([]string{"rbac", "can-i", "-f", rbacDir}, as...), req...), "")
				assert.Equal(t, exitOK, exit, "%v as %v", req, as)
			}
		}
	}
}

// TestRBACInputErrors: a bad RBAC document is an input error (exit 2), not
// skipped; so is a directory without RBAC objects, or an RBAC object of a
// version kube-apiserver no longer serves.
func TestRBACInputErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	tests := []struct {
		name, text, want string
	}{
		{"not yaml", "kind: [", "document 1"},
		{"duplicate", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: a}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: a}\n", `"a"`},
		{"v1beta1", "apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: Role\nmetadata: {name: a, namespace: b}\n", "v1beta1"},
		{"no namespace", "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: a}\n", "namespace"},
		{"only other kinds", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", "no Role, ClusterRole"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(string(rune('a'+i))+".yaml", tt.text)
			for _, args := range [][]string{
				{"rbac", "can-i", "--as", "x", "get", "pods", "-f", p},
				{"rbac", "who-can", "get", "pods", "-f", p},
				{"authz", "explain", "--config", expl + "/rbac.yaml", "--rbac", p, "--as", "x", "get", "pods"},
			} {
				stdout, stderr, exit := runCommand(args, "")
				assert.Equal(t, exitUsage, exit, args)
				assert.Empty(t, stdout, args)
				assert.Contains(t, stderr, tt.want, args)
			}
		})
	}
}

// FuzzRBACObjects: any stream of documents given to rbac can-i and who-can
// gives an answer (exit status 0 or 1, a JSON report) or an input error
// (exit status 2, nothing on standard output), without panicking; and a
// user who-can lists is allowed by can-i.
func FuzzRBACObjects(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(rbacDir, "*", "*.yaml"))
	require.NoError(f, err)
	files = append(files, "testdata/rbac-bad/v1beta1.yaml", "../../examples/quickstart/rbac.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"x"},"roleRef":{"kind":"ClusterRole","name":"y"},"subjects":[{"kind":"User","name":"u"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		stdout, _, exit := runCommand([]string{"rbac", "who-can", "-o", "json", "-f", "-", "get", "pods", "-n", "ns"}, string(data))
		if exit == exitUsage {
			assert.Empty(t, stdout)
			return
		}
		require.Equal(t, exitOK, exit)
		var r whoCanReport
		require.NoError(t, json.Unmarshal([]byte(stdout), &r))
		for _, g := range r.Grants {
			for _, s := range g.Subjects {
				if s.Kind != "User" || s.Name == "" {
					continue
				}
				stdout, _, exit := runCommand([]string{"rbac", "can-i", "-o", "json", "-f", "-", "--as", s.Name, "get", "pods", "-n", "ns"}, string(data))
				assert.Equal(t, exitOK, exit, stdout)
			}
		}
	})
}

// TestRBACListRows: can-i --list writes a row for each resource and API
// group of a rule, and the rules of the JSON report are the review's.
func TestRBACListRows(t *testing.T) {
	objs := `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
rules:
- apiGroups: [apps, extensions]
  resources: [deployments, replicasets]
  resourceNames: [web]
  verbs: [get]
- nonResourceURLs: [/metrics]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: r}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: u}]
`
	stdout, stderr, exit := runCommand([]string{"rbac", "can-i", "--list", "--as", "u", "-f", "-"}, objs)
	require.Equal(t, exitOK, exit, stderr)
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n")[1:] {
		rows = append(rows, strings.Join(strings.Fields(line), " "))
	}
	assert.Equal(t, []string{
		"deployments.apps [] [web] [get]",
		"deployments.extensions [] [web] [get]",
		"replicasets.apps [] [web] [get]",
		"replicasets.extensions [] [web] [get]",
		"[/metrics] [] [get]",
	}, rows)

	stdout, _, exit = runCommand([]string{"rbac", "can-i", "--list", "-o", "json", "--as", "u", "-f", "-"}, objs)
	require.Equal(t, exitOK, exit)
	var r rulesReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	require.Len(t, r.ResourceRules, 1)
	assert.Equal(t, []string{"apps", "extensions"}, r.ResourceRules[0].APIGroups)
	require.Len(t, r.NonResourceRules, 1)
	assert.Equal(t, []string{"/metrics"}, r.NonResourceRules[0].NonResourceURLs)

	// Another user: no rules, still exit status 0.
	stdout, _, exit = runCommand([]string{"rbac", "can-i", "--list", "-o", "json", "--as", "v", "-f", "-"}, objs)
	require.Equal(t, exitOK, exit)
	assert.Contains(t, stdout, `"resourceRules": []`)
}

// TestRBACSkipsRealWorldCRDs: the real-world CRDs (among them kcp's CRDs
// named after RBAC's kinds) next to RBAC objects are skipped, one note each,
// and change no answer.
func TestRBACSkipsRealWorldCRDs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(rwCRDs, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	args := []string{"--as", "jane", "--groups", "developers", "list", "pods", "-n", "dev"}
	want, _, exit := runCommand(append([]string{"rbac", "can-i", "-o", "json", "-f", rbacDir}, args...), "")
	require.Equal(t, exitOK, exit)
	got, stderr, exit := runCommand(append([]string{"rbac", "can-i", "-o", "json", "-f", rwCRDs, "-f", rbacDir}, args...), "")
	require.Equal(t, exitOK, exit, stderr)
	var w, g canIReport
	require.NoError(t, json.Unmarshal([]byte(want), &w))
	require.NoError(t, json.Unmarshal([]byte(got), &g))
	assert.Equal(t, w.AllowedBy, g.AllowedBy)
	assert.Equal(t, w.Reason, g.Reason)
	crdNotes := 0
	for _, n := range g.Notes {
		if strings.Contains(n, "CustomResourceDefinition") {
			crdNotes++
		}
	}
	assert.GreaterOrEqual(t, crdNotes, len(files))
	assert.Len(t, g.Notes, crdNotes+len(w.Notes))
}
