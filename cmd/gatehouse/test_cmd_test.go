package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTestInit writes a skeleton next to a policy file and runs it: both
// cases run against the policy (which requires a team label the skeleton's
// Pods lack, and whose message is not the skeleton's CHANGEME) and fail
// until the user edits them; a second init refuses to overwrite.
func TestTestInit(t *testing.T) {
	tests := []struct {
		name, policy string
		// kinds are the kinds of the objects written; exit and contains
		// what running the written suite gives.
		kinds    []string
		exit     int
		contains []string
	}{{
		name: "validating policies: a sample of each matched kind, cases to edit", policy: "testdata/admit/validating.yaml",
		kinds: []string{"kind: Deployment", "kind: Pod"}, exit: 1,
		contains: []string{
			"PASS replica-limit admits a good Deployment",
			`FAIL require-team-label admits a good Pod`, `pod require-team-label-good has no team label`,
			`FAIL require-team-label denies a bad Pod`, `does not contain "CHANGEME"`,
		},
	}, {
		name: "a mutating policy of ConfigMaps: ConfigMaps, and the admitted case passes", policy: "testdata/realworld/mutating-admission-policy/kyverno__kyverno__map-with-json-patch-policy.yaml",
		kinds: []string{"kind: ConfigMap", "lfx-mentorship: kyverno"}, exit: 0,
		contains: []string{"PASS add-label-to-configmap mutates a ConfigMap", "1 passed, 0 failed"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			policy, err := os.ReadFile(tc.policy)
			require.NoError(t, err)
			path := filepath.Join(dir, "policy.yaml")
			require.NoError(t, os.WriteFile(path, policy, 0o644))
			var out, errOut bytes.Buffer
			require.Equal(t, 0, run([]string{"test", "init", path}, nil, &out, &errOut), errOut.String())
			resources, err := os.ReadFile(filepath.Join(dir, "policy.resources.yaml"))
			require.NoError(t, err)
			for _, k := range tc.kinds {
				assert.Contains(t, string(resources), k)
			}
			assert.NotContains(t, string(resources), "CHANGEME")

			out.Reset()
			code := run([]string{"test", filepath.Join(dir, "policy.test.yaml")}, nil, &out, &errOut)
			assert.Equal(t, tc.exit, code, out.String())
			for _, c := range tc.contains {
				assert.Contains(t, out.String(), c)
			}

			errOut.Reset()
			assert.Equal(t, 2, run([]string{"test", "init", path}, nil, &out, &errOut))
			assert.True(t, strings.Contains(errOut.String(), "exists: not overwritten"), errOut.String())
		})
	}
}
