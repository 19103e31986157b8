package authzconfig

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

func errorTexts(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestFlagsValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *Flags)
		want   []string
	}{
		{"defaults completed", func(f *Flags) { f.Complete() }, nil},
		{"no mode", func(f *Flags) {}, []string{"at least one authorization-mode must be passed"}},
		{"valid chain", func(f *Flags) {
			f.Modes, f.PolicyFile, f.WebhookConfigFile = []string{"Node", "ABAC", "RBAC", "Webhook"}, "/p.jsonl", "/kc"
		}, nil},
		{"unknown mode", func(f *Flags) { f.Modes = []string{"rbac", "Foo"} },
			[]string{`authorization-mode "rbac" is not a valid mode`, `authorization-mode "Foo" is not a valid mode`}},
		{"ABAC without policy", func(f *Flags) { f.Modes = []string{"ABAC"} },
			[]string{"authorization-mode ABAC's authorization policy file not passed"}},
		{"Webhook without kubeconfig", func(f *Flags) { f.Modes = []string{"Webhook"} },
			[]string{"authorization-mode Webhook's authorization config file not passed"}},
		{"policy without ABAC", func(f *Flags) { f.Modes, f.PolicyFile = []string{"RBAC"}, "/p" },
			[]string{"cannot specify --authorization-policy-file without mode ABAC"}},
		{"kubeconfig without Webhook", func(f *Flags) { f.Modes, f.WebhookConfigFile = []string{"RBAC"}, "/kc" },
			[]string{"cannot specify --authorization-webhook-config-file without mode Webhook"}},
		{"repeated mode", func(f *Flags) { f.Modes = []string{"RBAC", "RBAC"} },
			[]string{`authorization-mode ["RBAC" "RBAC"] has mode specified more than once`}},
		{"retry attempts", func(f *Flags) { f.Modes, f.WebhookRetryBackoff = []string{"RBAC"}, &wait.Backoff{Steps: 0} },
			[]string{"number of webhook retry attempts must be greater than 0, but is: 0"}},
		{"all at once, in kube-apiserver's order", func(f *Flags) {
			f.Modes, f.PolicyFile = []string{"Webhook", "Webhook", "X"}, "/p"
		}, []string{
			"authorization-mode Webhook's authorization config file not passed",
			"authorization-mode Webhook's authorization config file not passed",
			`authorization-mode "X" is not a valid mode`,
			"cannot specify --authorization-policy-file without mode ABAC",
			`authorization-mode ["Webhook" "Webhook" "X"] has mode specified more than once`,
		}},
		{"config file alone", func(f *Flags) { f.ConfigFile = "/authz.yaml"; f.Changed = []string{FlagConfig, FlagPolicyFile} }, nil},
		{"config file with legacy flags", func(f *Flags) { f.ConfigFile = "/authz.yaml"; f.Changed = []string{FlagConfig, FlagWebhookVersion} },
			[]string{"--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"}},
		{"config file with a legacy flag at its default", func(f *Flags) {
			f.ConfigFile = "/authz.yaml"
			f.Changed = []string{FlagConfig, FlagWebhookUnauthorizedTTL}
		}, []string{"--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := DefaultFlags()
			tt.change(&f)
			assert.Equal(t, tt.want, errorTexts(f.Validate()))
		})
	}
}

func TestFlagsComplete(t *testing.T) {
	f := DefaultFlags()
	f.Complete()
	assert.Equal(t, []string{"AlwaysAllow"}, f.Modes)
	f = DefaultFlags()
	f.ConfigFile = "/authz.yaml"
	f.Complete()
	assert.Empty(t, f.Modes)
	f = DefaultFlags()
	f.Modes = []string{"RBAC"}
	f.Complete()
	assert.Equal(t, []string{"RBAC"}, f.Modes)
}

func TestFromFlags(t *testing.T) {
	f := DefaultFlags()
	f.Modes = []string{"Node", "Webhook", "RBAC", "AlwaysAllow"}
	f.WebhookConfigFile = "/etc/kubernetes/webhook.kubeconfig"
	f.WebhookCacheUnauthorizedTTL = 0
	cfg, err := FromFlags(f)
	require.NoError(t, err)
	yes, no := true, false
	assert.Equal(t, &Configuration{Authorizers: []AuthorizerConfiguration{
		{Type: "Node", Name: "node"},
		{Type: "Webhook", Name: "default", Webhook: &WebhookConfiguration{
			AuthorizedTTL: metav1.Duration{Duration: 5 * time.Minute}, CacheAuthorizedRequests: &yes,
			UnauthorizedTTL: metav1.Duration{}, CacheUnauthorizedRequests: &no,
			Timeout:                    metav1.Duration{Duration: 30 * time.Second},
			FailurePolicy:              "NoOpinion",
			SubjectAccessReviewVersion: "v1beta1",
			ConnectionInfo:             WebhookConnectionInfo{Type: "KubeConfigFile", KubeConfigFile: &f.WebhookConfigFile},
		}},
		{Type: "RBAC", Name: "rbac"},
		{Type: "AlwaysAllow", Name: "alwaysallow"},
	}}, cfg)

	f.Modes = []string{"RBAC", "Node", "RBAC"}
	_, err = FromFlags(f)
	assert.EqualError(t, err, "failed to build authorization config: modes should not be repeated in --authorization-mode")
}

func TestParseFlags(t *testing.T) {
	f, err := ParseFlags([]string{
		"--advertise-address=10.0.0.1", "--authorization-mode", "Node,RBAC", "--v=2",
		"--authorization-mode=Webhook", "--authorization-webhook-config-file=/kc",
		"--authorization-webhook-cache-authorized-ttl", "1m", "--authorization-webhook-version=v1",
		"positional", "--", "--authorization-policy-file=/ignored",
	})
	require.NoError(t, err)
	want := DefaultFlags()
	want.Modes = []string{"Node", "RBAC", "Webhook"}
	want.WebhookConfigFile = "/kc"
	want.WebhookCacheAuthorizedTTL = time.Minute
	want.WebhookVersion = "v1"
	want.Changed = []string{FlagMode, FlagMode, FlagWebhookConfigFile, FlagWebhookAuthorizedTTL, FlagWebhookVersion}
	assert.Equal(t, want, f)
	assert.True(t, f.LegacyFlagsSet())

	f, err = ParseFlags([]string{"--authorization-config=/authz.yaml", "--authorization-policy-file", "/p"})
	require.NoError(t, err)
	assert.Equal(t, "/authz.yaml", f.ConfigFile)
	assert.Equal(t, "/p", f.PolicyFile)
	assert.False(t, f.LegacyFlagsSet())
	assert.Empty(t, f.Validate())

	f, err = ParseFlags([]string{"--authorization-mode="})
	require.NoError(t, err)
	assert.Equal(t, []string{}, f.Modes)
	assert.True(t, f.LegacyFlagsSet())

	for msg, args := range map[string][]string{
		`invalid argument "soon" for "--authorization-webhook-cache-unauthorized-ttl" flag: time: invalid duration "soon"`:                    {"--authorization-webhook-cache-unauthorized-ttl=soon"},
		"flag needs an argument: --authorization-mode":                                                                                        {"--authorization-mode"},
		`invalid argument "\"RBAC" for "--authorization-mode" flag: parse error on line 1, column 6: extraneous or missing " in quoted-field`: {`--authorization-mode="RBAC`},
	} {
		_, err := ParseFlags(args)
		assert.EqualError(t, err, msg)
	}
}
