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
	dir := t.TempDir()
	policy, err := os.ReadFile("testdata/admit/validating.yaml")
	require.NoError(t, err)
	path := filepath.Join(dir, "policy.yaml")
	require.NoError(t, os.WriteFile(path, policy, 0o644))
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"test", "init", path}, nil, &out, &errOut), errOut.String())
	assert.FileExists(t, filepath.Join(dir, "policy.test.yaml"))
	assert.FileExists(t, filepath.Join(dir, "policy.resources.yaml"))

	out.Reset()
	code := run([]string{"test", filepath.Join(dir, "policy.test.yaml")}, nil, &out, &errOut)
	assert.Equal(t, 1, code, out.String())
	assert.Contains(t, out.String(), "FAIL admitted: deny (pods \"good\" is forbidden")
	assert.Contains(t, out.String(), `FAIL denied: message`)
	assert.Contains(t, out.String(), `does not contain "CHANGEME"`)
	assert.Contains(t, out.String(), "0 passed, 2 failed")

	errOut.Reset()
	assert.Equal(t, 2, run([]string{"test", "init", path}, nil, &out, &errOut))
	assert.True(t, strings.Contains(errOut.String(), "exists: not overwritten"), errOut.String())
}
