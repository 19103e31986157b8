package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/output.golden")

// TestQuickstartOutput runs the quickstart and compares its output with the
// golden file: the output must be the same on every run.
func TestQuickstartOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	golden := filepath.Join("testdata", "output.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), out.String())

	// And once more: nothing depends on the run.
	var again bytes.Buffer
	require.NoError(t, run(&again))
	assert.Equal(t, out.String(), again.String())
}
