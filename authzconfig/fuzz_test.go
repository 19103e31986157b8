package authzconfig

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

func addSeeds(f *testing.F) {
	entries, err := os.ReadDir("testdata/realworld")
	require.NoError(f, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/realworld", e.Name()))
		require.NoError(f, err)
		f.Add(data)
	}
	for _, s := range []string{
		"", "   \n", "{}", "null", "k8s\x00", "---\n---\n",
		`{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration","authorizers":[{"type":"Webhook","name":"w","webhook":{"timeout":"3s","connectionInfo":{"type":"InClusterConfig"}}}]}`,
		"apiVersion: apiserver.config.k8s.io/__internal\nkind: AuthorizationConfiguration\nauthorizers:\n- Type: Webhook\n  Webhook: {}\n",
		"apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt: []\n",
		"apiVersion: v1\nkind: Status\n",
	} {
		f.Add([]byte(s))
	}
}

// withDecodeDefaults applies what decoding defaults to a configuration that
// may not have been decoded from an external version.
func withDecodeDefaults(cfg *Configuration) *Configuration {
	for _, a := range cfg.Authorizers {
		if w := a.Webhook; w != nil {
			if w.AuthorizedTTL.Duration == 0 {
				w.AuthorizedTTL.Duration = 5 * time.Minute
			}
			if w.UnauthorizedTTL.Duration == 0 {
				w.UnauthorizedTTL.Duration = 30 * time.Second
			}
			if w.CacheAuthorizedRequests == nil {
				w.CacheAuthorizedRequests = ptr(true)
			}
			if w.CacheUnauthorizedRequests == nil {
				w.CacheUnauthorizedRequests = ptr(true)
			}
		}
	}
	return cfg
}

// FuzzDecode decodes arbitrary data: no panic, and a configuration that
// decodes encodes to YAML that decodes back to the same configuration.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		first, err := Decode(data)
		if _, errSingle := DecodeSingleDocument(data); err != nil && errSingle == nil {
			t.Fatalf("DecodeSingleDocument accepts what Decode rejects: %v", err)
		}
		if err != nil {
			require.Nil(t, first)
			require.NotEmpty(t, err.Error())
			return
		}
		defaulted := withDecodeDefaults(first.DeepCopy())
		for _, version := range []string{VersionV1, VersionV1Beta1, VersionV1Alpha1} {
			out, err := Encode(first, version)
			require.NoError(t, err)
			second, err := DecodeSingleDocument(out)
			require.NoError(t, err, "%s", out)
			require.Equal(t, defaulted, second, "%s", out)
			again, err := Encode(second, version)
			require.NoError(t, err)
			stable, err := Encode(defaulted, version)
			require.NoError(t, err)
			require.Equal(t, string(stable), string(again))
		}
	})
}

// FuzzValidate validates whatever decodes: no panic, and the same errors
// with the file checks skipped as with a file system where every kubeconfig
// exists, and the kube-apiserver checks never panic either.
func FuzzValidate(f *testing.F) {
	addSeeds(f)
	compiler, err := matchcond.NewAuthorizationCompiler()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Decode(data)
		if err != nil {
			return
		}
		everyFile := func(string) (os.FileInfo, error) { return os.Stat(".") }
		skipped := Validate(cfg, ValidateOptions{SkipFileChecks: true, Compiler: compiler})
		_ = Validate(cfg, ValidateOptions{Stat: everyFile, KnownTypes: []string{TypeWebhook}, RejectInClusterConfig: true, Compiler: compiler})
		_ = ValidateReload(cfg, cfg)
		_, _ = DecodeAndValidate(data, cfg, ValidateOptions{SkipFileChecks: true, Compiler: compiler})
		for _, e := range skipped {
			require.NotEmpty(t, e.Error())
		}
	})
}

// FuzzFastPath checks the fast path for plain YAML against the exact
// decoder: wherever the fast path answers, the exact decoder accepts the
// data and gives the same configuration.
func FuzzFastPath(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{
		"apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: RBAC\n  name: rbac\n",
		"---\napiVersion: 'apiserver.config.k8s.io/v1beta1'\nkind: \"AuthorizationConfiguration\" # c\nauthorizers:\n  -   type: Webhook\n      name: w\n      webhook:\n        timeout: 3s\n        cacheAuthorizedRequests: false\n        connectionInfo:\n          type: KubeConfigFile\n          kubeConfigFile: /kc\n        matchConditions:\n        - expression: 'a ''b'' c'\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := fastDecode(data)
		if !ok {
			return
		}
		exact, err := decodeExact(data)
		require.NoError(t, err, "the fast path accepted:\n%s", data)
		require.Equal(t, exact, fast, "input:\n%s", data)
	})
}

// FuzzDecodeFor138: decoding as 1.38, which knows a webhook's
// conditionsReview, never panics, and accepts whatever 1.37 accepts, with
// the same configuration (1.38 adds a field, nothing else).
func FuzzDecodeFor138(f *testing.F) {
	addSeeds(f)
	f.Add([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  name: w\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n    connectionInfo: {type: InClusterConfig}\n    conditionsReview: {version: v1alpha1, kubeConfigContextName: c}\n"))
	f.Add([]byte(`{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AuthorizationConfiguration","authorizers":[{"type":"Webhook","name":"w","webhook":{"\u0063onditionsReview":{"version":"v1alpha1"}}}]}`))
	v138 := kube.MustParseVersion("1.38")
	t138, err := kube.TargetFor(v138)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err138 := DecodeFor(t138, data)
		want, err137 := Decode(data)
		if err137 != nil {
			return
		}
		require.NoError(t, err138, "1.37 decodes:\n%s", data)
		require.Equal(t, want, got, "input:\n%s", data)
		for _, a := range want.Authorizers {
			require.True(t, a.Webhook == nil || a.Webhook.ConditionsReview == nil, "1.37 decoded a conditionsReview:\n%s", data)
		}
	})
}
