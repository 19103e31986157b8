package kubernetes

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	_ "k8s.io/kubernetes/pkg/features" // registers kube-apiserver's gates

	"github.com/gatehouse-dev/gatehouse/kube"
)

var updateGates = flag.Bool("update-gates", false, "rewrite package kube's table of feature gates from kube-apiserver v1.37.2's")

// gatesTable is package kube's table of feature gates.
const gatesTable = "../../kube/feature_gates.tsv"

// TestFeatureGatesTable checks that package kube's table of feature gates is
// exactly the versioned specs kube-apiserver v1.37.2 registers (every gate
// of k8s.io/kubernetes' pkg/features, which adds k8s.io/apiserver's and
// component-base's): one line per gate and version transition, the
// version, default, stage and lock. A 1.37 binary carries each gate's
// history from the version it entered, which is what its
// --emulated-version reads; gates it no longer has are the table's
// removed.tsv's (from older releases). go test -run TestFeatureGatesTable
// -update-gates rewrites it.
func TestFeatureGatesTable(t *testing.T) {
	gate, ok := utilfeature.DefaultMutableFeatureGate.(featuregate.MutableVersionedFeatureGate)
	require.True(t, ok)
	all := gate.GetAllVersioned()
	var lines []string
	for name, specs := range all {
		for _, s := range specs {
			lines = append(lines, specLine(string(name), s))
		}
	}
	slices.SortStableFunc(lines, func(a, b string) int {
		// By gate name, each gate's lines in version order (as kube lists
		// them).
		an, bn := a[:strings.IndexByte(a, '\t')], b[:strings.IndexByte(b, '\t')]
		return strings.Compare(an, bn)
	})
	text := "# feature gate\tsince\tdefault\tstage\tlocked\tmin compatibility version\n" + strings.Join(lines, "\n") + "\n"
	deps, ok := utilfeature.DefaultMutableFeatureGate.(interface {
		Dependencies() map[featuregate.Feature][]featuregate.Feature
	})
	require.True(t, ok)
	var depLines []string
	for g, ds := range deps.Dependencies() {
		for _, d := range ds {
			depLines = append(depLines, fmt.Sprintf("%s\t%s", g, d))
		}
	}
	slices.Sort(depLines)
	depText := "# feature gate\tdepends on\n" + strings.Join(depLines, "\n") + "\n"
	if *updateGates {
		require.NoError(t, os.WriteFile(gatesTable, []byte(text), 0o644))
		require.NoError(t, os.WriteFile(dependenciesTable, []byte(depText), 0o644))
	}
	data, err := os.ReadFile(gatesTable)
	require.NoError(t, err)
	require.Equal(t, text, string(data), "package kube's gates differ from kube-apiserver v1.37.2's: go test -run TestFeatureGatesTable -update-gates")
	data, err = os.ReadFile(dependenciesTable)
	require.NoError(t, err)
	require.Equal(t, depText, string(data), "package kube's gate dependencies differ from kube-apiserver v1.37.2's: go test -run TestFeatureGatesTable -update-gates")
}

const dependenciesTable = "../../kube/feature_gate_dependencies.tsv"

// stage is a stage as the table writes it ("GA" for kube's empty GA).
func stage[P ~string](p P) string {
	if p == "" {
		return "GA"
	}
	return string(p)
}

func mustKubeVersion(v kube.Version) *version.Version { return version.MajorMinor(1, uint(v.Minor())) }

// gateErrors are the messages of a feature gate error, sorted: kube-apiserver
// lists several in the order it iterates a map.
func gateErrors(err error) []string {
	if err == nil {
		return nil
	}
	msgs := gateMessage.FindAllString(err.Error(), -1)
	if len(msgs) == 0 {
		return []string{err.Error()}
	}
	slices.Sort(msgs)
	return msgs
}

var gateMessage = regexp.MustCompile(`cannot set feature gate \S+ to \S+, feature is (locked to \S+?|PreAlpha at emulated version \S+, min compatibility version [0-9.]+)\b|[A-Za-z0-9]+ is enabled, but depends on features that are disabled: \[[^\]]*\]|unrecognized feature gate: \S+|missing bool value for .*|invalid value of .*`)

