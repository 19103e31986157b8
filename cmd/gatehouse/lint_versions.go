package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// The rules of what a Kubernetes version does not have.
const (
	// ruleAPIVersion: the policy or binding is written in an API version
	// the version does not serve (an error), or serves only when enabled
	// (a warning).
	ruleAPIVersion = "api-version"
	// rulePluginDisabled: the version's default feature gates leave the
	// MutatingAdmissionPolicy plugin off.
	rulePluginDisabled = "plugin-disabled"
	// ruleOtherVersion: another version gatehouse answers for fails (or
	// warns) where the target does not.
	ruleOtherVersion = "other-version"
)

// policyAPIVersions are the versions a policy kind may be written in,
// newest first: the fix names the first the target serves.
var policyAPIVersions = []string{"v1", "v1beta1", "v1alpha1"}

// servedFindings reports, for each policy and binding, the API version it
// is written in when t does not serve it by default, and the mutating
// policies that t's gates leave without a plugin to run them.
func (in *lintInputs) servedFindings(t kube.Target) []mutation.Finding {
	var out []mutation.Finding
	for _, kind := range []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"} {
		for i, apiVersion := range in.apiVersions[kind] {
			s, known := kubeversions.AdmissionPolicyServing(t, apiVersion, kind)
			if !known || s == kubeversions.Served {
				continue
			}
			f := mutation.Finding{Rule: ruleAPIVersion, Kind: kind, Name: in.objectName(kind, i), Index: i, Field: "apiVersion"}
			if s == kubeversions.NotServed {
				f.Severity = mutation.SeverityError
				f.Message = fmt.Sprintf("Kubernetes %s does not serve %s %s: kube-apiserver refuses to create it (404, the server could not find the requested resource)", t.Version(), apiVersion, kind)
			} else {
				f.Severity = mutation.SeverityWarning
				f.Message = fmt.Sprintf("Kubernetes %s serves %s %s only when kube-apiserver's --runtime-config enables %s (a prerelease version, off by default)", t.Version(), apiVersion, kind, apiVersion)
			}
			for _, v := range policyAPIVersions {
				gv := "admissionregistration.k8s.io/" + v
				if gv == apiVersion {
					continue
				}
				if s2, _ := kubeversions.AdmissionPolicyServing(t, gv, kind); s2 > s {
					f.Fix = fmt.Sprintf("write it as %s, which Kubernetes %s serves%s", gv, t.Version(), map[bool]string{true: "", false: " when enabled"}[s2 == kubeversions.Served])
					break
				}
			}
			out = append(out, f)
		}
	}
	if !kubeversions.Has(t, kubeversions.MutatingAdmissionPolicyPlugin) {
		for i, p := range in.mobjs.Policies {
			out = append(out, mutation.Finding{Severity: mutation.SeverityWarning, Rule: rulePluginDisabled, Kind: "MutatingAdmissionPolicy", Name: p.Name, Index: i, Field: "spec",
				Message: fmt.Sprintf("the MutatingAdmissionPolicy admission plugin does not run in Kubernetes %s: its feature gate MutatingAdmissionPolicy is off, so the policy mutates nothing", t),
				Fix:     "turn the gate on (kube-apiserver --feature-gates=MutatingAdmissionPolicy=true; gatehouse --feature-gates MutatingAdmissionPolicy=true)"})
		}
	}
	return out
}

// objectName is the name of the index-th object of kind.
func (in *lintInputs) objectName(kind string, index int) string {
	switch kind {
	case "MutatingAdmissionPolicy":
		return in.mobjs.Policies[index].Name
	case "MutatingAdmissionPolicyBinding":
		return in.mobjs.Bindings[index].Name
	case "ValidatingAdmissionPolicy":
		return in.vobjs.Policies[index].Name
	}
	return in.vobjs.Bindings[index].Name
}

// acrossVersions checks the inputs with every other version gatehouse
// answers for, at its default gates, and returns, as warnings of the rule
// other-version, the findings those versions make that the target's
// (found) do not: a policy that works on one version and not on another.
// Findings are the same when they are of the same object, rule and field;
// one found with several versions is reported once, with the oldest's
// message and every version.
func (in *lintInputs) acrossVersions(target kube.Target, found []versionedFinding) []versionedFinding {
	type key struct {
		kind  string
		index int
		rule  string
		field string
	}
	keyOf := func(f mutation.Finding) key { return key{f.Kind, f.Index, f.Rule, f.Field} }
	have := map[key]bool{}
	for _, f := range found {
		have[keyOf(f.Finding)] = true
	}
	var out []versionedFinding
	at := map[key]int{}
	for _, v := range kube.SupportedVersions() {
		if v == target.Version() {
			continue
		}
		t, err := kube.TargetFor(v)
		if err != nil {
			continue
		}
		other, err := in.findings(t)
		if err != nil && other == nil {
			continue
		}
		for _, f := range other {
			k := keyOf(f.Finding)
			if have[k] {
				continue
			}
			if i, ok := at[k]; ok {
				out[i].versions = append(out[i].versions, v.String())
				continue
			}
			at[k] = len(out)
			severity := "warning"
			if f.Severity == mutation.SeverityError {
				severity = "error"
			}
			g := f.Finding
			g.Message = fmt.Sprintf("%s [%s]: %s", severity, f.Rule, f.Message)
			g.Rule, g.Severity, g.Fix = ruleOtherVersion, mutation.SeverityWarning, f.Fix
			out = append(out, versionedFinding{Finding: g, versions: []string{v.String()}})
		}
	}
	for i := range out {
		vs := out[i].versions
		out[i].Message = fmt.Sprintf("on Kubernetes %s, not %s: %s", strings.Join(vs, ", "), target.Version(), out[i].Message)
	}
	slices.SortStableFunc(out, func(x, y versionedFinding) int {
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Index, y.Index))
	})
	return out
}
