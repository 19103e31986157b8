package main

import (
	"encoding/json"
	"slices"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// SARIF 2.1.0 (OASIS), the subset code-scanning UIs read: one run of the
// tool, its rules, and results with a physical and a logical location.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// lintRules describes each rule of the findings.
var lintRules = map[string]string{
	"wrong-type":                "A JSON patch sets a constant of the wrong type into a field of a built-in kind: kube-apiserver fails the request",
	"cost-near-limit":           "An expression's worst-case estimated cost reaches 90% of the per-call limit with lists of a plausible size",
	"not-idempotent":            "A mutation of an IfNeeded policy changes its own output again on a sample object",
	"null-object":               "oldObject's fields read in a policy matching CREATE, or object's in one matching DELETE, without a null check",
	"type-check":                "kube-apiserver's type checker warns about a validation of a validating policy (status.typeChecking)",
	"invalid":                   "kube-apiserver's REST API refuses the object",
	"unknown-param-kind":        "The paramKind is no kind Kubernetes 1.37 serves nor one of a CRD given: every matching request fails",
	"atomic-write":              "An ApplyConfiguration writes into an atomic list, map or struct: kube-apiserver refuses the patch",
	"unknown-resource":          "A rule names an API group, version or resource that Kubernetes 1.37 does not serve (nor a CRD given): it matches nothing",
	"unbound-policy":            "A policy has no binding: kube-apiserver never applies it",
	"binding-of-missing-policy": "A binding names a policy that is not given",
	"missing-params":            "A binding of a policy with a paramKind finds no params object among those given",
	"unguarded-field":           "A field or map key that may be absent is selected with no has() or optional guard: the expression fails on objects without it",
	"no-such-field":             "A field the kind's schema does not have is selected: the expression fails wherever it reads it",
	ruleAPIVersion:              "The object is written in an API version the Kubernetes version does not serve (error), or serves only when enabled (warning)",
	rulePluginDisabled:          "The Kubernetes version's feature gates leave the MutatingAdmissionPolicy plugin off: the policy mutates nothing",
	ruleOtherVersion:            "Another Kubernetes version gatehouse answers for fails or warns where the one checked does not",
}

func (a *app) writeSARIF(r lintReport) error {
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: "gatehouse", InformationURI: "https://github.com/gatehouse-dev/gatehouse"}},
		Results: []sarifResult{},
	}
	used := map[string]bool{}
	for _, f := range r.Findings {
		used[f.Rule] = true
		level := "warning"
		if f.Severity == mutation.SeverityError {
			level = "error"
		}
		text := f.Message
		if f.Fix != "" {
			text += " (fix: " + f.Fix + ")"
		}
		loc := sarifLocation{LogicalLocations: []sarifLogical{{FullyQualifiedName: f.Kind + "/" + f.Name + "/" + f.Field, Kind: "member"}}}
		if f.File != "" && f.File != "-" {
			loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: f.File}}
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
			}
		}
		run.Results = append(run.Results, sarifResult{RuleID: f.Rule, Level: level, Message: sarifMessage{Text: text}, Locations: []sarifLocation{loc}})
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	run.Tool.Driver.Rules = []sarifRule{}
	for _, id := range ids {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: id, ShortDescription: sarifMessage{Text: lintRules[id]}})
	}
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}
