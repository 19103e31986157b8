package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden with the output of the commands")

// goldenCase is one command line whose output testdata/golden/<name>.golden
// holds: the command, its standard output, its standard error and its exit
// status.
type goldenCase struct {
	name    string
	args    []string
	stdin   string
	engines engines
	// exit is the expected exit status, checked also when updating.
	exit int
}

const (
	rwAuthz = "testdata/realworld/authorization-config"
	rwCRDs  = "testdata/realworld/crds-protected-groups"
	expl    = "testdata/explain"
)

// testRBAC stands in for package authorizer/rbac in the tests of the seam
// through which it is wired in (engines.RBAC): it allows get and list of
// pods to the group "readers", and says which directory it was given.
func testRBAC(dir string) (authorizer.Authorizer, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	return authorizer.Func(func(_ context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
		for _, g := range a.User.Groups {
			if g == "readers" && a.Resource == "pods" && (a.Verb == "get" || a.Verb == "list") {
				return authorizer.DecisionAllow, "readers may read pods (test RBAC over " + filepath.ToSlash(dir) + ")", nil
			}
		}
		return authorizer.DecisionNoOpinion, "", nil
	}), nil
}

func goldenCases() []goldenCase {
	withRBAC := engines{RBAC: testRBAC}
	answers := []string{"--config", expl + "/chain.yaml", "--webhook-answers", expl + "/answers.yaml"}
	return []goldenCase{
		{name: "help", args: []string{"--help"}},
		{name: "usage-unknown-flag", args: []string{"authz", "validate", "--nope", "x"}, exit: 2},
		{name: "usage-bad-output", args: []string{"crd", "check", "-o", "xml", rwCRDs}, exit: 2},
		{name: "usage-no-args", args: []string{"crd", "check"}, exit: 2},

		{name: "authz-validate-realworld", args: []string{"authz", "validate", rwAuthz}, exit: 1},
		{name: "authz-validate-realworld-json", args: []string{"authz", "validate", "-o", "json", rwAuthz}, exit: 1},
		{name: "authz-validate-yaml", args: []string{"authz", "validate", "-o", "yaml", rwAuthz + "/kubernetes__website__blog-structured-authz-beta-sample-original.yaml", rwAuthz + "/gardener__gardener__authz-config-without-seedauthorizer.yaml"}, exit: 1},
		{name: "authz-validate-valid", args: []string{"authz", "validate", rwAuthz + "/gardener__gardener__authz-config-with-seedauthorizer.yaml", rwAuthz + "/telekom__auth-operator__run-authorization-chain-authorization.yaml"}},
		{name: "authz-validate-hints-only", args: []string{"authz", "validate", "testdata/validate/typo-ttl.yaml"}},
		{name: "authz-validate-strict", args: []string{"authz", "validate", "--strict", "testdata/validate/typo-ttl.yaml"}, exit: 1},
		{name: "authz-validate-early-draft", args: []string{"authz", "validate", "testdata/validate/early-draft.yaml"}, exit: 1},
		{name: "authz-validate-wrong-name", args: []string{"authz", "validate", "testdata/validate/wrong-name.yaml"}, exit: 1},
		{name: "authz-validate-kubeconfig-files", args: []string{"authz", "validate", "--check-kubeconfig-files", rwAuthz + "/gardener__gardener__authz-config-with-seedauthorizer.yaml"}, exit: 1},
		{name: "authz-validate-reload-adds-node", args: []string{"authz", "validate", "--reload-of", rwAuthz + "/kubernetes__kubernetes__authz-config-test-rbac-only-v1alpha1.yaml", rwAuthz + "/gardener__gardener__authz-config-without-seedauthorizer.yaml"}, exit: 1},
		{name: "authz-validate-reload-drops-node", args: []string{"authz", "validate", "-o", "json", "--reload-of", rwAuthz + "/gardener__gardener__authz-config-without-seedauthorizer.yaml", rwAuthz + "/kubernetes__kubernetes__authz-config-test-rbac-only-v1alpha1.yaml", "testdata/validate/wrong-name.yaml"}, exit: 1},
		{name: "authz-validate-reload-fine", args: []string{"authz", "validate", "--reload-of", rwAuthz + "/gardener__gardener__authz-config-with-seedauthorizer.yaml", rwAuthz + "/gardener__gardener__authz-config-without-seedauthorizer.yaml"}},
		{name: "authz-validate-reload-of-bad", args: []string{"authz", "validate", "--reload-of", rwAuthz + "/kubernetes__kubernetes__load-test-unknown-field-typo.json", rwAuthz + "/gardener__gardener__authz-config-without-seedauthorizer.yaml"}, exit: 2},
		{name: "authz-validate-stdin", args: []string{"authz", "validate", "-"}, stdin: "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: AlwaysAllow\n  name: alwaysallow\n"},
		{name: "authz-validate-missing-file", args: []string{"authz", "validate", "testdata/nope.yaml", "testdata/validate/wrong-name.yaml"}, exit: 2},
		{name: "authz-validate-color", args: []string{"authz", "validate", "--color", "always", rwAuthz + "/gardener__gardener__authz-config-with-seedauthorizer-0s-ttl.yaml", rwAuthz + "/kubernetes__kubernetes__load-test-unknown-field-typo.json"}, exit: 1},

		{name: "authz-explain-allow", args: append([]string{"authz", "explain", "--as", "alice", "--groups", "developers,system:authenticated", "get", "pods", "-n", "dev"}, answers...)},
		{name: "authz-explain-deny", args: append([]string{"authz", "explain", "--as", "bob", "delete", "customresourcedefinitions.apiextensions.k8s.io", "foos.example.com"}, answers...), exit: 1},
		{name: "authz-explain-crd-admin", args: append([]string{"authz", "explain", "--as", "carol", "--groups", "platform-admins", "delete", "customresourcedefinitions.apiextensions.k8s.io", "foos.example.com"}, answers...)},
		{name: "authz-explain-masters", args: append([]string{"authz", "explain", "--as", "root", "--groups", "system:masters", "delete", "customresourcedefinitions.apiextensions.k8s.io", "foos.example.com"}, answers...)},
		{name: "authz-explain-no-opinion-json", args: append([]string{"authz", "explain", "-o", "json", "--as", "alice", "--groups", "developers", "get", "secrets", "-n", "prod", "db"}, answers...), exit: 1},
		{name: "authz-explain-webhook-down", args: []string{"authz", "explain", "--config", expl + "/chain.yaml", "--webhook-answers", expl + "/answers-down.yaml", "--as", "alice", "--groups", "developers", "get", "/healthz"}, exit: 1},
		{name: "authz-explain-webhook-down-yaml", args: []string{"authz", "explain", "-o", "yaml", "--config", expl + "/chain.yaml", "--webhook-answers", expl + "/answers-down.yaml", "--as", "alice", "--groups", "developers", "get", "pods/log", "-n", "dev", "web-0"}, exit: 1},
		{name: "authz-explain-node-user", args: append([]string{"authz", "explain", "--as", "system:node:", "--groups", "system:nodes", "get", "secrets", "-n", "dev", "db"}, answers...), exit: 1},
		{name: "authz-explain-node-graph", args: append([]string{"authz", "explain", "--as", "system:node:worker-1", "--groups", "system:nodes", "get", "secrets", "-n", "dev", "db"}, answers...), exit: 2},
		{name: "authz-explain-rbac-unavailable", args: []string{"authz", "explain", "--config", expl + "/rbac.yaml", "--as", "alice", "get", "pods"}, exit: 2},
		{name: "authz-explain-rbac-flag-unknown", args: []string{"authz", "explain", "--config", expl + "/rbac.yaml", "--rbac", expl, "--as", "alice", "get", "pods"}, exit: 2},
		{name: "authz-explain-rbac-seam", args: []string{"authz", "explain", "--config", expl + "/rbac.yaml", "--rbac", expl, "--as", "alice", "--groups", "readers", "list", "pods", "-n", "dev"}, engines: withRBAC},
		{name: "authz-explain-rbac-without-rbac", args: append([]string{"authz", "explain", "--rbac", expl, "--as", "alice", "get", "pods"}, answers...), engines: withRBAC, exit: 2},
		{name: "authz-explain-rbac-needs-dir", args: []string{"authz", "explain", "--config", expl + "/rbac.yaml", "--as", "alice", "get", "pods"}, engines: withRBAC, exit: 2},
		{name: "authz-explain-answers-incomplete", args: []string{"authz", "explain", "--config", expl + "/chain.yaml", "--webhook-answers", expl + "/answers-incomplete.yaml", "--as", "alice", "get", "pods"}, exit: 2},
		{name: "authz-explain-invalid-config", args: []string{"authz", "explain", "--config", rwAuthz + "/kubernetes__website__blog-structured-authz-beta-nested-webhooks-revised.yaml", "--as", "alice", "get", "pods"}, exit: 2},
		{name: "authz-explain-real-webhook-missing", args: []string{"authz", "explain", "--config", expl + "/chain.yaml", "--as", "alice", "get", "pods"}, exit: 2},
		{name: "authz-explain-incluster", args: []string{"authz", "explain", "--config", expl + "/incluster.yaml", "--as", "alice", "get", "pods"}, exit: 2},
		{name: "authz-explain-incluster-answered", args: []string{"authz", "explain", "--config", expl + "/incluster.yaml", "--webhook-answers", expl + "/incluster-answers.yaml", "--as", "mallory", "get", "pods"}, exit: 1},
		{name: "authz-explain-incluster-stdin", args: []string{"authz", "explain", "--config", "-", "--webhook-answers", expl + "/incluster-answers.yaml", "--as", "alice", "get", "pods"}, stdin: mustRead(expl + "/incluster.yaml")},
		{name: "help-authz-explain", args: []string{"authz", "explain", "--help"}},
		{name: "authz-validate-empty-dir", args: []string{"authz", "validate", "testdata/golden"}, exit: 2},
		{name: "authz-explain-bad-resource", args: append([]string{"authz", "explain", "--as", "alice", "get", "pods/log/x"}, answers...), exit: 2},
		{name: "authz-explain-path-with-namespace", args: append([]string{"authz", "explain", "--as", "alice", "get", "/healthz", "-n", "dev"}, answers...), exit: 2},

		{name: "authz-migrate", args: []string{"authz", "migrate", "--authorization-mode=Node,RBAC,Webhook", "--authorization-webhook-config-file=/etc/kubernetes/authz-webhook.kubeconfig", "--authorization-webhook-version=v1", "--authorization-webhook-cache-authorized-ttl=2m", "--authorization-webhook-cache-unauthorized-ttl=0s"}},
		{name: "authz-migrate-json", args: []string{"authz", "migrate", "-o", "json", "--config-path", "/srv/authz.yaml", "--config-version", "v1beta1", "--", "kube-apiserver", "--etcd-servers=https://etcd:2379", "--authorization-mode=ABAC,RBAC", "--authorization-mode", "Webhook", "--authorization-webhook-config-file=/etc/wh.kubeconfig", "--authorization-policy-file=/etc/abac.jsonl"}},
		{name: "authz-migrate-refused", args: []string{"authz", "migrate", "--authorization-mode=Node,Foo,Webhook"}, exit: 1},
		{name: "authz-migrate-config-used", args: []string{"authz", "migrate", "--", "--authorization-config=/etc/authz.yaml"}, exit: 1},
		{name: "authz-migrate-nothing", args: []string{"authz", "migrate"}, exit: 2},

		{name: "crd-check-realworld", args: []string{"crd", "check", rwCRDs}, exit: 1},
		{name: "crd-check-realworld-json", args: []string{"crd", "check", "-o", "json", rwCRDs}, exit: 1},
		{name: "crd-check-approved-yaml", args: []string{"crd", "check", "-o", "yaml", rwCRDs + "/kubernetes-sigs__external-dns__dnsendpoint.yaml"}},
		{name: "crd-check-mixed", args: []string{"crd", "check", "testdata/crd/mixed.yaml"}, exit: 2},
		{name: "crd-check-stdin", args: []string{"crd", "check", "-"}, stdin: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.x.k8s.io\n  annotations:\n    api-approved.kubernetes.io: unapproved, testing\nspec:\n  group: x.k8s.io\n"},
		{name: "crd-check-missing-file", args: []string{"crd", "check", "testdata/nope.yaml"}, exit: 2},
	}
}

func mustRead(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// runCommand runs a command line in process.
func runCommand(args []string, stdin string, eng engines) (stdout, stderr string, exit int) {
	var out, errOut bytes.Buffer
	exit = run(args, strings.NewReader(stdin), &out, &errOut, eng)
	return out.String(), errOut.String(), exit
}

// goldenText is what a golden file holds.
func goldenText(c goldenCase, stdout, stderr string, exit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ gatehouse %s\n", strings.Join(c.args, " "))
	if c.stdin != "" {
		fmt.Fprintf(&b, "--- stdin\n%s", c.stdin)
	}
	fmt.Fprintf(&b, "--- stdout\n%s", stdout)
	fmt.Fprintf(&b, "--- stderr\n%s", stderr)
	fmt.Fprintf(&b, "--- exit %d\n", exit)
	return b.String()
}

func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			require.False(t, seen[c.name], "duplicate case")
			seen[c.name] = true
			stdout, stderr, exit := runCommand(c.args, c.stdin, c.engines)
			got := goldenText(c, stdout, stderr, exit)
			path := filepath.Join("testdata", "golden", c.name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to write it")
			assert.Equal(t, string(want), got)
			assert.Equal(t, c.exit, exit, "exit status")
		})
	}
	// No golden file is left without its case.
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.golden"))
	require.NoError(t, err)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".golden")
		if !seen[name] {
			if *update {
				require.NoError(t, os.Remove(f))
				continue
			}
			t.Errorf("%s has no case in goldenCases", f)
		}
	}
}

