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
		UnionReasonPrefix:               {false, false, true, true},
		AuditFailuresAggregated:         {false, false, true, true},
		StoredListsIncludes:             {false, false, true, true},
		NewListsIncludes:                {false, false, false, true},
		CELGo029:                        {false, false, true, true},
		QuantityArithmeticCopies:        {false, false, true, true},
		MutatingAdmissionPolicyPlugin:   {false, true, true, true},
		WebhooksExcludeVirtualResources: {false, false, true, true},
		StaticManifests:                 {false, false, true, true},
		StaticManifestsDirKnown:         {false, true, true, true},
		TypeCheckParamsWithoutSchema:    {false, true, true, true},
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
}