// TestFeatureGatesAtVersions compares package kube's gates with kube-apiserver
// v1.37.2's feature gate emulating each version it can (1.34 to 1.37): which
// gates exist, their defaults, and what setting each to true and to false
// answers (accepted, locked, PreAlpha, unrecognized).
func TestFeatureGatesAtVersions(t *testing.T) {
	for _, v := range kube.SupportedVersions() {
		if v.Compare(kube.V1_37) > 0 {
			continue // the 1.37 binary cannot emulate a later version
		}
		t.Run(v.String(), func(t *testing.T) {
			// DeepCopy keeps the dependencies between gates (DeepCopyAndReset
			// drops them).
			kg := utilfeature.DefaultMutableFeatureGate.DeepCopy()
			require.NoError(t, kg.SetEmulationVersion(mustKubeVersion(v)))
			target, err := kube.TargetFor(v)
			require.NoError(t, err)
			known := kg.GetAll()
			all := kg.GetAllVersioned()
			// The gates a release's own table has otherwise (its rows in
			// release_gates.tsv, gates it lacks in absent_gates.tsv, or
			// removed since): the 1.37 binary's emulation answers with its
			// history, package kube as that release did
			// (TestReleaseGatesTable, TestAbsentFeatureGatesTable,
			// TestRemovedFeatureGatesTable).
			own := gatesOfTable(t, releaseGatesTable, v.String())
			for name := range gatesOfTable(t, absentGatesTable, v.String()) {
				own[name] = true
			}
			for name := range gatesOfTable(t, removedGatesTable, "") {
				own[name] = true
			}
			for name := range known {
				g := kube.Gate(name)
				if own[string(name)] {
					continue
				}
				require.Equal(t, kg.Enabled(name), target.Enabled(g), "default of %s", name)
				for _, on := range []bool{true, false} {
					spec := fmt.Sprintf("%s=%t", name, on)
					kerr := kg.DeepCopy().Set(spec)
					_, gerr := target.WithFeatureGates(spec)
					want := realVersionErrors(gateErrors(kerr), target)
					if introducedAfter(all[name], v) {
						// kube-apiserver 1.37 emulating an older
						// version calls a later gate PreAlpha; a real
						// kube-apiserver of that version, which
						// package kube answers as, does not know it.
						want = []string{"unrecognized feature gate: " + string(name)}
					}
					require.Equal(t, want, gateErrors(gerr), spec)
				}
			}
			for _, g := range target.Gates() {
				if _, ok := known[featuregate.Feature(g)]; !ok && !own[string(g)] {
					// A gate the 1.37 binary no longer has, or one
					// that is PreAlpha at v (GetAll leaves those out).
					require.False(t, target.Enabled(g), "%s", g)
				}
			}
			for _, spec := range []string{"NoSuchGate=true", "MutatingAdmissionPolicy", "MutatingAdmissionPolicy=maybe", " MutatingAdmissionPolicy = true ,",
				"MutatingAdmissionPolicy=true,NoSuchGate=false", "AllAlpha=true", "AllBeta=false", "AllAlpha=true,AllBeta=true", "AllBeta=false,MutatingAdmissionPolicy=true"} {
				kerr := kg.DeepCopy().Set(spec)
				gt, gerr := target.WithFeatureGates(spec)
				require.Equal(t, realVersionErrors(gateErrors(kerr), target), gateErrors(gerr), spec)
				if kerr == nil {
					// What is then on.
					kset := kg.DeepCopy()
					require.NoError(t, kset.Set(spec))
					for name := range known {
						if !own[string(name)] {
							require.Equal(t, kset.Enabled(name), gt.Enabled(kube.Gate(name)), "%s after %s", name, spec)
						}
					}
				}
			}
		})
	}
}

// gatesOfTable are the gates of a table file of package kube, those of
// release (its first column) when release is set.
func gatesOfTable(t *testing.T, file, release string) map[string]bool {
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if release != "" {
			if f[0] != release {
				continue
			}
			f = f[1:]
		}
		out[f[0]] = true
	}
	return out
}

// introducedAfter tells a gate whose history starts after version v.
func introducedAfter(specs featuregate.VersionedSpecs, v kube.Version) bool {
	return len(specs) > 0 && specs[0].Version.GreaterThan(mustKubeVersion(v))
}

// realVersionErrors drops from the errors of kube-apiserver 1.37 emulating
// an older version those about a dependency on gates that version does not
// have: a real kube-apiserver of that version has neither the gate nor the
// dependency.
func realVersionErrors(msgs []string, target kube.Target) []string {
	has := map[string]bool{}
	for _, g := range target.Gates() {
		has[string(g)] = true
	}
	var out []string
	for _, m := range msgs {
		if _, deps, ok := strings.Cut(m, "depends on features that are disabled: ["); ok {
			missing := true
			for _, d := range strings.Fields(strings.TrimSuffix(deps, "]")) {
				missing = missing && !has[d]
			}
			if missing {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// specLine is a gate's spec as package kube's tables write it: gate, since,
// default, stage, locked, min compatibility version ("-" for none).
func specLine(name string, s featuregate.FeatureSpec) string {
	compat := "-"
	if s.MinCompatibilityVersion != nil {
		compat = s.MinCompatibilityVersion.String()
	}
	return fmt.Sprintf("%s\t%s\t%t\t%s\t%t\t%s", name, s.Version.String(), s.Default, stage(s.PreRelease), s.LockToDefault, compat)
}
