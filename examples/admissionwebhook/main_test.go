package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun checks each Pod's verdict and what the webhooks did.
func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(&out))
	got := out.String()
	for _, want := range []string{
		"== Pod web (nginx:1.27)\nadmitted, annotations map[owner:alice]\nwarning: images checked\n",
		"denied by ValidatingAdmissionWebhook: admission webhook \"images.example.com\" denied the request: image busybox:latest is not pinned\n",
		"warning: Validation failed for ValidatingAdmissionPolicy 'team-label' with binding 'team-label': pod api has no team label\n",
		"audit annotation owner.example.com/owner: alice\n",
		"webhook owner.example.com (owner): patched .metadata.annotations\n",
		"webhook owner.example.com (owner): not called (not reinvoked)\n",
		"the webhook server received 6 reviews\n",
	} {
		assert.Contains(t, got, want)
	}
}
