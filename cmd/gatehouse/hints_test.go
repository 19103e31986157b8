package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

func TestSingleEquals(t *testing.T) {
	tests := []struct {
		expr string
		want bool
	}{
		{`request.resourceAttributes.resource = "x"`, true},
		{`a=b`, true},
		{`request.resourceAttributes.resource == "x"`, false},
		{`a != b && c <= d && e >= f`, false},
		{`request.user == "a=b"`, false},
		{`request.user == 'a = b'`, false},
		{`request.user == "a\" = b"`, false},
		{`x == 1 || y = 2`, true},
		{``, false},
		{`=`, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, singleEquals(tt.expr), tt.expr)
	}
}

func TestNearest(t *testing.T) {
	known := webhookFields
	tests := []struct{ name, want string }{
		{"authorizedTtl", "authorizedTTL"},
		{"failurepolicy", "failurePolicy"},
		{"timout", "timeout"},
		{"subjectAccessReviewVersions", "subjectAccessReviewVersion"},
		{"retries", ""},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, nearest(tt.name, known), tt.name)
	}
	assert.Equal(t, 3, editDistance("kitten", "sitting"))
	assert.Equal(t, 0, editDistance("", ""))
	assert.Equal(t, 4, editDistance("", "abcd"))
}

func TestIsZeroDuration(t *testing.T) {
	for _, v := range []any{"0s", "0", "0m", "0h0m0s", float64(0)} {
		assert.True(t, isZeroDuration(v), "%v", v)
	}
	for _, v := range []any{"1ns", "30s", "", "zero", float64(1), true, nil} {
		assert.False(t, isZeroDuration(v), "%v", v)
	}
}

func TestYAMLTagBefore(t *testing.T) {
	raw := "matchConditions:\n- expression: !('a' in request.groups)\n- expression: \"!('b' in request.groups)\"\n"
	assert.Equal(t, "!('a'", yamlTagBefore(raw, "in request.groups)"))
	assert.Equal(t, "", yamlTagBefore(raw, "!('b' in request.groups)"))
	assert.Equal(t, "", yamlTagBefore(raw, ""))
}

// TestHintsNeverOnCleanFiles: the valid configurations of the repository
// get no hint.
func TestHintsNeverOnCleanFiles(t *testing.T) {
	for _, f := range []string{
		rwAuthz + "/gardener__gardener__authz-config-with-seedauthorizer.yaml",
		rwAuthz + "/telekom__auth-operator__run-authorization-chain-authorization.yaml",
		expl + "/chain.yaml",
	} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.Empty(t, hintsFor(data, nil), filepath.Base(f))
	}
}

// FuzzAuthzValidate: any input gives a verdict, without panicking, and the
// same hints twice.
func FuzzAuthzValidate(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(rwAuthz, "*.[jy]*"))
	require.NoError(f, err)
	files = append(files, "testdata/validate/early-draft.yaml", "testdata/validate/typo-ttl.yaml", "testdata/validate/wrong-name.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("authorizers: [{type: Webhook, webhook: {authorizedTTL: 0, connectionInfo: {type: kubeconfigfile}, matchConditions: [{expression: 'request.user.uid = 1'}]}}]"))
	compiler, err := matchcond.NewAuthorizationCompiler()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		compiled, errs := validateConfig(kube.Target{}, data, compiler, false, nil)
		assert.Equal(t, len(errs) == 0, compiled != nil)
		hints := hintsFor(data, errs)
		assert.Equal(t, hints, hintsFor(data, errs))
		for _, e := range errs {
			assert.NotEmpty(t, e.Message)
		}
	})
}

// FuzzParseRequest: any command line gives a request or an error.
func FuzzParseRequest(f *testing.F) {
	f.Add("get", "pods", "x", "ns")
	f.Add("get", "/healthz", "", "")
	f.Add("delete", "customresourcedefinitions.apiextensions.k8s.io/status", "foo", "")
	f.Add("", "./", "", "n")
	f.Fuzz(func(t *testing.T, verb, target, name, ns string) {
		args := []string{verb, target}
		if name != "" {
			args = append(args, name)
		}
		a, err := parseRequest(args, explainOptions{user: "u", namespace: ns})
		if err != nil {
			return
		}
		assert.Equal(t, verb, a.Verb)
		if a.ResourceRequest {
			assert.NotEmpty(t, a.Resource)
		} else {
			assert.Equal(t, target, a.Path)
		}
	})
}

func TestHintsOfFields(t *testing.T) {
	tests := []struct {
		name, data string
		want       []hint
	}{
		{
			name: "an API object's fields",
			data: "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nmetadata: {name: x}\nspec:\n  authorizers: []\n",
			want: []hint{
				{Field: "metadata", Message: "an AuthorizationConfiguration is a file, not an API object: it has no metadata"},
				{Field: "spec", Message: "an AuthorizationConfiguration has no spec: authorizers is at the top level"},
			},
		},
		{
			name: "webhook fields on the authorizer, a near miss, case",
			data: "authorizers:\n- type: webhook\n  name: w\n  timeout: 3s\n  webhook:\n    failurePolicy: deny\n    authorisedTTL: 1m\n    connectionInfo: {type: kubeconfigfile, kubeconfig: /x}\n",
			want: []hint{
				{Field: "authorizers[0].timeout", Message: "timeout belongs under webhook"},
				{Field: "authorizers[0].type", Message: "types are case-sensitive: Webhook"},
				{Field: "authorizers[0].webhook.authorisedTTL", Message: "unknown field: did you mean authorizedTTL?"},
				{Field: "authorizers[0].webhook.failurePolicy", Message: "values are case-sensitive: NoOpinion or Deny"},
				{Field: "authorizers[0].webhook.connectionInfo.kubeconfig", Message: "the field is kubeConfigFile"},
				{Field: "authorizers[0].webhook.connectionInfo.type", Message: "values are case-sensitive: KubeConfigFile or InClusterConfig"},
			},
		},
		{
			name: "Ignore, a user's uid and extra, a named match condition",
			data: "authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    failurePolicy: Ignore\n    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n    - name: x\n      expression: request.user.uid == '1' && 'a' in request.user.extra\n",
			want: []hint{
				{Field: "authorizers[0].webhook.failurePolicy", Message: "Ignore is admission webhooks' word: an authorization webhook's is NoOpinion"},
				{Field: "authorizers[0].webhook.matchConditions[0].name", Message: "authorization match conditions have no name (admission webhooks' have one)"},
				{Field: "authorizers[0].webhook.matchConditions[0].expression", Message: "request.user.uid does not exist: request.user is the user name, a string; use request.uid"},
				{Field: "authorizers[0].webhook.matchConditions[0].expression", Message: "request.user.extra does not exist: request.user is the user name, a string; use request.extra"},
			},
		},
		{
			name: "a zero TTL with its cache off needs no hint",
			data: "authorizers:\n- type: Webhook\n  name: w\n  webhook:\n    authorizedTTL: 0s\n    cacheAuthorizedRequests: false\n    unauthorizedTTL: 0\n",
			want: []hint{
				{Field: "authorizers[0].webhook.unauthorizedTTL", Message: "a zero TTL is defaulted to 30s, so decisions are still cached: to turn the cache off, set cacheUnauthorizedRequests: false"},
			},
		},
		{name: "not YAML", data: "{", want: []hint{}},
		{name: "not an object", data: "- a\n- b\n", want: []hint{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, hintsFor([]byte(tt.data), nil))
		})
	}
}
