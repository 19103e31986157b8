package kubernetes

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// The releases before 1.37 whose gates package kube also knows: a 1.37
// binary no longer has the gates they removed since, and a real 1.35 or
// 1.36 does. Their tables are read from their own source (the
// defaultVersionedKubernetesFeatureGates map of k8s.io/kubernetes'
// pkg/features, which relists the gates of k8s.io/apiserver and
// apiextensions-apiserver), fetched through the module proxy.
var olderReleases = []struct{ module, version, kube string }{
	{"k8s.io/kubernetes", "v1.35.4", "1.35"},
	{"k8s.io/kubernetes", "v1.36.3", "1.36"},
}

const removedGatesTable = "../../kube/removed_gates.tsv"

// TestRemovedFeatureGatesTable checks package kube's table of the gates
// that releases 1.35 and 1.36 had and 1.37 no longer has: each one's specs
// as the last release that had it lists them, then a REMOVED row at the
// first release without it. -update-gates rewrites it.
func TestRemovedFeatureGatesTable(t *testing.T) {
	current := utilfeature.DefaultMutableFeatureGate.(featuregate.MutableVersionedFeatureGate).GetAllVersioned()
	last := map[string][]string{}  // gate: its rows in the last release having it
	removed := map[string]string{} // gate: the first release without it
	for i, r := range olderReleases {
		gates := releaseGates(t, r.module, r.version)
		for name, rows := range gates {
			if _, ok := current[featuregate.Feature(name)]; ok {
				continue
			}
			last[name] = rows
			next := "1.37"
			if i+1 < len(olderReleases) {
				next = olderReleases[i+1].kube
			}
			removed[name] = next
		}
	}
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(last)) {
		lines = append(lines, last[name]...)
		lines = append(lines, fmt.Sprintf("%s\t%s\tfalse\tREMOVED\tfalse\t-", name, removed[name]))
	}
	text := "# feature gates of releases before 1.37 that 1.37 no longer has: their specs in the last release that had them, and the release that removed them\n# feature gate\tsince\tdefault\tstage\tlocked\tmin compatibility version\n" + strings.Join(lines, "\n") + "\n"
	if *updateGates {
		require.NoError(t, os.WriteFile(removedGatesTable, []byte(text), 0o644))
	}
	data, err := os.ReadFile(removedGatesTable)
	require.NoError(t, err)
	require.Equal(t, text, string(data), "go test -run TestRemovedFeatureGatesTable -update-gates")
}

// TestReleaseGatesTable checks package kube's table of the gates whose own
// table in release 1.35 or 1.36 differs, at that release, from the history
// kube-apiserver 1.37 keeps of them (a gate locked afterwards, say): a
// target of that release answers with the release's own rows, as that
// kube-apiserver does, not as 1.37 emulating it. -update-gates rewrites it.
func TestReleaseGatesTable(t *testing.T) {
	current := utilfeature.DefaultMutableFeatureGate.(featuregate.MutableVersionedFeatureGate).GetAllVersioned()
	var lines []string
	for _, r := range append(slices.Clone(olderReleases), laterRelease) {
		gates := releaseGates(t, r.module, r.version)
		for _, name := range slices.Sorted(maps.Keys(gates)) {
			rows := gates[name]
			if r == laterRelease {
				// 1.38's rows before 1.38: its history of the gate.
				rows = slices.DeleteFunc(slices.Clone(rows), func(row string) bool { return strings.Split(row, "\t")[1] == laterRelease.kube })
			}
			specs, ok := current[featuregate.Feature(name)]
			if !ok {
				continue
			}
			var history []string
			for _, s := range specs {
				if s.Version.Major() == 0 || lessOrEqual(s.Version.String(), r.kube) {
					history = append(history, specLine(name, s))
				}
			}
			if slices.Equal(history, rows) {
				continue
			}
			for _, row := range gates[name] {
				lines = append(lines, r.kube+"\t"+row)
			}
		}
	}
	text := "# the gates whose own table in a release before 1.37 differs from 1.37's history of them: the release, then its rows\n# release\tfeature gate\tsince\tdefault\tstage\tlocked\tmin compatibility version\n" + strings.Join(lines, "\n") + "\n"
	if *updateGates {
		require.NoError(t, os.WriteFile(releaseGatesTable, []byte(text), 0o644))
	}
	data, err := os.ReadFile(releaseGatesTable)
	require.NoError(t, err)
	require.Equal(t, text, string(data), "go test -run TestReleaseGatesTable -update-gates")
}