// TestVersion checks gatehouse version and --version; their output depends
// on the build, so it is not golden.
func TestVersion(t *testing.T) {
	stdout, stderr, exit := runCommand([]string{"version"}, "", engines{})
	assert.Equal(t, 0, exit)
	assert.Empty(t, stderr)
	assert.Regexp(t, `^gatehouse \S+.* \(answers of Kubernetes 1\.37, go1\.\d+.*\)\n$`, stdout)

	stdout, _, exit = runCommand([]string{"version", "-o", "json"}, "", engines{})
	assert.Equal(t, 0, exit)
	assert.Contains(t, stdout, `"kubernetes": "1.37"`)

	stdout, _, exit = runCommand([]string{"--version"}, "", engines{})
	assert.Equal(t, 0, exit)
	assert.True(t, strings.HasPrefix(stdout, "gatehouse version "), stdout)
}

// TestCompletion checks that cobra's shell completion is there.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		stdout, stderr, exit := runCommand([]string{"completion", shell}, "", engines{})
		assert.Equal(t, 0, exit, shell)
		assert.Empty(t, stderr, shell)
		assert.Contains(t, stdout, "gatehouse", shell)
	}
	// Completion of -o values.
	stdout, _, exit := runCommand([]string{"__complete", "crd", "check", "-o", ""}, "", engines{})
	assert.Equal(t, 0, exit)
	assert.Equal(t, []string{"text", "json", "yaml"}, strings.Fields(strings.Split(stdout, ":")[0]))
}

// TestNoColorOffTerminal: colour is never written to a pipe or a file in
// auto mode.
func TestNoColorOffTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	defer f.Close()
	a := &app{stdout: f, color: "auto"}
	assert.False(t, a.colorOn())
	a.color = "always"
	assert.True(t, a.colorOn())
	a.color = "never"
	assert.False(t, a.colorOn())
	var buf bytes.Buffer
	a = &app{stdout: &buf, color: "auto"}
	assert.False(t, a.colorOn())
}

func TestExitStatusOfErrors(t *testing.T) {
	assert.True(t, errors.Is(errFindings, errFindings))
	_, _, exit := runCommand([]string{"authz", "validate", rwAuthz + "/gardener__gardener__authz-config-with-seedauthorizer.yaml"}, "", engines{})
	assert.Equal(t, exitOK, exit)
}
