package authzconfig

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDecodeErrors(t *testing.T) {
	const header = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n"
	tests := []struct {
		name, data, err string
	}{
		{"missing apiVersion", "kind: AuthorizationConfiguration\nauthorizers: []\n",
			"Object 'apiVersion' is missing in 'kind: AuthorizationConfiguration\nauthorizers: []\n'"},
		{"missing kind", "apiVersion: apiserver.config.k8s.io/v1\n",
			"Object 'Kind' is missing in 'apiVersion: apiserver.config.k8s.io/v1\n'"},
		{"missing both reports the kind", "authorizers: []\n", "Object 'Kind' is missing in 'authorizers: []\n'"},
		{"whitespace only", "   \n", "Object 'Kind' is missing in '   \n'"},
		{"comment only", "# nothing\n", "Object 'Kind' is missing in '# nothing\n'"},
		{"unknown group", "apiVersion: apps/v1\nkind: AuthorizationConfiguration\n",
			`no kind "AuthorizationConfiguration" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"unknown version", "apiVersion: apiserver.config.k8s.io/v99\nkind: AuthorizationConfiguration\n",
			`no kind "AuthorizationConfiguration" is registered for version "apiserver.config.k8s.io/v99" in scheme "pkg/runtime/scheme.go:111"`},
		{"legacy group", "apiVersion: apiserver.k8s.io/v1alpha1\nkind: AuthorizationConfiguration\n",
			`no kind "AuthorizationConfiguration" is registered for version "apiserver.k8s.io/v1alpha1" in scheme "pkg/runtime/scheme.go:111"`},
		{"unknown kind", "apiVersion: apiserver.config.k8s.io/v1\nkind: SomeConfiguration\n",
			`no kind "SomeConfiguration" is registered for version "apiserver.config.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"wrong-case kind", "apiVersion: apiserver.config.k8s.io/v1\nkind: authorizationConfiguration\n",
			`no kind "authorizationConfiguration" is registered for version "apiserver.config.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"internal version of an unknown kind", "apiVersion: apiserver.config.k8s.io/__internal\nkind: Foo\n",
			`no kind "Foo" is registered for the internal version of group "apiserver.config.k8s.io" in scheme "pkg/runtime/scheme.go:111"`},
		{"bad apiVersion", "apiVersion: a/b/c\nkind: AuthorizationConfiguration\n", "unexpected GroupVersion string: a/b/c"},
		{"other kind of the group", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n",
			"expected AuthorizationConfiguration, got *apiserver.TracingConfiguration"},
		{"other kind of the legacy group", "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\n",
			"expected AuthorizationConfiguration, got *apiserver.EgressSelectorConfiguration"},
		{"EncryptionConfig in the core group", "apiVersion: v1\nkind: EncryptionConfig\n",
			"expected AuthorizationConfiguration, got *apiserver.EncryptionConfiguration"},
		{"unversioned kind in any group", "apiVersion: foo/v9\nkind: Status\n", "expected AuthorizationConfiguration, got *v1.Status"},
		{"unversioned kind with an unknown field", "apiVersion: foo/v9\nkind: Status\nfoo: 1\n", `strict decoding error: unknown field "foo"`},
		{"option kind", "apiVersion: apiserver.config.k8s.io/v1\nkind: ListOptions\n",
			`no kind "ListOptions" is registered for the internal version of group "apiserver.k8s.io" in scheme "pkg/runtime/scheme.go:111"`},
		{"option kind with a wrong type", "apiVersion: apiserver.config.k8s.io/v1\nkind: ListOptions\nwatch: x\n",
			"json: cannot unmarshal string into Go struct field ListOptions.watch of type bool"},
		{"watch event", "apiVersion: apiserver.config.k8s.io/v1\nkind: WatchEvent\n",
			`strict decoding error: unknown field "apiVersion", unknown field "kind"`},
		{"unknown field", header + "authorzers: []\n", `strict decoding error: unknown field "authorzers"`},
		{"wrong-case field", header + "Authorizers: []\n", `strict decoding error: unknown field "Authorizers"`},
		{"nested unknown fields", header + "authorizers:\n- type: Webhook\n  webhook:\n    foo: 1\n    bar: 2\n",
			`strict decoding error: unknown field "authorizers[0].webhook.bar", unknown field "authorizers[0].webhook.foo"`},
		{"duplicate JSON key", `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration","authorizers":[],"authorizers":[]}`,
			`strict decoding error: duplicate field "authorizers"`},
		{"duplicate YAML key", header + "authorizers:\n- type: Webhook\n  type: RBAC\n",
			"strict decoding error: yaml: unmarshal errors:\n  line 5: key \"type\" already set in map"},
		{"wrong type", header + "authorizers:\n- type: Webhook\n  webhook:\n    timeout: 3\n",
			"json: cannot unmarshal number into Go struct field WebhookConfiguration.authorizers.webhook.timeout of type string"},
		{"wrong type of a list", header + "authorizers: x\n",
			"json: cannot unmarshal string into Go struct field AuthorizationConfiguration.authorizers of type []v1.AuthorizerConfiguration"},
		{"wrong type names the version", "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers:\n- webhook: 1\n",
			"json: cannot unmarshal number into Go struct field AuthorizerConfiguration.authorizers.webhook of type v1beta1.WebhookConfiguration"},
		{"bad duration", header + "authorizers:\n- webhook:\n    timeout: abc\n", `time: invalid duration "abc"`},
		{"YAML syntax", header + "authorizers: [\n", "yaml: line 3: did not find expected node content"},
		{"YAML syntax in a flow list", "a: [b, c\n", "yaml: line 1: did not find expected ',' or ']'"},
		{"flow YAML read as JSON", "{apiVersion: x}", "couldn't get version/kind; json parse error: invalid character 'a' looking for beginning of object key string"},
		{"apiVersion of the wrong type", `{"apiVersion":3}`,
			"couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string"},
		{"internal version decodes Go field names", "apiVersion: apiserver.config.k8s.io/__internal\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n",
			`strict decoding error: unknown field "authorizers[0].type"`},
		{"protobuf envelope without a body", "k8s\x00", "empty body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Decode([]byte(tt.data))
			require.EqualError(t, err, tt.err)
			assert.Nil(t, cfg)
		})
	}
}

