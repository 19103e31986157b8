package servedtable

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/version"
)

// Check fails t unless dir (the main module's internal/servedresources)
// holds the table of the k8s.io/kubernetes of this build's modfile (Built),
// exactly as Generate writes it; with update, it writes it first. It also
// checks what package resources assumes when it orders a group resource's
// default-enabled versions newest first (BuiltInFor): that this is their
// order in the group's version priority (VersionPriority).
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
		t.Errorf("%s is not the table of k8s.io/kubernetes %s (run go test -run TestServedResourcesTable -update-served):\n%s", path, s.Release, strings.Join(diff, "\n"))
	}

	versions := map[string][]string{} // group/resource -> its default versions
	for _, line := range strings.Split(want, "\n") {
		f := strings.Split(line, "\t")
		if strings.HasPrefix(line, "#") || len(f) != 10 || f[3] != "" || f[8] != "true" {
			continue
		}
		gr := f[0] + "/" + f[2]
		versions[gr] = append(versions[gr], f[1])
	}
	checked := 0
	for gr, vs := range versions {
		if len(vs) < 2 {
			continue
		}
		group, _, _ := strings.Cut(gr, "/")
		priority, err := VersionPriority(s, group)
		require.NoError(t, err)
		inPriority := slices.DeleteFunc(slices.Clone(priority), func(v string) bool { return !slices.Contains(vs, v) })
		newestFirst := slices.SortedFunc(slices.Values(vs), func(a, b string) int { return version.CompareKubeAwareVersionStrings(b, a) })
		require.Equal(t, newestFirst, inPriority, "%s: the priority of its default versions is not newest first", gr)
		checked++
	}
	require.Positive(t, checked, "no group resource has several default versions: the order is not checked")
}