const releaseGatesTable = "../../kube/release_gates.tsv"

// laterRelease is the release after 1.37 package kube answers for, from its
// beta (its go.mod needs Go 1.27: it is fetched with that toolchain).
var laterRelease = struct{ module, version, kube string }{"k8s.io/kubernetes", "v1.38.0-beta.0", "1.38"}

const laterGatesTable = "../../kube/later_gates.tsv"

// TestLaterFeatureGatesTable checks package kube's table of what 1.38
// changes in the gates: the transitions at 1.38 of its own table, the gates
// it adds, and a REMOVED row for each 1.37 gate it no longer has. (Where
// 1.38's table rewrites an earlier row, TestReleaseGatesTable's table keeps
// 1.38's own rows.) -update-gates rewrites it.
func TestLaterFeatureGatesTable(t *testing.T) {
	current := utilfeature.DefaultMutableFeatureGate.(featuregate.MutableVersionedFeatureGate).GetAllVersioned()
	gates := releaseGates(t, laterRelease.module, laterRelease.version)
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		for _, row := range gates[name] {
			if f := strings.Split(row, "\t"); f[1] == laterRelease.kube {
				lines = append(lines, row)
			}
		}
	}
	var removed []string
	for name := range current {
		if _, ok := gates[string(name)]; !ok {
			removed = append(removed, fmt.Sprintf("%s\t%s\tfalse\tREMOVED\tfalse\t-", name, laterRelease.kube))
		}
	}
	slices.Sort(removed)
	lines = append(lines, removed...)
	text := "# what 1.38 (v1.38.0-beta.0) changes in the gates: its transitions at 1.38, and the 1.37 gates it removed\n# feature gate\tsince\tdefault\tstage\tlocked\tmin compatibility version\n" + strings.Join(lines, "\n") + "\n"
	if *updateGates {
		require.NoError(t, os.WriteFile(laterGatesTable, []byte(text), 0o644))
	}
	data, err := os.ReadFile(laterGatesTable)
	require.NoError(t, err)
	require.Equal(t, text, string(data), "go test -run TestLaterFeatureGatesTable -update-gates")
}

// lessOrEqual compares two "1.x" versions.
func lessOrEqual(a, b string) bool {
	minor := func(s string) int {
		_, after, _ := strings.Cut(s, ".")
		n, _ := strconv.Atoi(after)
		return n
	}
	return minor(a) <= minor(b)
}

// releaseGates reads the feature gates of a release of k8s.io/kubernetes
// from its source: gate name to its table rows (as TestFeatureGatesTable
// writes them).
func releaseGates(t *testing.T, module, version string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	if version == laterRelease.version {
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=go1.27.3")
	}
	out, err := cmd.Output()
	require.NoError(t, err, "fetching %s@%s", module, version)
	var info struct{ Dir, Error string }
	require.NoError(t, json.Unmarshal(out, &info))
	require.Empty(t, info.Error)
	file := filepath.Join(info.Dir, "pkg", "features", "kube_features.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	gates := map[string][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "defaultVersionedKubernetesFeatureGates" {
			return true
		}
		lit := vs.Values[0].(*ast.CompositeLit)
		for _, e := range lit.Elts {
			kv := e.(*ast.KeyValueExpr)
			var name string
			switch k := kv.Key.(type) {
			case *ast.Ident:
				name = k.Name
			case *ast.SelectorExpr:
				name = k.Sel.Name
			default:
				t.Fatalf("a gate key %T", kv.Key)
			}
			for _, se := range kv.Value.(*ast.CompositeLit).Elts {
				gates[name] = append(gates[name], specRow(t, name, se.(*ast.CompositeLit)))
			}
		}
		return false
	})
	require.NotEmpty(t, gates, "no gates read from %s", file)
	return gates
}

