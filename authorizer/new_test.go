package authorizer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// rbacStandIn allows what a tiny role table allows, as RBAC would.
func rbacStandIn(allowed map[string]bool) Authorizer {
	return Func(func(_ context.Context, a *Attributes) (Decision, string, error) {
		if a.User != nil && allowed[a.User.Name+" "+a.Verb+" "+a.Resource] {
			return DecisionAllow, "RBAC: allowed by ClusterRoleBinding", nil
		}
		return DecisionNoOpinion, "", nil
	})
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

const kepConfig = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: kube-system-protector
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: %s
    matchConditions:
    - expression: has(request.resourceAttributes)
    - expression: request.resourceAttributes.namespace == 'kube-system'
    - expression: "!('system:serviceaccounts:kube-system' in request.groups)"
- type: Node
  name: node
- type: RBAC
  name: rbac
- type: Webhook
  name: catch-all
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1beta1
    failurePolicy: NoOpinion
    cacheAuthorizedRequests: false
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: %s
`

func TestNewBuildsKubeAPIServersChain(t *testing.T) {
	protector, kc1 := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(false, true, "kube-system is protected"))})
	catchAll, kc2 := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "catch-all allows"))})
	cfg, err := authzconfig.Decode([]byte(fmt.Sprintf(kepConfig, kc1, kc2)))
	require.NoError(t, err)
	require.Empty(t, authzconfig.Validate(cfg, authzconfig.ValidateOptions{}))

	mem := metrics.NewMemory()
	chain, err := New(cfg, Options{
		Authorizers: map[string]Authorizer{
			"Node": AlwaysDeny(),
			"RBAC": rbacStandIn(map[string]bool{"alice get pods": true}),
		},
		Metrics: mem,
		Clock:   testingclock.NewFakeClock(time.Now()),
	})
	require.NoError(t, err)
	assert.Equal(t, []string{PrivilegedGroupsName, "kube-system-protector", "node", "rbac", "catch-all"}, chain.Names())

	ctx := context.Background()
	kubeSystem := podGet("bob")
	kubeSystem.Namespace = "kube-system"
	tests := []struct {
		name       string
		attrs      *Attributes
		wantD      Decision
		wantReason string
	}{
		{"system:masters first", func() *Attributes { a := podGet("root", "system:masters"); a.Namespace = "kube-system"; return a }(), DecisionAllow, ""},
		{"protected namespace", kubeSystem, DecisionDeny, "kube-system is protected"},
		{"rbac allows", podGet("alice"), DecisionAllow, "RBAC: allowed by ClusterRoleBinding"},
		{"catch-all allows the rest", podGet("carol"), DecisionAllow, "catch-all allows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := chain.Authorize(ctx, tt.attrs)
			require.NoError(t, err)
			assert.Equal(t, tt.wantD, d)
			assert.Equal(t, tt.wantReason, reason)
		})
	}
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationDecisions, "Webhook", "kube-system-protector", "denied"))
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationDecisions, "RBAC", "rbac", "allowed"))
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationDecisions, "Webhook", "catch-all", "allowed"))
	assert.Len(t, mem.Series(metrics.AuthorizationDecisions), 3, "the system:masters authorizer is not counted")
	assert.Len(t, protector.Requests(), 1, "match conditions kept the others away")

	// cacheAuthorizedRequests: false: the catch-all asks every time.
	_, _, err = chain.Authorize(ctx, podGet("carol"))
	require.NoError(t, err)
	assert.Len(t, catchAll.Requests(), 2)
	assert.Equal(t, "authorization.k8s.io/v1beta1", catchAll.Requests()[0].APIVersion)

	// Explain names every authorizer asked.
	tr := Explain(ctx, chain, podGet("carol"))
	require.Len(t, tr.Steps, 5)
	assert.Equal(t, "kube-system-protector", tr.Steps[1].Name)
	assert.Equal(t, "Webhook", tr.Steps[1].Type)
	assert.Equal(t, MatchExcluded, tr.Steps[1].Webhook.MatchConditions)
	assert.Equal(t, "RBAC", tr.Steps[3].Type)
	assert.Equal(t, DecisionAllow, tr.Steps[4].Decision)
	assert.Contains(t, tr.String(), `catch-all (Webhook): Allow "catch-all allows" [cache: miss; attempt 1: success 200]`)
}

func TestNewErrors(t *testing.T) {
	_, kc := fakeWebhook(t, authorizertest.Options{})
	dir := t.TempDir()
	badKC := filepath.Join(dir, "bad.kubeconfig")
	writeFile(t, badKC, "current-context: nowhere\n")
	webhook := func(connection string) string {
		return `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: w
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
` + connection
	}
	tests := []struct {
		name    string
		yaml    string
		opts    Options
		wantErr string
	}{
		{"missing RBAC", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n", Options{},
			`authorizers[0] (RBAC "rbac"): no authorizer given for type RBAC: set Options.Authorizers["RBAC"]`},
		{"unknown type", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: AlwaysAllow, name: alwaysallow}\n- {type: Custom, name: custom}\n", Options{},
			`authorizers[1] (Custom "custom"): no authorizer given for type Custom: set Options.Authorizers["Custom"]`},
		{"no authorizers", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []\n", Options{},
			"at least one authorization mode must be passed"},
		{"in-cluster without a connection", webhook("      type: InClusterConfig\n"), Options{},
			`authorizers[0] (Webhook "w"): connectionInfo.type InClusterConfig needs Options.InClusterConnection`},
		{"broken kubeconfig", webhook("      type: KubeConfigFile\n      kubeConfigFile: " + badKC + "\n"), Options{},
			`authorizers[0] (Webhook "w"): error loading config file "` + badKC + `": invalid configuration: context was not found for specified context: nowhere`},
		{"bad match condition", webhook("      type: KubeConfigFile\n      kubeConfigFile: " + kc + "\n    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n    - expression: request.nope\n"), Options{},
			"authorizers[0] (Webhook \"w\"): matchConditions[0].expression: Invalid value: \"request.nope\": compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope\n | .......^"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := authzconfig.Decode([]byte(tt.yaml))
			require.NoError(t, err)
			_, err = New(cfg, tt.opts)
			assert.EqualError(t, err, tt.wantErr)
		})
	}
	_, err := New(nil, Options{})
	assert.Error(t, err)
}

func TestNewInClusterConnection(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Decide: authorizertest.Always(authorizationv1.SubjectAccessReviewStatus{Allowed: true})})
	require.NoError(t, err)
	defer srv.Close()
	cfg := &authzconfig.Configuration{Authorizers: []authzconfig.AuthorizerConfiguration{{
		Type: "Webhook", Name: "in-cluster",
		Webhook: &authzconfig.WebhookConfiguration{SubjectAccessReviewVersion: "v1", FailurePolicy: "NoOpinion",
			ConnectionInfo: authzconfig.WebhookConnectionInfo{Type: "InClusterConfig"}},
	}}}
	chain, err := New(cfg, Options{InClusterConnection: &Connection{Server: srv.URL(), Transport: srv.Transport()}})
	require.NoError(t, err)
	d, _, err := chain.Authorize(context.Background(), podGet("x"))
	require.NoError(t, err)
	assert.Equal(t, DecisionAllow, d)
	assert.Equal(t, "timeout=30s", srv.Requests()[0].RawQuery, "no timeout configured: kube-apiserver's 30s")
}

func TestNewFromLegacyFlags(t *testing.T) {
	_, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "legacy"))})
	flags := authzconfig.Flags{Modes: []string{"Node", "Webhook", "RBAC"}, WebhookConfigFile: kc, WebhookVersion: "v1beta1",
		WebhookCacheAuthorizedTTL: 5 * time.Minute, WebhookCacheUnauthorizedTTL: 30 * time.Second}
	cfg, err := authzconfig.FromFlags(flags)
	require.NoError(t, err)
	mem := metrics.NewMemory()
	chain, err := New(cfg, Options{Authorizers: map[string]Authorizer{"Node": AlwaysDeny(), "RBAC": AlwaysDeny()}, Metrics: mem})
	require.NoError(t, err)
	assert.Equal(t, []string{PrivilegedGroupsName, "node", "default", "rbac"}, chain.Names())
	d, reason, err := chain.Authorize(context.Background(), podGet("x"))
	require.NoError(t, err)
	assert.Equal(t, DecisionAllow, d)
	assert.Equal(t, "legacy", reason)
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationWebhookEvaluations, "default", "success"))
}

func TestNewFromCompiledUsesTheCompiledConditions(t *testing.T) {
	protector, kc1 := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(false, true, "kube-system is protected"))})
	_, kc2 := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "ok"))})
	compiled, err := authzconfig.DecodeAndValidate([]byte(fmt.Sprintf(kepConfig, kc1, kc2)), nil, authzconfig.ValidateOptions{})
	require.NoError(t, err)
	mem := metrics.NewMemory()
	chain, err := NewFromCompiled(compiled, Options{Authorizers: map[string]Authorizer{"Node": AlwaysDeny(), "RBAC": AlwaysDeny()}, Metrics: mem})
	require.NoError(t, err)
	ctx := context.Background()
	d, _, err := chain.Authorize(ctx, podGet("jane"))
	require.NoError(t, err)
	assert.Equal(t, DecisionAllow, d)
	kubeSystem := podGet("jane")
	kubeSystem.Namespace = "kube-system"
	d, reason, err := chain.Authorize(ctx, kubeSystem)
	require.NoError(t, err)
	assert.Equal(t, DecisionDeny, d)
	assert.Equal(t, "kube-system is protected", reason)
	assert.Len(t, protector.Requests(), 1)
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationMatchConditionExclusions, "Webhook", "kube-system-protector"), "metrics bound to the webhook's name")

	_, err = NewFromCompiled(nil, Options{})
	assert.Error(t, err)
}

func TestCompiledMatchConditionsWin(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, ""))})
	compiler, err := matchcond.NewAuthorizationCompiler()
	require.NoError(t, err)
	never, errs := compiler.Compile([]string{"request.user == 'nobody'"}, nil)
	require.Empty(t, errs)
	w := newTestWebhook(t, kc, WebhookOptions{MatchConditions: []string{"true"}, CompiledMatchConditions: never})
	d, _, err := w.Authorize(context.Background(), podGet("jane"))
	require.NoError(t, err)
	assert.Equal(t, DecisionNoOpinion, d)
	assert.Empty(t, srv.Requests())
}
