package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden with the output of the commands")

// goldenCase is one command line whose output testdata/golden/<name>.golden
// holds: the command, its standard output, its standard error and its exit
// status.
type goldenCase struct {
	name  string
	args  []string
	stdin string
	// exit is the expected exit status, checked also when updating.
	exit int
}

const (
	rwAuthz = "testdata/realworld/authorization-config"
	rwCRDs  = "testdata/realworld/crds-protected-groups"
	expl    = "testdata/explain"
	rbacDir = "testdata/rbac"
	rwAdm   = "testdata/realworld/admission-webhooks"
	rwMAP   = "testdata/realworld/mutating-admission-policy"
	mut     = "testdata/mutate"
	adm     = "testdata/admit"
	us      = "testdata/test/usability"
	rwVAP   = "testdata/realworld/validating-admission-policy"
	kyv     = "testdata/kyverno"
)

// realworldVAPs are the published ValidatingAdmissionPolicy files that
// decode (the others are not YAML kubectl reads, or use fields that do not
// exist: validatingpolicy's TestRealWorldVerdicts pins those refusals).
func realworldVAPs() []string {
	undecodable := map[string]bool{
		"kubernetes__enhancements__kep-3488-certificate-approval.yaml":                          true,
		"kubernetes__enhancements__kep-3488-match-conditions.yaml":                              true,
		"kubernetes__enhancements__kep-3488-namespace-param-ref-selector.yaml":                  true,
		"kubernetes__website__blog-vap-alpha-binding-test.yaml":                                 true,
		"kubernetes__website__deployment-replicas-policy-v1alpha1-paramkind-group-version.yaml": true,
		"kubernetes__website__failure-policy-ignore.yaml":                                       true,
		"pfnet__kaptest__complicated-policy-params.yaml":                                        true,
	}
	files, _ := filepath.Glob(filepath.Join(rwVAP, "*.yaml"))
	var out []string
	for _, f := range files {
		if !undecodable[filepath.Base(f)] && !strings.Contains(f, "static-") {
			out = append(out, f)
		}
	}
	return out
}

// kyvernoSuites are the Kyverno CLI test files of testdata/kyverno.
func kyvernoSuites() []string {
	var out []string
	_ = filepath.WalkDir(kyv, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "kyverno-test.yaml" {
			out = append(out, path)
		}
		return err
	})
	return out
}

// realworldManifests are the real-world admission files that are manifests
// (the others are AdmissionConfigurations).
func realworldManifests() []string {
	names, _ := filepath.Glob(rwAdm + "/*.yaml")
	var manifests []string
	for _, n := range names {
		if !strings.Contains(n, "admission-configuration") {
			manifests = append(manifests, n)
		}
	}
	return manifests
}

// realworldResources are the real-world objects that the published
// MutatingAdmissionPolicies are tested on.
func realworldResources() []string {
	names, _ := filepath.Glob(rwMAP + "/*-resource.yaml")
	return names
}