// specRow is a FeatureSpec literal as a table row.
func specRow(t *testing.T, name string, lit *ast.CompositeLit) string {
	ver, def, stg, locked, compat := "", "false", "GA", "false", "-"
	for _, e := range lit.Elts {
		kv := e.(*ast.KeyValueExpr)
		switch kv.Key.(*ast.Ident).Name {
		case "Version":
			ver = versionArg(t, kv.Value)
		case "MinCompatibilityVersion":
			compat = versionArg(t, kv.Value)
		case "Default":
			def = kv.Value.(*ast.Ident).Name
		case "LockToDefault":
			locked = kv.Value.(*ast.Ident).Name
		case "PreRelease":
			switch kv.Value.(*ast.SelectorExpr).Sel.Name {
			case "Alpha":
				stg = "ALPHA"
			case "Beta":
				stg = "BETA"
			case "GA":
				stg = "GA"
			case "Deprecated":
				stg = "DEPRECATED"
			default:
				t.Fatalf("%s: a stage %s", name, kv.Value.(*ast.SelectorExpr).Sel.Name)
			}
		}
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", name, ver, def, stg, locked, compat)
}

// versionArg is the argument of version.MustParse("1.x"), as 1.37's
// version.String writes it.
func versionArg(t *testing.T, e ast.Expr) string {
	call := e.(*ast.CallExpr)
	s, err := strconv.Unquote(call.Args[0].(*ast.BasicLit).Value)
	require.NoError(t, err)
	return s
}

// TestOlderReleasesRecognizeTheirGates: a target of release 1.35 or 1.36
// recognizes every gate that release's own table lists, and besides those
// only gates registered outside that table (client-go's, component-base's),
// which the 1.37 binary registers the same way.
func TestOlderReleasesRecognizeTheirGates(t *testing.T) {
	current := utilfeature.DefaultMutableFeatureGate.(featuregate.MutableVersionedFeatureGate).GetAllVersioned()
	thisRelease := releaseGates(t, "k8s.io/kubernetes", "v1.37.2")
	for _, r := range olderReleases {
		own := releaseGates(t, r.module, r.version)
		target, err := kube.ParseTarget(r.kube)
		require.NoError(t, err)
		recognized := map[string]bool{}
		for _, g := range target.Gates() {
			recognized[string(g)] = true
		}
		for name := range own {
			_, err := target.WithFeatureGates(name + "=true")
			if err != nil {
				require.NotContains(t, err.Error(), "unrecognized", "%s lists %s", r.version, name)
			}
		}
		for name := range recognized {
			if _, ok := own[name]; ok {
				continue
			}
			_, inCurrent := current[featuregate.Feature(name)]
			_, inTable := thisRelease[name]
			require.True(t, inCurrent && !inTable, "%s recognizes %s, which is neither in its table nor registered outside k8s.io/kubernetes' table", r.kube, name)
		}
	}
}

const absentGatesTable = "../../kube/absent_gates.tsv"

// TestAbsentFeatureGatesTable checks package kube's table of the gates that
// a release before 1.37 does not have although 1.37's history of them
// starts before it (gates added later with a backdated first row, as a
// gate introduced as deprecated has): release, gate. -update-gates
// rewrites it.
func TestAbsentFeatureGatesTable(t *testing.T) {
	thisRelease := releaseGates(t, "k8s.io/kubernetes", "v1.37.2")
	current := utilfeature.DefaultMutableFeatureGate.(featuregate.MutableVersionedFeatureGate).GetAllVersioned()
	var lines []string
	for _, r := range olderReleases {
		own := releaseGates(t, r.module, r.version)
		for _, name := range slices.Sorted(maps.Keys(thisRelease)) {
			specs := current[featuregate.Feature(name)]
			if _, ok := own[name]; ok || len(specs) == 0 {
				continue
			}
			if first := specs[0].Version; first.Major() == 0 || lessOrEqual(first.String(), r.kube) {
				lines = append(lines, r.kube+"\t"+name)
			}
		}
	}
	text := "# gates a release before 1.37 does not have although 1.37's history of them starts before it: release, gate\n" + strings.Join(lines, "\n") + "\n"
	if *updateGates {
		require.NoError(t, os.WriteFile(absentGatesTable, []byte(text), 0o644))
	}
	data, err := os.ReadFile(absentGatesTable)
	require.NoError(t, err)
	require.Equal(t, text, string(data), "go test -run TestAbsentFeatureGatesTable -update-gates")
}
