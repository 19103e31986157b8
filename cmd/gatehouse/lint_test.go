package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLintReviewCoversGoldens: every finding gatehouse lint makes on the
// real-world policies is explained in the review beside the goldens.
func TestLintReviewCoversGoldens(t *testing.T) {
	review, err := os.ReadFile("testdata/golden/lint-realworld.review.md")
	require.NoError(t, err)
	finding := regexp.MustCompile(`^testdata/realworld/(\S+):(\d+): (error|warning) \[([a-z-]+)\] (\S+) (\S+)$`)
	n := 0
	keys := map[string]bool{}
	for _, g := range []string{"lint-realworld-map", "lint-realworld-vap-undecodable"} {
		data, err := os.ReadFile("testdata/golden/" + g + ".golden")
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			m := finding.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n++
			key := "`" + m[1] + ":" + m[2] + "` `[" + m[4] + "]` `" + m[5] + "` `" + m[6] + "` (" + m[3] + ")"
			assert.Contains(t, string(review), key, "%s: the finding has no entry in the review", g)
			keys[key] = true
		}
	}
	assert.Positive(t, n)
	// No entry is left of a finding the goldens no longer have.
	entry := regexp.MustCompile("^- (`[^`]+` `[^`]+` `[^`]+` `[^`]+` \\((error|warning)\\))")
	for _, line := range strings.Split(string(review), "\n") {
		if m := entry.FindStringSubmatch(line); m != nil {
			assert.True(t, keys[m[1]], "the review explains %s, which the goldens do not hold", m[1])
		}
	}
}

func TestSplitFieldPath(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"spec.validations[0].expression", []string{"spec", "validations", "[0]", "expression"}},
		{"metadata.name", []string{"metadata", "name"}},
		{"spec.matchConstraints.resourceRules[2].resources[10]", []string{"spec", "matchConstraints", "resourceRules", "[2]", "resources", "[10]"}},
		{"", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, splitFieldPath(tt.in), tt.in)
	}
}

// TestLintSARIF checks the SARIF 2.1.0 log's shape: one run of gatehouse,
// a rule for every result's ruleId, levels error or warning, and a file and
// line for every result.
func TestLintSARIF(t *testing.T) {
	stdout, _, exit := runCommand(append([]string{"lint", "-o", "sarif"}, realworldVAPs()...), "")
	require.Equal(t, exitFindings, exit)
	var log sarifLog
	require.NoError(t, json.Unmarshal([]byte(stdout), &log))
	assert.Equal(t, "2.1.0", log.Version)
	assert.Equal(t, "https://json.schemastore.org/sarif-2.1.0.json", log.Schema)
	require.Len(t, log.Runs, 1)
	run := log.Runs[0]
	assert.Equal(t, "gatehouse", run.Tool.Driver.Name)
	rules := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		assert.NotEmpty(t, r.ShortDescription.Text, r.ID)
		rules[r.ID] = true
	}
	require.NotEmpty(t, run.Results)
	for _, r := range run.Results {
		assert.True(t, rules[r.RuleID], r.RuleID)
		assert.Contains(t, []string{"error", "warning"}, r.Level)
		require.Len(t, r.Locations, 1)
		loc := r.Locations[0]
		require.NotNil(t, loc.PhysicalLocation, r.Message.Text)
		assert.NotEmpty(t, loc.PhysicalLocation.ArtifactLocation.URI)
		require.NotNil(t, loc.PhysicalLocation.Region)
		assert.Positive(t, loc.PhysicalLocation.Region.StartLine)
		assert.NotEmpty(t, loc.LogicalLocations[0].FullyQualifiedName)
	}
}
