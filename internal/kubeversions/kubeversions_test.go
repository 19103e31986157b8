package kubeversions

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// Each behaviour at each version with its default gates, and where a gate
// decides, that setting it decides.
func TestHas(t *testing.T) {
	for b, want := range map[Behaviour][4]bool{ // 1.35, 1.36, 1.37, 1.38
		UnionReasonPrefix:                   {false, false, true, true},
		AuditFailuresAggregated:             {false, false, true, true},
		StoredListsIncludes:                 {false, false, true, true},
		NewListsIncludes:                    {false, false, false, true},
		CELGo029:                            {false, false, true, true},
		QuantityArithmeticCopies:            {false, false, true, true},
		MutatingAdmissionPolicyPlugin:       {false, true, true, true},
		WebhooksExcludeVirtualResources:     {false, false, true, true},
		StaticManifests:                     {false, false, true, true},
		StaticManifestsDirKnown:             {false, true, true, true},
		AuthorizationConditionsReview:       {false, false, false, true},
		WebhookStaticOrder:                  {false, false, false, true},
		UnrequestedConditionalDecisionFails: {false, false, false, true},
		TypeCheckParamsWithoutSchema:        {false, true, true, true},
		StoredCIDRIsMask:                    {false, false, false, true},
		RESTDeclarativeValidation:           {false, false, true, true},
		RESTDeclarativeBindingPolicyName:    {false, false, false, true},
		RESTDeclarativeGeneration:           {false, false, false, true},
		PluginConfigurationsStrict:          {false, true, true, true},
		SchemeNamedLine110:                  {false, false, false, true},
		ConditionsAwareUnion:                {false, false, true, true},
		ConditionalUnionNamesChecked:        {false, false, false, true},
		ConditionalWebhooks:                 {false, false, false, false},
		ConditionsEnforcerPlugin:            {false, false, false, false},
		AuthorizationMatchOptions:           {false, false, false, false},
	} {
		for i, v := range kube.SupportedVersions() {
			target, err := kube.TargetFor(v)
			require.NoError(t, err)
			assert.Equal(t, want[i], Has(target, b), "behaviour %d at %s", b, v)
		}
	}
	t135, err := kube.ParseTarget("1.35")
	require.NoError(t, err)
	on, err := t135.WithFeatureGate(kube.MutatingAdmissionPolicy, true)
	require.NoError(t, err)
	assert.True(t, Has(on, MutatingAdmissionPolicyPlugin))
	t136, err := kube.ParseTarget("1.36")
	require.NoError(t, err)
	on, err = t136.WithFeatureGate(kube.ManifestBasedAdmissionControlConfig, true)
	require.NoError(t, err)
	assert.True(t, Has(on, StaticManifests))
	off, err := kube.Target{}.WithFeatureGate(kube.ExcludeAdmissionWebhookVirtualResources, false)
	require.NoError(t, err)
	assert.False(t, Has(off, WebhooksExcludeVirtualResources))
	t138, err := kube.ParseTarget("1.38")
	require.NoError(t, err)
	on, err = t138.WithFeatureGate(kube.ConditionalAuthorization, true)
	require.NoError(t, err)
	assert.True(t, Has(on, ConditionalWebhooks))
	assert.True(t, Has(on, ConditionsEnforcerPlugin))
	assert.True(t, Has(on, AuthorizationMatchOptions))
}

// The admission policies' API versions at each version; a kind or group
// that is not a policy's is not known.
func TestAdmissionPolicyServing(t *testing.T) {
	for _, c := range []struct {
		apiVersion, kind string
		want             [4]Serving // 1.35, 1.36, 1.37, 1.38
	}{
		{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", [4]Serving{Served, Served, Served, Served}},
		{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", [4]Serving{Served, Served, Served, Served}},
		{"admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicy", [4]Serving{}},
		{"admissionregistration.k8s.io/v1alpha1", "ValidatingAdmissionPolicyBinding", [4]Serving{}},
		{"admissionregistration.k8s.io/v1", "MutatingAdmissionPolicy", [4]Serving{NotServed, Served, Served, Served}},
		{"admissionregistration.k8s.io/v1", "MutatingAdmissionPolicyBinding", [4]Serving{NotServed, Served, Served, Served}},
		{"admissionregistration.k8s.io/v1beta1", "MutatingAdmissionPolicy", [4]Serving{ServedWhenEnabled, ServedWhenEnabled, ServedWhenEnabled, ServedWhenEnabled}},
		{"admissionregistration.k8s.io/v1alpha1", "MutatingAdmissionPolicy", [4]Serving{ServedWhenEnabled, ServedWhenEnabled, ServedWhenEnabled, ServedWhenEnabled}},
		{"admissionregistration.k8s.io/v2", "MutatingAdmissionPolicy", [4]Serving{}},
	} {
		for i, v := range kube.SupportedVersions() {
			target, err := kube.TargetFor(v)
			require.NoError(t, err)
			got, known := AdmissionPolicyServing(target, c.apiVersion, c.kind)
			assert.True(t, known)
			assert.Equal(t, c.want[i], got, "%s %s at %s", c.apiVersion, c.kind, v)
		}
	}
	for _, c := range [][2]string{{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"}, {"v1", "ConfigMap"}, {"example.com/v1", "MutatingAdmissionPolicy"}} {
		_, known := AdmissionPolicyServing(kube.Target{}, c[0], c[1])
		assert.False(t, known, c)
	}
}
