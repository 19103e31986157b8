package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
)

// TestExplainCallsRealWebhook: without --webhook-answers, authz explain
// calls the webhook named by the configuration's kubeconfig file, with
// kube-apiserver's SubjectAccessReview.
func TestExplainCallsRealWebhook(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{
		Decide: func(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
			if spec.User == "alice" && spec.ResourceAttributes != nil && spec.ResourceAttributes.Namespace == "dev" {
				return authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "alice owns dev"}
			}
			return authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "no"}
		},
	})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "webhook.kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kubeconfig))
	config := filepath.Join(dir, "authz.yaml")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: owner
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1beta1
    failurePolicy: Deny
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: %s
`, kubeconfig)), 0o644))

	tests := []struct {
		args     []string
		exit     int
		decision string
		reason   string
	}{
		{[]string{"--as", "alice", "--groups", "devs", "get", "pods", "-n", "dev", "web"}, exitOK, "Allow", "alice owns dev"},
		{[]string{"--as", "bob", "get", "pods", "-n", "dev"}, exitFindings, "Deny", "no"},
	}
	for _, tt := range tests {
		stdout, stderr, exit := runCommand(append([]string{"authz", "explain", "-o", "json", "--config", config}, tt.args...), "", engines{})
		require.Empty(t, stderr)
		assert.Equal(t, tt.exit, exit)
		var report explainReport
		require.NoError(t, json.Unmarshal([]byte(stdout), &report))
		assert.Equal(t, tt.decision, report.Decision)
		assert.Equal(t, tt.reason, report.Reason)
		require.Len(t, report.Steps, 2)
		assert.Equal(t, "owner", report.Steps[1].Name)
		require.NotNil(t, report.Steps[1].Webhook)
		assert.Equal(t, []explainAttempt{{Result: "success", StatusCode: 200, Requests: 1}}, report.Steps[1].Webhook.Attempts)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "authorization.k8s.io/v1beta1", reqs[0].APIVersion)
	require.NotNil(t, reqs[0].Spec)
	assert.Equal(t, "alice", reqs[0].Spec.User)
	assert.Equal(t, []string{"devs"}, reqs[0].Spec.Groups)
	assert.Equal(t, &authorizationv1.ResourceAttributes{Namespace: "dev", Verb: "get", Resource: "pods", Name: "web"}, reqs[0].Spec.ResourceAttributes)
	assert.Equal(t, "bob", reqs[1].Spec.User)
}
