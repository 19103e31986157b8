package validatingpolicy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/internal/policyworld"
)

// TestRealWorldVerdicts runs every published ValidatingAdmissionPolicy file
// (testdata/realworld, copies of ../shared/realworld) in its scenario: its
// policies and bindings created as kube-apiserver's REST API accepts them
// (or loaded as static manifests), then every object of the scenario
// created. The verdicts — which policies and bindings are refused, and each
// creation's denial, warnings and audit annotations — must be the pinned
// ones (testdata/realworld-verdicts.json), which conformance's
// TestValidatingPolicyRealWorldMatchesKubeAPIServer checks are
// kube-apiserver's.
func TestRealWorldVerdicts(t *testing.T) {
	worlds, err := policyworld.LoadAll("testdata/realworld")
	require.NoError(t, err)
	want, err := policyworld.ReadVerdicts("testdata/realworld-verdicts.json")
	require.NoError(t, err)
	require.Len(t, worlds, len(want))
	for i, w := range worlds {
		got, err := w.Validate(context.Background())
		require.NoError(t, err)
		assert.Equal(t, want[i], got, w.Name)
	}
}
