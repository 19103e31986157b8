package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun checks the verdict on each request of the example.
func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(&out))
	got := out.String()
	for _, want := range []string{
		"== CREATE Deployment shop/web\nadmitted\n",
		"== CREATE Deployment shop/web\ndenied: deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-production' denied request: replicas must be no greater than 5 in shop\n",
		"== CREATE Deployment sandbox/web\nadmitted\nwarning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-others': replicas must be no greater than 2 in sandbox\n",
		`"validationActions":["Warn","Audit"]`,
		"== CREATE Pod sandbox/debug\ndenied: pods \"debug\" is forbidden: ValidatingAdmissionPolicy 'require-team-label' with binding 'require-team-label' denied request: pod debug has no team label\n",
		"== CREATE Pod sandbox/api\nadmitted\naudit annotation require-team-label/team: payments\n",
		"skipped: match condition \"not-system\" is false",
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "error:", "no expression of the example fails")
}
