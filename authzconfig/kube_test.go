package authzconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// Match conditions compile in the version's environment of stored
// expressions: includes() from 1.37 only; duration(int) before 1.37 only
// (cel-go 0.26 declares it; it then fails at every evaluation). The texts
// are those of each version's kube-apiserver (conformance's
// TestCELMatchesKubeAPIServerPerVersion compares the environments).
func TestMatchConditionsPerVersion(t *testing.T) {
	with := func(expr string) *Configuration {
		return webhookWith(func(w *WebhookConfiguration) {
			w.MatchConditionSubjectAccessReviewVersion = "v1"
			w.MatchConditions = []WebhookMatchCondition{{Expression: expr}}
		})
	}
	includes := "request.groups.includes('admins')"
	duration := "duration(size(request.groups)) > duration('0s')"
	for _, tt := range []struct {
		version, expr string
		errText       string
	}{
		{"1.35", includes, "undeclared reference to 'includes'"},
		{"1.36", includes, "undeclared reference to 'includes'"},
		{"1.37", includes, ""},
		{"1.38", includes, ""},
		{"1.35", duration, ""},
		{"1.36", duration, ""},
		{"1.37", duration, "found no matching overload for 'duration' applied to '(int)'"},
		// A literal duration(5): kube's duration-literal check before 1.37,
		// cel-go's missing overload from 1.37 (found by conformance's
		// TestAuthzConfigVersionDifferences).
		{"1.35", "duration(5) > duration('1s')", "ERROR: <input>:1:10: invalid duration argument"},
		{"1.36", "duration(5) > duration('1s')", "ERROR: <input>:1:10: invalid duration argument"},
		{"1.37", "duration(5) > duration('1s')", "ERROR: <input>:1:9: found no matching overload for 'duration' applied to '(int)'"},
	} {
		target, err := kube.ParseTarget(tt.version)
		require.NoError(t, err)
		errs := Validate(with(tt.expr), ValidateOptions{Stat: fakeStat, Kube: target})
		if tt.errText == "" {
			assert.Empty(t, errs, "%s at %s", tt.expr, tt.version)
			continue
		}
		require.Len(t, errs, 1, "%s at %s", tt.expr, tt.version)
		assert.Equal(t, "authorizers[0].matchConditions[0].expression", errs[0].Field)
		assert.Contains(t, errs[0].Detail, tt.errText, tt.version)
	}
}

// A webhook's conditionsReview (conditional authorization) is 1.38's, in v1
// only: before, decoding refuses it as an unknown field; on 1.38 it
// decodes and validates with kube-apiserver 1.38's errors, the first of
// which, by default, is its gate's (on the authorizer's path, as
// kube-apiserver writes the webhook's errors).
func TestConditionsReviewPerVersion(t *testing.T) {
	file := func(apiVersion, sarVersion, connection, review string) []byte {
		return []byte(`apiVersion: apiserver.config.k8s.io/` + apiVersion + `
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: webhook
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: ` + sarVersion + `
    failurePolicy: NoOpinion
    connectionInfo: ` + connection + `
    conditionsReview: ` + review + `
`)
	}
	const inCluster = "{type: InClusterConfig}"
	target := func(version, gates string) kube.Target {
		t135, err := kube.ParseTarget(version)
		require.NoError(t, err)
		out, err := t135.WithFeatureGates(gates)
		require.NoError(t, err)
		return out
	}
	for _, v := range []string{"1.35", "1.36", "1.37"} {
		_, err := DecodeFor(target(v, ""), file("v1", "v1", inCluster, "{version: v1alpha1}"))
		require.Error(t, err, v)
		assert.Equal(t, `strict decoding error: unknown field "authorizers[0].webhook.conditionsReview"`, err.Error(), v)
	}
	_, err := Decode(file("v1", "v1", inCluster, "{version: v1alpha1}"))
	assert.EqualError(t, err, `strict decoding error: unknown field "authorizers[0].webhook.conditionsReview"`, "Decode is 1.37's")
	// A type error inside the field is still an unknown field before 1.38.
	_, err = DecodeFor(target("1.37", ""), file("v1", "v1", inCluster, "5"))
	assert.EqualError(t, err, `strict decoding error: unknown field "authorizers[0].webhook.conditionsReview"`)
	// v1beta1 and v1alpha1 never have it.
	_, err = DecodeFor(target("1.38", ""), file("v1beta1", "v1", inCluster, "{version: v1alpha1}"))
	assert.EqualError(t, err, `strict decoding error: unknown field "authorizers[0].webhook.conditionsReview"`)

	for _, tt := range []struct {
		name, gates, sarVersion, connection, review string
		want                                        []string
	}{
		{"gate off", "", "v1", inCluster, "{version: v1alpha1}",
			[]string{"authorizers[0].conditionsReview: Forbidden: the ConditionalAuthorization feature gate must be on to use this field"}},
		{"valid", "ConditionalAuthorization=true", "v1", inCluster, "{version: v1alpha1}", nil},
		{"v1beta1 reviews", "ConditionalAuthorization=true", "v1beta1", inCluster, "{version: v1alpha1}",
			[]string{"authorizers[0].conditionsReview: Forbidden: may only be set when subjectAccessReviewVersion=v1"}},
		{"no version", "ConditionalAuthorization=true", "v1", inCluster, "{}",
			[]string{"authorizers[0].conditionsReview.version: Required value"}},
		{"unknown version", "", "v1", inCluster, "{version: v1}", []string{
			"authorizers[0].conditionsReview: Forbidden: the ConditionalAuthorization feature gate must be on to use this field",
			`authorizers[0].conditionsReview.version: Unsupported value: "v1": supported values: "v1alpha1"`}},
		{"context in cluster", "ConditionalAuthorization=true", "v1", inCluster, "{version: v1alpha1, kubeConfigContextName: conditions}",
			[]string{"authorizers[0].conditionsReview.kubeConfigContextName: Forbidden: may only be specified when authorizers[0].connectionInfo.type=KubeConfigFile"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := target("1.38", tt.gates)
			cfg, err := DecodeFor(k, file("v1", tt.sarVersion, tt.connection, tt.review))
			require.NoError(t, err)
			require.NotNil(t, cfg.Authorizers[0].Webhook.ConditionsReview)
			var got []string
			for _, e := range Validate(cfg, ValidateOptions{Kube: k}) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}

	// Encoded as v1 it stays; v1beta1 has no such field.
	cfg, err := DecodeFor(target("1.38", ""), file("v1", "v1", inCluster, "{version: v1alpha1, kubeConfigContextName: c}"))
	require.NoError(t, err)
	data, err := Encode(cfg, VersionV1)
	require.NoError(t, err)
	again, err := DecodeFor(target("1.38", ""), data)
	require.NoError(t, err)
	assert.Equal(t, cfg, again)
	data, err = Encode(cfg, VersionV1Beta1)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "conditionsReview")
	// Built in Go for an earlier version, it is refused.
	errs := Validate(cfg, ValidateOptions{Kube: target("1.37", "")})
	require.Len(t, errs, 1)
	assert.Equal(t, "authorizers[0].conditionsReview: Forbidden: Kubernetes 1.37 has no conditionsReview (1.38 brings it)", errs[0].Error())
}