func TestDecodeDefaults(t *testing.T) {
	for _, version := range []string{"v1alpha1", "v1beta1", "v1"} {
		t.Run(version, func(t *testing.T) {
			data := "apiVersion: apiserver.config.k8s.io/" + version + `
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: zero
  webhook:
    authorizedTTL: 0s
    timeout: 3s
- type: Webhook
  name: set
  webhook:
    authorizedTTL: 1m
    unauthorizedTTL: 1s
    cacheAuthorizedRequests: false
    cacheUnauthorizedRequests: false
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: /kc
    matchConditions:
    - expression: "true"
- type: RBAC
  name: rbac
`
			cfg, err := Decode([]byte(data))
			require.NoError(t, err)
			yes, no := true, false
			kc := "/kc"
			want := &Configuration{Authorizers: []AuthorizerConfiguration{
				{Type: "Webhook", Name: "zero", Webhook: &WebhookConfiguration{
					AuthorizedTTL: metav1.Duration{Duration: 5 * time.Minute}, CacheAuthorizedRequests: &yes,
					UnauthorizedTTL: metav1.Duration{Duration: 30 * time.Second}, CacheUnauthorizedRequests: &yes,
					Timeout: metav1.Duration{Duration: 3 * time.Second},
				}},
				{Type: "Webhook", Name: "set", Webhook: &WebhookConfiguration{
					AuthorizedTTL: metav1.Duration{Duration: time.Minute}, CacheAuthorizedRequests: &no,
					UnauthorizedTTL: metav1.Duration{Duration: time.Second}, CacheUnauthorizedRequests: &no,
					ConnectionInfo:  WebhookConnectionInfo{Type: "KubeConfigFile", KubeConfigFile: &kc},
					MatchConditions: []WebhookMatchCondition{{Expression: "true"}},
				}},
				{Type: "RBAC", Name: "rbac"},
			}}
			assert.Equal(t, want, cfg)
			assert.False(t, cfg.Authorizers[1].Webhook.CachesAuthorized())
			assert.True(t, cfg.Authorizers[0].Webhook.CachesUnauthorized())
		})
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, data := range [][]byte{nil, {}} {
		cfg, err := Decode(data)
		require.NoError(t, err)
		assert.Equal(t, &Configuration{}, cfg)
	}
}

func TestDecodeInternalVersionIsNotDefaulted(t *testing.T) {
	cfg, err := Decode([]byte(`{"apiVersion":"apiserver.config.k8s.io/__internal","kind":"AuthorizationConfiguration",
		"authorizers":[{"Type":"Webhook","Name":"w","Webhook":{"Timeout":"3s"}}]}`))
	require.NoError(t, err)
	no := false
	assert.Equal(t, &Configuration{Authorizers: []AuthorizerConfiguration{{Type: "Webhook", Name: "w", Webhook: &WebhookConfiguration{
		Timeout: metav1.Duration{Duration: 3 * time.Second}, CacheAuthorizedRequests: &no, CacheUnauthorizedRequests: &no,
	}}}}, cfg)
}

func TestDecodeMultipleDocuments(t *testing.T) {
	first := "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: RBAC\n  name: rbac\n"
	tests := []struct {
		name, data, singleErr string
	}{
		{"one document", first, ""},
		{"leading marker", "---\n" + first, ""},
		{"trailing empty document", first + "---\n", ""},
		{"trailing comment document", first + "---\n# end\n", ""},
		{"second document", first + "---\nfoo: bar\n",
			"the data holds more than one YAML document (document 2 is not empty); kube-apiserver would read only the first and ignore the others"},
		{"broken second document", first + "---\nfoo: [\n", "YAML document 2: yaml: line 7: did not find expected node content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Decode([]byte(tt.data))
			require.NoError(t, err, "Decode reads the first document only")
			assert.Equal(t, []AuthorizerConfiguration{{Type: "RBAC", Name: "rbac"}}, cfg.Authorizers)
			cfg, err = DecodeSingleDocument([]byte(tt.data))
			if tt.singleErr == "" {
				require.NoError(t, err)
				assert.Len(t, cfg.Authorizers, 1)
				return
			}
			require.EqualError(t, err, tt.singleErr)
			assert.Nil(t, cfg)
		})
	}
}
