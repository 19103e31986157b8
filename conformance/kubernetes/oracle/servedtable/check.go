package servedtable

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Check fails t unless dir (the main module's internal/servedresources)
// holds the table of the k8s.io/kubernetes of this build's modfile (Built), exactly as
// Generate writes it; with update, it writes it first.
func Check(t testing.TB, dir string, update bool) {
	t.Helper()
	s, err := Built()
	require.NoError(t, err)
	want, err := Generate(s)
	require.NoError(t, err)
	path := filepath.Join(dir, FileName(s.Minor))
	if update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err, "no table for %s: run go test -run TestServedResourcesTable -update-served", s.Minor)
	if want != string(got) {
		// The lines apart, not the whole tables.
		wantLines, gotLines := strings.Split(want, "\n"), strings.Split(string(got), "\n")
		var diff []string
		for _, l := range wantLines {
			if !slices.Contains(gotLines, l) {
				diff = append(diff, "+ "+l)
			}
		}
		for _, l := range gotLines {
			if !slices.Contains(wantLines, l) {
				diff = append(diff, "- "+l)
			}
		}
		t.Fatalf("%s is not the table of k8s.io/kubernetes %s (run go test -run TestServedResourcesTable -update-served):\n%s", path, s.Release, strings.Join(diff, "\n"))
	}
}
