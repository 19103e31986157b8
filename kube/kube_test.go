package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"1.36": V1_36, "v1.35": V1_35, "1.37.2": V1_37, "v1.38.0-beta.0": V1_38, " 1.36 ": V1_36} {
		got, err := ParseVersion(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for in, msg := range map[string]string{
		"1.34":   "unsupported Kubernetes version 1.34: gatehouse answers for Kubernetes 1.35, 1.36, 1.37, 1.38 (beta)",
		"1.39":   "unsupported Kubernetes version 1.39: gatehouse answers for Kubernetes 1.35, 1.36, 1.37, 1.38 (beta)",
		"2.0":    `"2.0" is not a Kubernetes version (such as 1.36): gatehouse answers for Kubernetes 1.35, 1.36, 1.37, 1.38 (beta)`,
		"latest": `"latest" is not a Kubernetes version (such as 1.36): gatehouse answers for Kubernetes 1.35, 1.36, 1.37, 1.38 (beta)`,
		"1.x":    `"1.x" is not a Kubernetes version (such as 1.36): gatehouse answers for Kubernetes 1.35, 1.36, 1.37, 1.38 (beta)`,
		"":       `"" is not a Kubernetes version (such as 1.36): gatehouse answers for Kubernetes 1.35, 1.36, 1.37, 1.38 (beta)`,
	} {
		_, err := ParseVersion(in)
		assert.EqualError(t, err, msg, in)
	}
	assert.Equal(t, "1.36.3", V1_36.Release())
	assert.Equal(t, "1.38.0-beta.0", V1_38.Release())
	assert.Equal(t, V1_37, Target{}.Version(), "the zero Target is the latest release")
}

// The gates the engines read, at each version: the reference's table
// (kubernetes-versions.md §2), which the generated tables must give.
func TestEngineGates(t *testing.T) {
	type want struct{ v1_35, v1_36, v1_37, v1_38 any } // bool, or "unrecognized"
	for g, w := range map[Gate]want{
		MutatingAdmissionPolicy:                 {false, true, true, true},
		ManifestBasedAdmissionControlConfig:     {"unrecognized", false, true, true},
		ExcludeAdmissionWebhookVirtualResources: {"unrecognized", "unrecognized", true, true},
		ConditionalAuthorization:                {"unrecognized", "unrecognized", "unrecognized", false},
		ConstrainedImpersonation:                {false, true, true, true},
		"StructuredAuthorizationConfiguration":  {true, "unrecognized", "unrecognized", "unrecognized"},
		"AuthorizeWithSelectors":                {true, true, "unrecognized", "unrecognized"},
	} {
		for i, v := range SupportedVersions() {
			exp := []any{w.v1_35, w.v1_36, w.v1_37, w.v1_38}[i]
			target, err := TargetFor(v)
			require.NoError(t, err)
			_, setErr := target.WithFeatureGate(g, true)
			if exp == "unrecognized" {
				assert.False(t, target.Enabled(g), "%s at %s", g, v)
				assert.EqualError(t, setErr, "unrecognized feature gate: "+string(g), "%s at %s", g, v)
				assert.NotContains(t, target.Gates(), g)
				continue
			}
			assert.Equal(t, exp, target.Enabled(g), "%s at %s", g, v)
			assert.Contains(t, target.Gates(), g)
		}
	}
}

func TestWithFeatureGates(t *testing.T) {
	t136, err := ParseTarget("1.36")
	require.NoError(t, err)
	on, err := t136.WithFeatureGates("ManifestBasedAdmissionControlConfig=true")
	require.NoError(t, err)
	assert.True(t, on.Enabled(ManifestBasedAdmissionControlConfig))
	assert.False(t, t136.Enabled(ManifestBasedAdmissionControlConfig), "a Target is immutable")
	assert.Equal(t, "1.36 --feature-gates=ManifestBasedAdmissionControlConfig=true", on.String())
	// Settings accumulate, the last value of a gate wins.
	both, err := on.WithFeatureGates("MutatingAdmissionPolicy=false, ManifestBasedAdmissionControlConfig = false")
	require.NoError(t, err)
	assert.Equal(t, "ManifestBasedAdmissionControlConfig=false,MutatingAdmissionPolicy=false", both.FeatureGates())
	assert.False(t, both.Enabled(MutatingAdmissionPolicy))

	for spec, msg := range map[string]string{
		"MutatingAdmissionPolicy":                      "missing bool value for MutatingAdmissionPolicy",
		"MutatingAdmissionPolicy=yes":                  `invalid value of MutatingAdmissionPolicy=yes, err: strconv.ParseBool: parsing "yes": invalid syntax`,
		"NoSuchGate=true":                              "unrecognized feature gate: NoSuchGate",
		"AuthorizeWithSelectors=false":                 "cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true",
		"ExcludeAdmissionWebhookVirtualResources=true": "unrecognized feature gate: ExcludeAdmissionWebhookVirtualResources",
	} {
		_, err := t136.WithFeatureGates(spec)
		assert.EqualError(t, err, msg, spec)
	}
	// A gate of 1.38 does not exist in 1.37 (a 1.38 kube-apiserver
	// emulating 1.37 would call it PreAlpha).
	_, err = Target{}.WithFeatureGates("ConsistentGetFromCache=true")
	assert.EqualError(t, err, "unrecognized feature gate: ConsistentGetFromCache")
	// A gate whose only spec at 1.38 needs compatibility with 1.38 is
	// PreAlpha in 1.38 (its compatibility version is 1.37).
	t138, err := TargetFor(V1_38)
	require.NoError(t, err)
	assert.False(t, t138.Enabled("CertificateSigningRequestMLDSA"))
	// AllAlpha turns on the alpha gates not set otherwise.
	all, err := t136.WithFeatureGates("AllAlpha=true,ManifestBasedAdmissionControlConfig=false")
	require.NoError(t, err)
	assert.False(t, all.Enabled(ManifestBasedAdmissionControlConfig))
	assert.True(t, all.Enabled("ShardedListAndWatch"), "alpha at 1.36")
}
