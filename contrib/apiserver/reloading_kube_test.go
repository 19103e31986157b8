// The differential test of the reloading chain needs k8s.io/apiserver's
// webhook authorizer, and with it client-go: built with -race, their
// packages cost CI minutes and cover no concurrency of this module's own
// (the reloading chain's concurrency is the main module's, tested there with
// -race). CI runs this file without -race.

//go:build !race

package apiserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	"k8s.io/apiserver/pkg/authorization/union"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// readOnlyRBAC stands in for a server's RBAC authorizer: it allows reads.
var readOnlyRBAC = kauthorizer.AuthorizerFunc(func(_ context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
	if a.IsReadOnly() {
		return kauthorizer.DecisionAllow, "reads are allowed", nil
	}
	return kauthorizer.DecisionNoOpinion, "", nil
})

const kubeSystemCondition = "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system'"

func reloadingConfig(kubeconfig, condition string) string {
	return `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Tenant
  name: tenant
- type: Webhook
  name: protect-kube-system
  webhook:
    timeout: 3s
    authorizedTTL: 5m
    unauthorizedTTL: 30s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ` + kubeconfig + `
    matchConditions:
    - expression: "` + condition + `"
- type: RBAC
  name: rbac
- type: AlwaysDeny
  name: alwaysdeny
`
}

// TestReloadingAuthorizerMatchesKubeAPIServerAssembly builds, from one
// configuration file, gatehouse's reloading chain with the server's own
// authorizers, and the union kube-apiserver assembles (system:masters, then
// each authorizer of the file in order), and asks both the corpus.
func TestReloadingAuthorizerMatchesKubeAPIServerAssembly(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Decide: selectorDecide})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()
	kc := filepath.Join(dir, "webhook.kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kc))
	path := filepath.Join(dir, "authorization-config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(reloadingConfig(kc, kubeSystemCondition)), 0o600))

	sink := metrics.NewMemory()
	ours, err := NewReloadingAuthorizer(t.Context(), ReloadingOptions{
		ReloaderOptions: authorizer.ReloaderOptions{Path: path, APIServerID: "test", Options: authorizer.Options{Metrics: sink}},
		KubeAuthorizers: map[string]kauthorizer.Authorizer{"RBAC": readOnlyRBAC, "Tenant": tenantAuthorizer},
	})
	require.NoError(t, err)

	clientConfig, err := webhookutil.LoadKubeconfig(kc, nil)
	require.NoError(t, err)
	clientConfig.Timeout = 3 * time.Second
	kubeWebhook, err := webhook.New(clientConfig, "v1", 5*time.Minute, 30*time.Second, wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5},
		kauthorizer.DecisionDeny, []apiserver.WebhookMatchCondition{{Expression: kubeSystemCondition}}, "protect-kube-system",
		webhookmetrics.NoopAuthorizerMetrics{}, authorizationcel.NewDefaultCompiler())
	require.NoError(t, err)
	kube, err := union.New(
		union.NamedAuthorizer{AuthorizerName: authorizer.PrivilegedGroupsName, Authorizer: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)},
		union.NamedAuthorizer{AuthorizerName: "tenant", Authorizer: tenantAuthorizer},
		union.NamedAuthorizer{AuthorizerName: "protect-kube-system", Authorizer: kubeWebhook},
		union.NamedAuthorizer{AuthorizerName: "rbac", Authorizer: readOnlyRBAC},
		union.NamedAuthorizer{AuthorizerName: "alwaysdeny", Authorizer: authorizerfactory.NewAlwaysDenyAuthorizer()},
	)
	require.NoError(t, err)

	ctx := context.Background()
	cases := kubeCorpus(300, 21)
	for _, ns := range []string{"frozen", "kube-system"} {
		c := cases[0]
		c.attrs.Namespace, c.attrs.ResourceRequest, c.name = ns, true, c.name+" in "+ns
		cases = append(cases, c)
	}
	decisions := map[kauthorizer.Decision]int{}
	for _, c := range cases {
		want := outcomeOf(kube.Authorize(ctx, c.attrs))
		got := outcomeOf(ours.Authorize(ctx, c.attrs))
		assert.Equal(t, want, got, c.name)
		decisions[want.Decision]++
	}
	t.Logf("%d requests compared: %v", len(cases), decisions)
	assert.Len(t, decisions, 3, "allowed, denied and no opinion all occur")
	assert.Greater(t, len(srv.Requests()), 0, "the webhook was asked")

	// A new file is picked up; the chain in force changes at once.
	before := ours.Reloader.Configuration()
	require.NoError(t, os.WriteFile(path, []byte(reloadingConfig(kc, "false")), 0o600))
	ev := ours.Reloader.Check(ctx)
	require.NotNil(t, ev)
	require.Equal(t, "success", ev.Status, "%v", ev.Err)
	assert.NotSame(t, before, ours.Reloader.Configuration())
	assert.Equal(t, 1.0, sink.Value(metrics.AuthorizationConfigReloads, "success", sha256Label("test")))
	srv.ResetRequests()
	for _, c := range cases {
		_, _, _ = ours.Authorize(ctx, c.attrs)
	}
	assert.Empty(t, srv.Requests(), "the new match condition excludes every request")

	// A broken file keeps the last good chain.
	require.NoError(t, os.WriteFile(path, []byte("kind: [broken"), 0o600))
	ev = ours.Reloader.Check(ctx)
	require.NotNil(t, ev)
	assert.Equal(t, "failure", ev.Status)
	d, _, _ := ours.Authorize(ctx, kauthorizer.AttributesRecord{User: &user.DefaultInfo{Name: "jane"}, Verb: "get", ResourceRequest: true, Resource: "pods"})
	assert.Equal(t, kauthorizer.DecisionAllow, d)
}

func sha256Label(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}
