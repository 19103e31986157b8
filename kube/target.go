package kube

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Target is the Kubernetes an engine answers as: a version of kube-apiserver
// and its feature gates. The zero Target is LatestVersion with its default
// gates. A Target is immutable; WithFeatureGates returns a new one.
type Target struct {
	version Version
	gates   *settings // nil: the version's defaults
}

// settings are the gates set explicitly (as --feature-gates gave them) and
// what that enables (AllAlpha and AllBeta expanded).
type settings struct {
	raw     map[Gate]bool
	enabled map[Gate]bool
}

// TargetFor is version v with its default gates; an unsupported version is
// an error naming the supported ones.
func TargetFor(v Version) (Target, error) {
	if !v.Supported() {
		return Target{}, fmt.Errorf("unsupported Kubernetes version %s: %s", v, supportedText())
	}
	return Target{version: v}, nil
}

// ParseTarget is the version s (ParseVersion) with its default gates.
func ParseTarget(s string) (Target, error) {
	v, err := ParseVersion(s)
	if err != nil {
		return Target{}, err
	}
	return Target{version: v}, nil
}

// Version is the version t answers as.
func (t Target) Version() Version {
	if t.version.IsZero() {
		return LatestVersion()
	}
	return t.version
}

// compat is the minimum compatibility version of a kube-apiserver of t's
// version: one minor version less.
func (t Target) compat() Version { return Version{t.Version().minor - 1} }

// Enabled tells whether gate g is on: as set, else its default at t's
// version (off for a gate that does not exist at it).
func (t Target) Enabled(g Gate) bool {
	if t.gates != nil {
		if on, ok := t.gates.enabled[g]; ok {
			return on
		}
	}
	if s := at(tables().specsAt(g, t.Version()), t.Version(), t.compat()); s != nil {
		return s.def
	}
	return false
}

// Gates returns the gates kube-apiserver knows at t's version (those it
// has, and that are not yet to come), sorted by name.
func (t Target) Gates() []Gate {
	var out []Gate
	for g := range tables().specs {
		if s := at(tables().specsAt(g, t.Version()), t.Version(), t.compat()); s != nil && s.stage != stagePreAlpha {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}

// FeatureGates is what was set, as --feature-gates takes it ("A=true,B=false",
// sorted); "" when nothing was.
func (t Target) FeatureGates() string {
	if t.gates == nil {
		return ""
	}
	var parts []string
	for _, g := range slices.Sorted(maps.Keys(t.gates.raw)) {
		parts = append(parts, fmt.Sprintf("%s=%t", g, t.gates.raw[g]))
	}
	return strings.Join(parts, ",")
}

// String is the version, and the gates set: "1.36" or
// "1.36 --feature-gates=ManifestBasedAdmissionControlConfig=true".
func (t Target) String() string {
	if fg := t.FeatureGates(); fg != "" {
		return t.Version().String() + " --feature-gates=" + fg
	}
	return t.Version().String()
}

// WithFeatureGates sets gates as kube-apiserver's --feature-gates does, on
// top of those t has: spec is "Gate=true,Other=false" (spaces around names
// and values ignored); the values of strconv.ParseBool. The errors are
// kube-apiserver's: a malformed pair, an unrecognized gate (one the version
// does not have), a gate locked to its default, a gate not yet there
// (PreAlpha), a gate enabled without the gates it depends on. AllAlpha and
// AllBeta set every alpha or beta gate not set otherwise.
func (t Target) WithFeatureGates(spec string) (Target, error) {
	raw := map[Gate]bool{}
	if t.gates != nil {
		maps.Copy(raw, t.gates.raw)
	}
	for _, s := range strings.Split(spec, ",") {
		if len(s) == 0 {
			continue
		}
		kv := strings.SplitN(s, "=", 2)
		k := strings.TrimSpace(kv[0])
		if len(kv) != 2 {
			return t, fmt.Errorf("missing bool value for %s", k)
		}
		v := strings.TrimSpace(kv[1])
		on, err := strconv.ParseBool(v)
		if err != nil {
			return t, fmt.Errorf("invalid value of %s=%s, err: %v", k, v, err)
		}
		raw[Gate(k)] = on
	}
	enabled, errs := t.resolve(raw)
	if len(errs) > 0 {
		return t, aggregate(errs)
	}
	out := t
	out.version = t.Version()
	out.gates = &settings{raw: raw, enabled: enabled}
	return out, nil
}

// WithFeatureGate sets one gate (WithFeatureGates of "g=on").
func (t Target) WithFeatureGate(g Gate, on bool) (Target, error) {
	return t.WithFeatureGates(fmt.Sprintf("%s=%t", g, on))
}

// resolve is kube-apiserver's unsafeSetFromMap: what raw enables, or why not.
func (t Target) resolve(raw map[Gate]bool) (map[Gate]bool, []error) {
	v, compat := t.Version(), t.compat()
	specsOf := func(g Gate) []spec { return tables().specsAt(g, v) }
	enabled := map[Gate]bool{}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		on := raw[k]
		s := at(specsOf(k), v, compat)
		if s == nil {
			return nil, []error{fmt.Errorf("unrecognized feature gate: %s", k)}
		}
		if s.locked && s.def != on {
			errs = append(errs, fmt.Errorf("cannot set feature gate %v to %v, feature is locked to %v", k, on, s.def))
			continue
		}
		if k == "AllAlpha" || k == "AllBeta" {
			stage := stageAlpha
			if k == "AllBeta" {
				stage = stageBeta
			}
			for g := range tables().specs {
				if g == "AllAlpha" || g == "AllBeta" {
					continue
				}
				if s := at(specsOf(g), v, compat); s != nil && s.stage == stage {
					if _, found := enabled[g]; !found {
						enabled[g] = on
					}
				}
			}
			enabled[k] = on
			continue
		}
		if s.stage == stagePreAlpha {
			errs = append(errs, fmt.Errorf("cannot set feature gate %v to %v, feature is PreAlpha at emulated version %s, min compatibility version %s", k, on, v, compat))
			continue
		}
		enabled[k] = on
	}
	if len(errs) > 0 {
		return nil, errs
	}
	isOn := func(g Gate) bool {
		if on, ok := enabled[g]; ok {
			return on
		}
		if s := at(specsOf(g), v, compat); s != nil {
			return s.def
		}
		return false
	}
	has := func(g Gate) bool { return at(specsOf(g), v, compat) != nil }
	// The dependencies are 1.37's, between the gates the version has (a
	// kube-apiserver's own dependencies name only gates it has).
	for _, g := range slices.Sorted(maps.Keys(tables().deps)) {
		if !has(g) || !isOn(g) {
			continue
		}
		var off []Gate
		for _, d := range tables().deps[g] {
			if has(d) && !isOn(d) {
				off = append(off, d)
			}
		}
		if len(off) > 0 {
			errs = append(errs, fmt.Errorf("%s is enabled, but depends on features that are disabled: %v", g, off))
		}
	}
	return enabled, errs
}

// aggregate is k8s.io/apimachinery's aggregate error: one error's text, or
// the distinct texts in brackets.
func aggregate(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	var seen []string
	for _, e := range errs {
		if !slices.Contains(seen, e.Error()) {
			seen = append(seen, e.Error())
		}
	}
	if len(seen) == 1 {
		return errors.New(seen[0])
	}
	return errors.New("[" + strings.Join(seen, ", ") + "]")
}
