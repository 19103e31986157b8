package main

import (
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
		}
	}
	assert.Positive(t, n)
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
