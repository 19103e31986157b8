package authzconfig

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeAndValidate(t *testing.T) {
	const header = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"
	const webhook = "- type: Webhook\n  name: w\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: /etc/kubernetes/kc.yaml\n"
	startup, err := Decode([]byte(header + "- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n" + webhook))
	require.NoError(t, err)
	tests := []struct {
		name    string
		data    string
		startup *Configuration
		err     string
	}{
		{name: "valid at startup", data: header + "- type: RBAC\n  name: rbac\n" + webhook},
		{name: "decode error", data: header + "- type: RBAC\n  nme: rbac\n",
			err: `failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].nme"`},
		{name: "validation errors", data: header + "- type: RBAC\n- type: Foo\n",
			err: `[authorizers[0].name: Required value, authorizers[1].type: Unsupported value: "Foo": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"]`},
		{name: "names of non-webhook authorizers", data: header + "- type: RBAC\n  name: myrbac\n- type: AlwaysAllow\n  name: allow\n" + webhook,
			err: "[expected name rbac for authorizer RBAC instead of myrbac, expected name alwaysallow for authorizer AlwaysAllow instead of allow]"},
		{name: "one name error prints bare", data: header + "- type: Node\n  name: nodes\n",
			err: "expected name node for authorizer Node instead of nodes"},
		{name: "reload keeps the types", startup: startup, data: header + "- type: RBAC\n  name: rbac\n- type: Node\n  name: node\n- type: AlwaysAllow\n  name: alwaysallow\n"},
		{name: "reload misses types", startup: startup, data: header + webhook,
			err: "missing required types: [Node RBAC]"},
		{name: "reload misses types and names", startup: startup, data: header + "- type: Node\n  name: nodes\n",
			err: "[expected name node for authorizer Node instead of nodes, missing required types: [RBAC]]"},
		{name: "reload adds a type", startup: startup, data: header + "- type: Node\n  name: node\n- type: ABAC\n  name: abac\n- type: RBAC\n  name: rbac\n",
			err: "authorizer type ABAC is not allowed if it was not enabled at initial server startup"},
		{name: "a '%' in a value is kept as is", data: header + "- type: RBAC\n  name: 100%d\n",
			err: `authorizers[0].name: Invalid value: "100%d": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := DecodeAndValidate([]byte(tt.data), tt.startup, ValidateOptions{Stat: fakeStat})
			if tt.err == "" {
				require.NoError(t, err)
				assert.NotEmpty(t, cfg.Configuration.Authorizers)
				return
			}
			require.EqualError(t, err, tt.err)
			assert.Nil(t, cfg)
		})
	}
}

// kube-apiserver formats the validation aggregate with fmt.Errorf(text), so
// a '%' in the text is read as a verb; DecodeAndValidate does not.
func TestDecodeAndValidatePercentDifference(t *testing.T) {
	data := []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: RBAC\n  name: 100%d\n")
	_, err := DecodeAndValidate(data, nil, ValidateOptions{})
	require.Error(t, err)
	// What kube-apiserver does with the text: fmt.Errorf(text).
	errorf := fmt.Errorf
	garbled := errorf(err.Error())
	assert.Contains(t, garbled.Error(), `"100%!d(MISSING)"`)
	assert.Contains(t, err.Error(), `"100%d"`)
}

func TestValidateReload(t *testing.T) {
	cfg := func(types ...string) *Configuration {
		c := &Configuration{}
		for _, typ := range types {
			c.Authorizers = append(c.Authorizers, AuthorizerConfiguration{Type: typ})
		}
		return c
	}
	tests := []struct {
		name          string
		startup, next *Configuration
		err           string
	}{
		{"same", cfg("Node", "RBAC", "Webhook"), cfg("Node", "RBAC", "Webhook"), ""},
		{"reordered, webhooks removed and added", cfg("Webhook", "Node", "RBAC"), cfg("RBAC", "Webhook", "Webhook", "Node"), ""},
		{"AlwaysAllow and AlwaysDeny added", cfg("RBAC"), cfg("AlwaysDeny", "RBAC", "AlwaysAllow"), ""},
		{"AlwaysAllow removed", cfg("RBAC", "AlwaysAllow"), cfg("RBAC"), "missing required types: [AlwaysAllow]"},
		{"several removed, sorted", cfg("RBAC", "Node", "ABAC", "Webhook"), cfg("Webhook"), "missing required types: [ABAC Node RBAC]"},
		{"Node added", cfg("RBAC"), cfg("RBAC", "Node"), "authorizer type Node is not allowed if it was not enabled at initial server startup"},
		{"first added in chain order", cfg("AlwaysAllow"), cfg("AlwaysAllow", "RBAC", "ABAC"), "authorizer type RBAC is not allowed if it was not enabled at initial server startup"},
		{"missing wins over added", cfg("RBAC"), cfg("Node"), "missing required types: [RBAC]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateReload(tt.startup, tt.next)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.err)
		})
	}
}