func goldenCases() []goldenCase {
	answers := []string{"--config", expl + "/chain.yaml", "--webhook-answers", expl + "/answers.yaml"}
	return []goldenCase{
		{name: "help", args: []string{"--help"}},
		{name: "help-mutate", args: []string{"mutate", "--help"}},
		{name: "mutate-sidecar", args: []string{"mutate", "--policies", mut + "/sidecar-jsonpatch.yaml," + mut + "/sidecar-binding.yaml", mut + "/pods.yaml"}, exit: 1},
		{name: "mutate-sidecar-json", args: []string{"mutate", "-o", "json", "--policies", mut + "/sidecar-jsonpatch.yaml," + mut + "/sidecar-binding.yaml", mut + "/pods.yaml"}, exit: 1},
		{name: "mutate-namespaces", args: []string{"mutate", "--bind-unbound", "--policies", mut + "/pod-security-baseline.yaml", "--namespaces", mut + "/namespaces.yaml", mut + "/namespaces.yaml"}},
		{name: "mutate-idempotent", args: []string{"mutate", "--check-idempotent", "--no-diff", "--policies", mut + "/append-annotation.yaml", mut + "/pods.yaml"}, exit: 1},
		{name: "mutate-realworld", args: append([]string{"mutate", "--no-diff", "--policies", rwMAP, "--params", rwMAP}, realworldResources()...), exit: 1},
		{name: "mutate-unbound", args: []string{"mutate", "--policies", mut + "/pod-security-baseline.yaml", mut + "/namespaces.yaml"}},
		// Nothing applies to the pods: no diff, though kube-apiserver would
		// hold them with resources: {} and status: {}.
		{name: "mutate-unbound-pods", args: []string{"mutate", "--policies", mut + "/sidecar-jsonpatch.yaml", mut + "/pods.yaml"}},
		{name: "mutate-no-match-pods", args: []string{"mutate", "--bind-unbound", "--policies", mut + "/pod-security-baseline.yaml", mut + "/pods.yaml"}},
		{name: "mutate-usage-no-policies", args: []string{"mutate", mut + "/pods.yaml"}, exit: 2},
		{name: "help-admit", args: []string{"admit", "--help"}},
		{name: "admit-chain", args: []string{"admit", "--policies", adm + "/mutating.yaml," + adm + "/validating.yaml", "--params", adm + "/params.yaml", "--namespaces", adm + "/namespaces.yaml", adm + "/objects.yaml"}, exit: 1},
		{name: "admit-chain-json", args: []string{"admit", "-o", "json", "--policies", adm + "/mutating.yaml," + adm + "/validating.yaml", "--params", adm + "/params.yaml", "--namespaces", adm + "/namespaces.yaml", adm + "/objects.yaml"}, exit: 1},
		{name: "admit-delete", args: []string{"admit", "--operation", "DELETE", "--policies", adm + "/validating.yaml", adm + "/objects.yaml"}},
		{name: "admit-webhooks", args: []string{"admit", "--policies", adm + "/mutating.yaml", "--namespaces", adm + "/namespaces.yaml", "--webhooks", adm + "/webhooks.yaml", "--webhook-answers", adm + "/answers.yaml", adm + "/objects.yaml"}, exit: 1},
		{name: "admit-webhooks-json", args: []string{"admit", "-o", "json", "--policies", adm + "/mutating.yaml", "--namespaces", adm + "/namespaces.yaml", "--webhooks", adm + "/webhooks.yaml", "--webhook-answers", adm + "/answers.yaml", adm + "/objects.yaml"}, exit: 1},
		{name: "admit-webhooks-unanswered", args: []string{"admit", "--no-diff", "--policies", adm + "/mutating.yaml", "--webhooks", adm + "/webhooks.yaml", adm + "/objects.yaml"}},
		{name: "admit-webhooks-usage", args: []string{"admit", "--policies", adm + "/mutating.yaml", "--webhooks", adm + "/webhooks.yaml", "--webhook-answers", adm + "/answers.yaml", "--call-webhooks", adm + "/objects.yaml"}, exit: 2},
		{name: "admit-usage-no-policies", args: []string{"admit", adm + "/objects.yaml"}, exit: 2},
		{name: "admit-usage-operation", args: []string{"admit", "--operation", "PATCH", "--policies", adm + "/validating.yaml", adm + "/objects.yaml"}, exit: 2},
		// PodSecurity, enabled as kube-apiserver enables it, over the
		// namespaces' labels: the privileged pod is denied in prod
		// (enforce: restricted) with kube-apiserver's message, warned and
		// audited in dev; the Deployment's template only warns.
		{name: "admit-podsecurity", args: []string{"admit", "--policies", adm + "/podsecurity/policies.yaml", "--namespaces", adm + "/podsecurity/namespaces.yaml", adm + "/podsecurity/pods.yaml"}, exit: 1},
		{name: "admit-podsecurity-exempt", args: []string{"admit", "--pod-security-config", adm + "/podsecurity/exempt-prod.yaml", "--policies", adm + "/podsecurity/policies.yaml", "--namespaces", adm + "/podsecurity/namespaces.yaml", adm + "/podsecurity/pods.yaml"}},
		{name: "admit-podsecurity-bad-config", args: []string{"admit", "--pod-security-config", adm + "/podsecurity/bad-config.yaml", "--policies", adm + "/podsecurity/policies.yaml", adm + "/podsecurity/pods.yaml"}, exit: 2},
		{name: "help-test", args: []string{"test", "--help"}},
		{name: "test-suites", args: []string{"test", "testdata/test/gatehouse.test.yaml", "testdata/test/kaptest.yaml", "testdata/test/kaptest-v0.1.yaml"}, exit: 1},
		{name: "test-authorizer", args: []string{"test", "testdata/test/authorizer.test.yaml"}},
		{name: "test-podsecurity", args: []string{"test", "testdata/test/podsecurity.test.yaml"}},
		{name: "admit-rbac-alice", args: []string{"admit", "--as", "alice", "--rbac", adm + "/rbac", "--policies", adm + "/authz-policy.yaml", adm + "/privileged-pod.yaml"}},
		{name: "admit-rbac-bob", args: []string{"admit", "--as", "bob", "--rbac", adm + "/rbac", "--policies", adm + "/authz-policy.yaml", adm + "/privileged-pod.yaml"}, exit: 1},
		{name: "admit-no-authorizer", args: []string{"admit", "--as", "bob", "--policies", adm + "/authz-policy.yaml", adm + "/privileged-pod.yaml"}, exit: 1},
		{name: "test-webhooks", args: []string{"test", "testdata/test/webhooks.test.yaml"}},
		{name: "test-suites-json", args: []string{"test", "-o", "json", "testdata/test/kaptest.yaml"}, exit: 1},
		{name: "test-suites-junit", args: []string{"test", "-o", "junit", "testdata/test/gatehouse.test.yaml", "testdata/test/kaptest.yaml"}, exit: 1},
		{name: "test-junit-elsewhere", args: []string{"admit", "-o", "junit", "--policies", adm + "/validating.yaml", adm + "/objects.yaml"}, exit: 2},
		{name: "test-missing-file", args: []string{"test", "testdata/test/nope.yaml"}, exit: 2},
		// Issue 28's usability items: per-policy expectations, references
		// that cannot resolve to the wrong object, diff labels, unique case
		// names, errors with file and line, kaptest's current fields, a
		// missing file reported once, -n.
		{name: "test-usability", args: []string{"test", us + "/usability.test.yaml", us + "/kaptest.yaml", us + "/bad-field.test.yaml", us + "/kaptest-missing.yaml"}, exit: 2},
		{name: "test-usability-junit", args: []string{"test", "-o", "junit", us + "/usability.test.yaml", us + "/kaptest.yaml"}, exit: 1},
		{name: "test-usability-namespace", args: []string{"test", "-n", "shop", us + "/usability.test.yaml"}, exit: 1},
		// kaptest's published examples and its own test suites, unmodified:
		// each case agrees, or fails with why kube-apiserver answers
		// otherwise.
		{name: "test-kaptest-published", args: append([]string{"test"}, kaptestPublished()...), exit: 1},
		{name: "admit-policy-as-object", args: []string{"admit", "--policies", us + "/policies.yaml", us + "/binding-only.yaml", us + "/resources.yaml"}, exit: 2},
		{name: "admit-namespace", args: []string{"admit", "--no-diff", "-n", "shop", "--namespaces", us + "/namespaces.yaml", "--policies", us + "/policies.yaml", us + "/resources.yaml"}},
		{name: "mutate-namespace", args: []string{"mutate", "--no-diff", "--namespace", "shop", "--namespaces", us + "/namespaces.yaml", "--policies", us + "/policies.yaml", us + "/resources.yaml"}},
		// Kyverno's published suites of native policies, unmodified: the
		// failures are where Kyverno's model differs from kube-apiserver's,
		// each with its note.
		{name: "test-kyverno", args: append([]string{"test"}, kyvernoSuites()...), exit: 1},
		{name: "test-kyverno-bind-unbound", args: append([]string{"test", "--bind-unbound"}, kyvernoSuites()...), exit: 1},
		{name: "test-kyverno-json", args: []string{"test", "-o", "json", kyv + "/test-validating-admission-policy/with-params/kyverno-test.yaml", kyv + "/test-mutating-admission-policy/with-two-params/kyverno-test.yaml"}, exit: 1},
		{name: "test-kyverno-skipped-junit", args: []string{"test", "-o", "junit", "testdata/test/kyverno-mixed/kyverno-test.yaml"}},
		{name: "admit-realworld-mutating", args: append([]string{"admit", "--no-diff", "--policies", rwMAP, "--params", rwMAP}, realworldResources()...), exit: 1},
		{name: "admit-realworld", args: append([]string{"admit", "--no-diff", "--bind-unbound", "--policies", strings.Join(realworldVAPs(), ","), "--params", strings.Join(realworldVAPs(), ",")}, realworldVAPs()...), exit: 1},
		{name: "help-lint", args: []string{"lint", "--help"}},
		{name: "lint-realworld-map", args: []string{"lint", rwMAP}, exit: 1},
		{name: "lint-realworld-map-json", args: []string{"lint", "-o", "json", rwMAP}, exit: 1},
		{name: "lint-realworld-vap", args: append([]string{"lint"}, realworldVAPs()...), exit: 1},
		{name: "lint-realworld-vap-sarif", args: append([]string{"lint", "-o", "sarif"}, realworldVAPs()...), exit: 1},
		{name: "lint-realworld-vap-undecodable", args: []string{"lint", rwVAP}, exit: 2},
		{name: "lint-clean", args: []string{"lint", "testdata/lint/clean.yaml"}},
		{name: "lint-strict", args: []string{"lint", "--strict", "testdata/lint/warnings.yaml"}, exit: 1},
		{name: "lint-warnings", args: []string{"lint", "testdata/lint/warnings.yaml"}},
		{name: "lint-crds", args: []string{"lint", "--crds", "testdata/lint/crd.yaml", "testdata/lint/custom.yaml"}, exit: 1},
		// The resources served differ between versions: 1.37's with the
		// others' as other-version warnings, and 1.35's.
		{name: "lint-served-versions", args: []string{"lint", "testdata/lint/served-versions.yaml"}},
		{name: "lint-served-versions-1.35", args: []string{"lint", "--kube-version", "1.35", "testdata/lint/served-versions.yaml"}},
		{name: "lint-usage-no-args", args: []string{"lint"}, exit: 2},
		{name: "lint-bad-crds", args: []string{"lint", "--crds", "testdata/lint/clean.yaml", "testdata/lint/custom.yaml"}, exit: 2},
		{name: "lint-stdin-json", args: []string{"lint", "-o", "json", "-"}, stdin: mustRead("testdata/lint/warnings.yaml")},
		{name: "lint-sarif-elsewhere", args: []string{"crd", "check", "-o", "sarif", rwCRDs}, exit: 2},
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
		{name: "authz-explain-rbac", args: []string{"authz", "explain", "--config", expl + "/rbac.yaml", "--rbac", rbacDir, "--as", "jane", "--groups", "developers,system:authenticated", "list", "pods", "-n", "dev"}},
		{name: "authz-explain-rbac-json", args: []string{"authz", "explain", "-o", "json", "--config", expl + "/rbac.yaml", "--rbac", rbacDir, "--as", "eve", "delete", "pods", "-n", "dev"}, exit: 1},
		{name: "authz-explain-rbac-without-rbac", args: append([]string{"authz", "explain", "--rbac", rbacDir, "--as", "alice", "get", "pods"}, answers...), exit: 2},
		{name: "authz-explain-rbac-needs-dir", args: []string{"authz", "explain", "--config", expl + "/rbac.yaml", "--as", "alice", "get", "pods"}, exit: 2},
		{name: "authz-explain-rbac-stdin-twice", args: []string{"authz", "explain", "--config", "-", "--rbac", "-", "--as", "alice", "get", "pods"}, exit: 2},
		{name: "authz-explain-rbac-bad-dir", args: []string{"authz", "explain", "--config", expl + "/rbac.yaml", "--rbac", "testdata/rbac-bad", "--as", "alice", "get", "pods"}, exit: 2},

		{name: "help-rbac-can-i", args: []string{"rbac", "can-i", "--help"}},
		{name: "rbac-can-i-yes", args: []string{"rbac", "can-i", "--as", "jane", "--groups", "developers", "get", "pods/log", "web-0", "-n", "dev", "-f", rbacDir}},
		{name: "rbac-can-i-no", args: []string{"rbac", "can-i", "--as", "jane", "--groups", "developers", "delete", "pods", "-n", "dev", "-f", rbacDir}, exit: 1},
		{name: "rbac-can-i-service-account-json", args: []string{"rbac", "can-i", "-o", "json", "--as", "system:serviceaccount:dev:deployer", "patch", "deployments.apps/scale", "web", "-n", "dev", "-f", rbacDir}},
		{name: "rbac-can-i-resource-name-yaml", args: []string{"rbac", "can-i", "-o", "yaml", "--as", "system:serviceaccount:dev:deployer", "get", "secrets", "db", "-n", "dev", "-f", rbacDir}, exit: 1},
		{name: "rbac-can-i-path", args: []string{"rbac", "can-i", "--as", "bob", "--groups", "system:authenticated", "get", "/healthz/etcd", "-f", rbacDir}},
		{name: "rbac-can-i-missing-role", args: []string{"rbac", "can-i", "--as", "eve", "get", "pods", "-f", rbacDir}, exit: 1},
		{name: "rbac-can-i-list", args: []string{"rbac", "can-i", "--list", "--as", "jane", "--groups", "developers,system:authenticated", "-n", "dev", "-f", rbacDir}},
		{name: "rbac-can-i-list-json", args: []string{"rbac", "can-i", "--list", "-o", "json", "--as", "eve", "-f", rbacDir}},
		{name: "rbac-can-i-stdin", args: []string{"rbac", "can-i", "--as", "alice", "get", "configmaps", "-n", "dev", "-f", "-"}, stdin: mustRead(rbacDir+"/apps/web.yaml") + "---\n" + mustRead(rbacDir+"/base/aggregated-roles.yaml")},
		{name: "rbac-can-i-bad-dir", args: []string{"rbac", "can-i", "--as", "alice", "get", "pods", "-f", "testdata/rbac-bad"}, exit: 2},
		{name: "rbac-can-i-no-objects", args: []string{"rbac", "can-i", "--as", "alice", "get", "pods", "-f", expl + "/rbac.yaml"}, exit: 2},
		{name: "rbac-can-i-missing-files", args: []string{"rbac", "can-i", "--as", "alice", "get", "pods"}, exit: 2},
		{name: "rbac-can-i-list-with-request", args: []string{"rbac", "can-i", "--list", "--as", "alice", "get", "pods", "-f", rbacDir}, exit: 2},
		{name: "help-rbac-who-can", args: []string{"rbac", "who-can", "--help"}},
		{name: "rbac-who-can", args: []string{"rbac", "who-can", "list", "pods", "-n", "dev", "-f", rbacDir}},
		{name: "rbac-who-can-json", args: []string{"rbac", "who-can", "-o", "json", "update", "deployments.apps", "web", "-n", "dev", "-f", rbacDir}},
		{name: "rbac-who-can-path-yaml", args: []string{"rbac", "who-can", "-o", "yaml", "get", "/readyz", "-f", rbacDir}},
		{name: "rbac-who-can-bad-resource", args: []string{"rbac", "who-can", "get", "pods/log/x", "-f", rbacDir}, exit: 2},
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

		{name: "help-admission-validate", args: []string{"admission", "validate", "--help"}},
		{name: "admission-validate-realworld", args: append([]string{"admission", "validate"}, realworldManifests()...), exit: 1},
		{name: "admission-validate-realworld-json", args: append([]string{"admission", "validate", "-o", "json"}, realworldManifests()...), exit: 1},
		{name: "admission-validate-dir-yaml", args: []string{"admission", "validate", "-o", "yaml", "testdata/admission/policies"}},
		{name: "admission-validate-wrong-plugin", args: []string{"admission", "validate", "--plugin", "MutatingAdmissionPolicy", "testdata/admission/policies"}, exit: 1},
		{name: "admission-validate-config", args: []string{"admission", "validate", "--admission-config", rwAdm + "/kubernetes__website__static-admission-configuration.yaml"}, exit: 1},
		{name: "admission-validate-config-as-path", args: []string{"admission", "validate", rwAdm + "/kubernetes__website__static-admission-configuration.yaml"}, exit: 2},
		{name: "admission-validate-unknown-plugin", args: []string{"admission", "validate", "--plugin", "Webhook", "testdata/admission/policies"}, exit: 2},
		{name: "admission-validate-config-and-paths", args: []string{"admission", "validate", "--admission-config", "x.yaml", "testdata/admission/policies"}, exit: 2},
		{name: "admission-validate-missing", args: []string{"admission", "validate", "testdata/admission/nope"}, exit: 2},
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
func runCommand(args []string, stdin string) (stdout, stderr string, exit int) {
	var out, errOut bytes.Buffer
	exit = run(args, strings.NewReader(stdin), &out, &errOut)
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
			stdout, stderr, exit := runCommand(c.args, c.stdin)
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
	stdout, stderr, exit := runCommand([]string{"version"}, "")
	assert.Equal(t, 0, exit)
	assert.Empty(t, stderr)
	assert.Regexp(t, `^gatehouse \S+.* \(answers of Kubernetes 1\.37, go1\.\d+.*\)\nanswers for Kubernetes 1\.35, 1\.36, 1\.37 \(default\), 1\.38 \(beta\) \(--kube-version\)\n$`, stdout)
	stdout, _, exit = runCommand([]string{"version", "--kube-version", "1.36"}, "")
	assert.Equal(t, 0, exit)
	assert.Contains(t, stdout, "(answers of Kubernetes 1.36,")

	stdout, _, exit = runCommand([]string{"version", "-o", "json"}, "")
	assert.Equal(t, 0, exit)
	assert.Contains(t, stdout, `"kubernetes": "1.37"`)
	assert.Contains(t, stdout, `"release": "1.38.0-beta.0"`)

	stdout, _, exit = runCommand([]string{"--version"}, "")
	assert.Equal(t, 0, exit)
	assert.True(t, strings.HasPrefix(stdout, "gatehouse version "), stdout)
}

// TestCompletion checks that cobra's shell completion is there.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		stdout, stderr, exit := runCommand([]string{"completion", shell}, "")
		assert.Equal(t, 0, exit, shell)
		assert.Empty(t, stderr, shell)
		assert.Contains(t, stdout, "gatehouse", shell)
	}
	// Completion of -o values.
	stdout, _, exit := runCommand([]string{"__complete", "crd", "check", "-o", ""}, "")
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
	_, _, exit := runCommand([]string{"authz", "validate", rwAuthz + "/gardener__gardener__authz-config-with-seedauthorizer.yaml"}, "")
	assert.Equal(t, exitOK, exit)
}

// kaptestPublished are kaptest's published test manifests whose files are
// all here (testdata/kaptest/SOURCES.md).
func kaptestPublished() []string {
	files := []string{"testdata/kaptest/examples/simple/simple-policy.test/kaptest.yaml", "testdata/kaptest/examples/complicated/complicated-policy.test/kaptest.yaml"}
	tester, _ := filepath.Glob("testdata/kaptest/tester/*.test/kaptest.yaml")
	return append(files, tester...)
}
