package apiserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// tenantAuthorizer is a server's own authorizer type: it denies the
// namespace "frozen".
var tenantAuthorizer = kauthorizer.AuthorizerFunc(func(_ context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
	if a.GetNamespace() == "frozen" {
		return kauthorizer.DecisionDeny, "namespace frozen", nil
	}
	return kauthorizer.DecisionNoOpinion, "", nil
})

func TestNewReloadingAuthorizerErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "authorization-config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Tenant
  name: tenant
`), 0o600))
	tests := []struct {
		name string
		opts ReloadingOptions
		err  string
	}{
		{"type given twice", ReloadingOptions{
			ReloaderOptions: authorizer.ReloaderOptions{Path: path, Options: authorizer.Options{Authorizers: map[string]authorizer.Authorizer{"Tenant": authorizer.AlwaysAllow()}}},
			KubeAuthorizers: map[string]kauthorizer.Authorizer{"Tenant": tenantAuthorizer}}, `authorizer type "Tenant" is in both`},
		{"nil authorizer", ReloadingOptions{ReloaderOptions: authorizer.ReloaderOptions{Path: path},
			KubeAuthorizers: map[string]kauthorizer.Authorizer{"Tenant": nil}}, `KubeAuthorizers["Tenant"] is nil`},
		{"type not given", ReloadingOptions{ReloaderOptions: authorizer.ReloaderOptions{Path: path}}, `Unsupported value: "Tenant"`},
		{"no file", ReloadingOptions{ReloaderOptions: authorizer.ReloaderOptions{Path: filepath.Join(dir, "missing")}}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReloadingAuthorizer(t.Context(), tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	ok, err := NewReloadingAuthorizer(t.Context(), ReloadingOptions{ReloaderOptions: authorizer.ReloaderOptions{Path: path},
		KubeAuthorizers: map[string]kauthorizer.Authorizer{"Tenant": tenantAuthorizer}})
	require.NoError(t, err)
	d, reason, _ := ok.Authorize(context.Background(), kauthorizer.AttributesRecord{User: &user.DefaultInfo{Name: "x"}, Namespace: "frozen"})
	assert.Equal(t, kauthorizer.DecisionDeny, d)
	assert.True(t, strings.HasPrefix(reason, "namespace frozen"))
}
