package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdmitAgreesWithMutateOnRealWorldPolicies runs the published
// MutatingAdmissionPolicies (their verdicts pinned against kube-apiserver
// in package mutation's TestRealWorldVerdicts, and shown by mutate's
// goldens) through admit's chain: each object gets mutate's verdict,
// status and admitted object.
func TestAdmitAgreesWithMutateOnRealWorldPolicies(t *testing.T) {
	flags := []string{"-o", "json", "--no-diff", "--policies", rwMAP, "--params", rwMAP}
	resources := realworldResources()
	require.NotEmpty(t, resources)
	args := func(cmd string) []string { return append(append([]string{cmd}, flags...), resources...) }

	stdout, stderr, exit := runCommand(args("mutate"), "")
	require.Equal(t, 1, exit, stderr)
	var mutated mutateReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &mutated))
	stdout, stderr, exit = runCommand(args("admit"), "")
	require.Equal(t, 1, exit, stderr)
	var admitted admitReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &admitted))

	require.Len(t, admitted.Objects, len(mutated.Objects))
	denied := 0
	for i, m := range mutated.Objects {
		a := admitted.Objects[i]
		name := m.Source + " " + m.Kind + " " + m.Name
		assert.Equal(t, m.Admitted, a.Admitted, name)
		assert.Equal(t, m.Error, a.Error, name)
		assert.Equal(t, m.Object, a.Object, name)
		if !a.Admitted {
			denied++
			assert.Equal(t, "MutatingAdmissionPolicy", a.DeniedBy, name)
		}
	}
	assert.Positive(t, denied, "a published policy denies")
	assert.Less(t, denied, len(mutated.Objects), "and others admit")
}
