package kube

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Gate is the name of a feature gate of kube-apiserver.
type Gate string

// The gates gatehouse's engines read. Every gate kube-apiserver knows can
// be set (WithFeatureGates); these are the ones that change an answer.
const (
	// MutatingAdmissionPolicy enables the MutatingAdmissionPolicy plugin
	// (beta and off in 1.35, GA from 1.36).
	MutatingAdmissionPolicy Gate = "MutatingAdmissionPolicy"
	// ManifestBasedAdmissionControlConfig enables static manifests
	// directories (alpha and off in 1.36, beta and on from 1.37).
	ManifestBasedAdmissionControlConfig Gate = "ManifestBasedAdmissionControlConfig"
	// ExcludeAdmissionWebhookVirtualResources makes admission webhooks skip
	// the authentication and authorization reviews (from 1.37).
	ExcludeAdmissionWebhookVirtualResources Gate = "ExcludeAdmissionWebhookVirtualResources"
	// ConditionalAuthorization enables conditional authorization
	// (KEP-5681; alpha and off in 1.38).
	ConditionalAuthorization Gate = "ConditionalAuthorization"
	// ConstrainedImpersonation sends the impersonate:* checks to the
	// authorizers (alpha in 1.35, beta and on from 1.36).
	ConstrainedImpersonation Gate = "ConstrainedImpersonation"
)

// The stages of a gate, as kube-apiserver names them.
const (
	stageAlpha      = "ALPHA"
	stageBeta       = "BETA"
	stageGA         = "GA"
	stageDeprecated = "DEPRECATED"
	stagePreAlpha   = "PRE-ALPHA"
	// stageRemoved marks the version from which a gate no longer exists.
	stageRemoved = "REMOVED"
)

// spec is a gate's state from a version on (featuregate.FeatureSpec).
type spec struct {
	since  Version
	def    bool
	stage  string
	locked bool
	compat Version // the minimum compatibility version it needs; zero: none
}

// The tables: every gate kube-apiserver 1.37 registers, with its history
// (generated, conformance/kubernetes TestFeatureGatesTable), the gates of
// earlier releases it no longer has, and the transitions of later ones.
var (
	//go:embed feature_gates.tsv
	gatesTSV string
	//go:embed removed_gates.tsv
	removedTSV string
	//go:embed later_gates.tsv
	laterTSV string
	//go:embed feature_gate_dependencies.tsv
	dependenciesTSV string
	//go:embed release_gates.tsv
	releaseTSV string
	//go:embed absent_gates.tsv
	absentTSV string
)

type gateTables struct {
	specs map[Gate][]spec
	deps  map[Gate][]Gate
	// ofRelease are the gates whose own table in a release differs from
	// the history of the later ones: release, gate, its specs there.
	ofRelease map[Version]map[Gate][]spec
	// absent are the gates a release does not have although the history
	// of later ones starts before it.
	absent map[Version]map[Gate]bool
}

// specsAt are gate g's specs as a kube-apiserver of version v knows them
// (none when it does not have the gate).
func (t gateTables) specsAt(g Gate, v Version) []spec {
	if t.absent[v][g] {
		return nil
	}
	if own, ok := t.ofRelease[v][g]; ok {
		return own
	}
	return t.specs[g]
}

var tables = sync.OnceValue(func() gateTables {
	t := gateTables{specs: map[Gate][]spec{}, deps: map[Gate][]Gate{}, ofRelease: map[Version]map[Gate][]spec{}}
	for _, text := range []string{gatesTSV, removedTSV, laterTSV} {
		for _, f := range rows(text) {
			t.specs[Gate(f[0])] = append(t.specs[Gate(f[0])], specOf(f))
		}
	}
	t.absent = map[Version]map[Gate]bool{}
	for _, f := range rows(absentTSV) {
		v := mustTableVersion(f[0])
		if t.absent[v] == nil {
			t.absent[v] = map[Gate]bool{}
		}
		t.absent[v][Gate(f[1])] = true
	}
	for _, f := range rows(releaseTSV) {
		v := mustTableVersion(f[0])
		if t.ofRelease[v] == nil {
			t.ofRelease[v] = map[Gate][]spec{}
		}
		t.ofRelease[v][Gate(f[1])] = append(t.ofRelease[v][Gate(f[1])], specOf(f[1:]))
	}
	for g := range t.specs {
		slices.SortStableFunc(t.specs[g], func(a, b spec) int { return a.since.Compare(b.since) })
	}
	for _, f := range rows(dependenciesTSV) {
		t.deps[Gate(f[0])] = append(t.deps[Gate(f[0])], Gate(f[1]))
	}
	return t
})

// specOf is a table row's spec: gate, since, default, stage, locked, min
// compatibility version.
func specOf(f []string) spec {
	if len(f) != 6 {
		panic(fmt.Sprintf("kube: a feature gate row of %d fields: %q", len(f), f))
	}
	s := spec{since: mustTableVersion(f[1]), def: f[2] == "true", stage: f[3], locked: f[4] == "true"}
	if f[5] != "-" {
		s.compat = mustTableVersion(f[5])
	}
	return s
}

func rows(text string) [][]string {
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Split(line, "\t"))
	}
	return out
}

// mustTableVersion parses a version of the tables: "0.0" (AllAlpha's and
// AllBeta's, there from the start), "1.0" and every other 1.x, supported or
// not.
func mustTableVersion(s string) Version {
	if s == "0.0" {
		return Version{}
	}
	var minor int
	if _, err := fmt.Sscanf(s, "1.%d", &minor); err != nil {
		panic(fmt.Sprintf("kube: a version of the feature gates table: %q", s))
	}
	return Version{minor}
}

// at is a gate's spec at version v and minimum compatibility version
// compat (featureSpecAtEmulationAndMinCompatVersion): the last one since v
// or before whose compatibility needs are met, PreAlpha when none is; nil
// when a kube-apiserver of version v does not have the gate (removed, or
// not yet there: a real kube-apiserver of that version never had it, where
// a later one emulating the version calls it PreAlpha).
func at(specs []spec, v, compat Version) *spec {
	if len(specs) == 0 || specs[0].since.Compare(v) > 0 {
		return nil
	}
	for i := len(specs) - 1; i >= 0; i-- {
		s := &specs[i]
		if s.since.Compare(v) > 0 {
			continue
		}
		if !s.compat.IsZero() && !compat.AtLeast(s.compat) {
			continue
		}
		if s.stage == stageRemoved {
			return nil
		}
		return s
	}
	return &spec{stage: stagePreAlpha}
}
