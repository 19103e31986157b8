package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/internal/manifest"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// lintReport is the -o json / -o yaml output of lint (see README.md).
type lintReport struct {
	SchemaVersion int           `json:"schemaVersion"`
	Findings      []lintFinding `json:"findings"`
	// Problems are the inputs that could not be read or decoded.
	Problems []string `json:"problems,omitempty"`
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
}

// lintFinding is a finding with where it is: the file and, when the
// field's node was found in it, the line.
type lintFinding struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	mutation.Finding
	// Versions are, for a finding of the rule other-version, the
	// Kubernetes versions that fail (or warn) where the target does not.
	Versions []string `json:"versions,omitempty"`
}

func (a *app) lintCommand() *cobra.Command {
	var crds []string
	var strict, acrossVersions bool
	cmd := &cobra.Command{
		Use:   "lint [--crds PATH...] [--strict] PATH...",
		Short: "Find the admission-time failures of MutatingAdmissionPolicies and ValidatingAdmissionPolicies before any request",
		Long: `Check the MutatingAdmissionPolicies, ValidatingAdmissionPolicies and their
bindings of the files and directories given ("-" for standard input) for what
kube-apiserver (1.37's, or --kube-version's with --feature-gates) refuses (its
REST validation, API versions it does not serve) or accepts but fails on at
admission time: a mutating policy its plugin does not run, rules that match
no resource that version serves (nor a CRD given), policies without a
binding and bindings of policies not given, params and paramKinds not given,
field selections that the kinds' schemas do not guarantee (read with no has()
or optional guard) or never have, oldObject read on CREATE, ApplyConfigurations
writing into atomic lists, maps or structs, JSON patches and Object
initializers setting fields or constants the schema refuses, costs near the
per-call limit, and IfNeeded mutations that are not idempotent.
The other objects of the inputs are the params bindings may find; the
CustomResourceDefinitions among them and in --crds give the resources and
schemas of custom kinds.

The other versions gatehouse answers for are checked too, with their default
feature gates: what one of them refuses or warns about and the version checked
does not is a warning of the rule other-version, naming those versions
(--across-versions=false leaves them out).

Each finding has a severity: error (kube-apiserver fails every matching
request, whatever the object) or warning (it can fail, depending on the object,
or the policy does nothing). Output is text, -o json, -o yaml or -o sarif
(SARIF 2.1.0, for code-scanning UIs).

Exit status: 0 when there is no error (nor warning, with --strict), 1 when
there is, 2 on a usage or input error.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.lint(args, crds, strict, acrossVersions)
		},
	}
	cmd.Flags().BoolVar(&acrossVersions, "across-versions", true, "also check with the other Kubernetes versions gatehouse answers for, and warn of what differs")
	cmd.Flags().StringSliceVar(&crds, "crds", nil, "files or directories of CustomResourceDefinitions")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 on warnings too")
	return cmd
}

// lintDoc is one document of an input.
type lintDoc struct {
	file string
	line int // of the document's first line
	data []byte
	// node is the document's YAML node, with the lines in the file; nil
	// when it could not be found.
	node *yamlv3.Node
}

func (a *app) lint(paths, crdPaths []string, strict, acrossVersions bool) error {
	in := readLintInputs(paths, crdPaths, a.stdin)
	problems := in.problems
	findings, err := in.findings(a.kube)
	if err != nil {
		if !errors.As(err, new(*crdError)) {
			return err
		}
		problems = append(problems, err.Error())
	}
	if acrossVersions {
		findings = append(findings, in.acrossVersions(a.kube, findings)...)
	}

	report := lintReport{SchemaVersion: schemaVersion, Findings: []lintFinding{}, Problems: problems}
	for _, f := range findings {
		lf := lintFinding{Finding: f.Finding, Versions: f.versions}
		if docs := in.sources[f.Kind]; f.Index < len(docs) {
			d := docs[f.Index]
			lf.File = d.file
			lf.Line = lineOf(d, f.Field)
		}
		switch f.Severity {
		case mutation.SeverityError:
			report.Errors++
		default:
			report.Warnings++
		}
		report.Findings = append(report.Findings, lf)
	}
	slices.SortStableFunc(report.Findings, func(x, y lintFinding) int {
		return cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line))
	})
	if a.output == "sarif" {
		if err := a.writeSARIF(report); err != nil {
			return err
		}
	} else if err := a.emit(report, func(p *printer) { lintText(p, report) }); err != nil {
		return err
	}
	if len(problems) > 0 {
		if a.output != "text" {
			for _, pr := range problems {
				fmt.Fprintf(a.stderr, "gatehouse: %s\n", pr)
			}
		}
		return errInput
	}
	if report.Errors > 0 || strict && report.Warnings > 0 {
		return errFindings
	}
	return nil
}

// lintInputs are the policies, bindings, params and CRDs of lint's inputs,
// read once and checked for each version.
type lintInputs struct {
	problems []string
	crds     [][]byte
	params   []*unstructured.Unstructured
	mobjs    mutation.Objects
	vobjs    validatingpolicy.Objects
	// sources are the documents of the policies and bindings, by kind, in
	// the order of the engines' Objects; apiVersions the apiVersion each
	// was written in.
	sources     map[string][]*lintDoc
	apiVersions map[string][]string
}

func readLintInputs(paths, crdPaths []string, stdin io.Reader) *lintInputs {
	in := &lintInputs{sources: map[string][]*lintDoc{}, apiVersions: map[string][]string{}}
	var docs []*lintDoc
	read := func(paths []string) {
		for _, input := range readInputs(paths, stdin) {
			if input.err != nil {
				in.problems = append(in.problems, fmt.Sprintf("%s: %v", input.name, input.err))
				continue
			}
			nodes := yamlDocuments(input.data)
			k := 0
			manifest.Documents(input.data, func(line int, doc []byte, err error) {
				if err != nil {
					in.problems = append(in.problems, fmt.Sprintf("%s:%d: %v", input.name, line, err))
					return
				}
				if strings.TrimSpace(string(doc)) == "" || strings.TrimSpace(string(doc)) == "null" {
					return
				}
				d := &lintDoc{file: input.name, line: line, data: doc}
				if k < len(nodes) {
					d.node = nodes[k]
				}
				k++
				docs = append(docs, d)
			})
		}
	}
	read(paths)
	nInputs := len(docs)
	read(crdPaths)
	// add records where the objects of kind decoded from d come from.
	add := func(kind string, n int, d *lintDoc, apiVersion string) {
		for range n {
			in.sources[kind] = append(in.sources[kind], d)
			in.apiVersions[kind] = append(in.apiVersions[kind], apiVersion)
		}
	}
	for i, d := range docs {
		var obj map[string]any
		if err := yaml.Unmarshal(d.data, &obj); err != nil {
			in.problems = append(in.problems, fmt.Sprintf("%s:%d: %v", d.file, d.line, err))
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		switch {
		case u.GetKind() == "CustomResourceDefinition":
			in.crds = append(in.crds, d.data)
			continue
		case i >= nInputs:
			in.problems = append(in.problems, fmt.Sprintf("%s:%d: --crds: a %s, not a CustomResourceDefinition", d.file, d.line, u.GetKind()))
			continue
		case strings.HasPrefix(u.GetAPIVersion(), "admissionregistration.k8s.io/"):
		default:
			in.params = append(in.params, u)
			continue
		}
		switch u.GetKind() {
		case "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
			m, err := mutation.Decode(d.data)
			if err != nil {
				in.problems = append(in.problems, fmt.Sprintf("%s:%d: %v", d.file, d.line, err))
				continue
			}
			add("MutatingAdmissionPolicy", len(m.Policies), d, u.GetAPIVersion())
			add("MutatingAdmissionPolicyBinding", len(m.Bindings), d, u.GetAPIVersion())
			in.mobjs.Policies = append(in.mobjs.Policies, m.Policies...)
			in.mobjs.Bindings = append(in.mobjs.Bindings, m.Bindings...)
		case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
			v, err := validatingpolicy.Decode(d.data)
			if err != nil {
				in.problems = append(in.problems, fmt.Sprintf("%s:%d: %v", d.file, d.line, err))
				continue
			}
			add("ValidatingAdmissionPolicy", len(v.Policies), d, u.GetAPIVersion())
			add("ValidatingAdmissionPolicyBinding", len(v.Bindings), d, u.GetAPIVersion())
			in.vobjs.Policies = append(in.vobjs.Policies, v.Policies...)
			in.vobjs.Bindings = append(in.vobjs.Bindings, v.Bindings...)
		default:
			in.params = append(in.params, u)
		}
	}
	if in.params == nil {
		in.params = []*unstructured.Unstructured{}
	}
	return in
}

// versionedFinding is a finding with, for one found with other versions
// than the target (rule other-version), those versions.
type versionedFinding struct {
	mutation.Finding
	versions []string
}

// crdError is a CRD of the inputs that cannot be read: a problem of the
// inputs, reported once (with the target version).
type crdError struct{ err error }

func (e *crdError) Error() string { return e.err.Error() }

// findings returns the findings of the inputs with kube-apiserver as t, in
// the order: REST validation, served API versions and plugins, the
// checks, the type checker's warnings.
func (in *lintInputs) findings(t kube.Target) ([]versionedFinding, error) {
	opts := mutation.CheckOptions{CRDs: in.crds, Params: in.params, Kube: t}
	var checked []mutation.Finding
	mf, crdErr := mutation.Check(&in.mobjs, opts)
	checked = append(checked, mf...)
	vf, _ := validatingpolicy.Check(&in.vobjs, opts)
	checked = append(checked, vf...)
	invalid, err := restValidation(t, &in.mobjs, &in.vobjs)
	if err != nil {
		return nil, err
	}
	typeWarnings, err := typeCheck(t, &in.vobjs, in.crds)
	if err != nil {
		return nil, err
	}
	var out []versionedFinding
	for _, list := range [][]mutation.Finding{invalid, in.servedFindings(t), checked, typeWarnings} {
		for _, f := range list {
			out = append(out, versionedFinding{Finding: f})
		}
	}
	if crdErr != nil {
		return out, &crdError{crdErr}
	}
	return out, nil
}

func lintText(p *printer, r lintReport) {
	for _, f := range r.Findings {
		where := f.File
		if f.Line > 0 {
			where += ":" + strconv.Itoa(f.Line)
		}
		sev := p.paint(yellow, "warning")
		if f.Severity == mutation.SeverityError {
			sev = p.paint(red, "error")
		}
		p.linef("%s: %s [%s] %s/%s %s", where, sev, f.Rule, f.Kind, f.Name, f.Field)
		p.block("    ", f.Message)
		if f.Fix != "" {
			p.block("    fix: ", f.Fix)
		}
	}
	for _, pr := range r.Problems {
		p.linef("%s %s", p.paint(red, "problem:"), pr)
	}
	p.linef("%s, %s", plural(r.Errors, "error"), plural(r.Warnings, "warning"))
}

// yamlDocuments returns the non-empty documents of a YAML stream as nodes;
// nil if the stream does not parse.
func yamlDocuments(data []byte) []*yamlv3.Node {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	var out []*yamlv3.Node
	for {
		var n yamlv3.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			return nil
		}
		if len(n.Content) == 0 || n.Content[0].Kind == yamlv3.ScalarNode && n.Content[0].Tag == "!!null" {
			continue
		}
		out = append(out, n.Content[0])
	}
}

// lineOf returns the line of the node at field (spec.rules[0].x) in the
// document, or of its closest ancestor found; the document's first line
// when its node is not known.
func lineOf(d *lintDoc, field string) int {
	n := d.node
	if n == nil {
		return d.line
	}
	line := n.Line
	for _, seg := range splitFieldPath(field) {
		next := child(n, seg)
		if next == nil {
			break
		}
		n = next
		line = n.Line
	}
	return line
}

// splitFieldPath splits spec.rules[0].x into spec, rules, [0], x.
func splitFieldPath(p string) []string {
	var out []string
	for part := range strings.SplitSeq(p, ".") {
		for {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part, ']')
			if j < i {
				break
			}
			out = append(out, part[i:j+1])
			part = part[j+1:]
		}
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// child returns the node of a mapping key or a sequence index ("[2]").
func child(n *yamlv3.Node, seg string) *yamlv3.Node {
	if strings.HasPrefix(seg, "[") {
		i, err := strconv.Atoi(strings.Trim(seg, "[]"))
		if err != nil || n.Kind != yamlv3.SequenceNode || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	if n.Kind != yamlv3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == seg {
			v := n.Content[i+1]
			if v.Kind == yamlv3.ScalarNode {
				return n.Content[i] // the key's line: a block scalar starts after it
			}
			return v
		}
	}
	return nil
}

var errNoSARIF = errors.New("-o sarif: only gatehouse lint writes SARIF")

// restValidation returns kube-apiserver's REST validation errors of the
// policies and bindings (on create) as findings of the rule invalid: the
// API refuses such objects. The validators are package mutation's and
// admissionmanifest's, checked against kube-apiserver's in
// conformance/kubernetes.
func restValidation(t kube.Target, m *mutation.Objects, v *validatingpolicy.Objects) ([]mutation.Finding, error) {
	mv, err := mutation.NewValidator(mutation.ValidatorOptions{Kube: t})
	if err != nil {
		return nil, err
	}
	av, err := admissionmanifest.NewValidator(admissionmanifest.Options{Kube: t, StaticNames: admissionmanifest.StaticNamesFor(t)})
	if err != nil {
		return nil, err
	}
	var out []mutation.Finding
	add := func(kind, name string, index int, errs field.ErrorList) {
		for _, e := range errs {
			out = append(out, mutation.Finding{Severity: mutation.SeverityError, Rule: ruleInvalid, Kind: kind, Name: name, Index: index, Field: e.Field,
				Message: "kube-apiserver refuses the object: " + e.ErrorBody()})
		}
	}
	for i, p := range m.Policies {
		add("MutatingAdmissionPolicy", p.Name, i, mv.ValidateMutatingAdmissionPolicy(p, nil))
	}
	for i, b := range m.Bindings {
		add("MutatingAdmissionPolicyBinding", b.Name, i, mv.ValidateMutatingAdmissionPolicyBinding(b, nil))
	}
	for i, p := range v.Policies {
		errs, _ := av.ValidateValidatingAdmissionPolicy(p, nil)
		add("ValidatingAdmissionPolicy", p.Name, i, errs)
	}
	for i, b := range v.Bindings {
		errs, _ := av.ValidateValidatingAdmissionPolicyBinding(b, nil)
		add("ValidatingAdmissionPolicyBinding", b.Name, i, errs)
	}
	return out, nil
}

// ruleInvalid is the rule of kube-apiserver's REST validation errors.
const ruleInvalid = "invalid"

// typeCheck returns the warnings kube-apiserver's type checker writes into
// the status of the validating policies (validatingpolicy.TypeCheck, checked
// against kube-controller-manager's in conformance/kubernetes) as findings
// of the rule type-check: an expression that does not type-check against a
// kind the policy matches fails on its requests.
func typeCheck(t kube.Target, v *validatingpolicy.Objects, crds [][]byte) ([]mutation.Finding, error) {
	c, err := validatingpolicy.NewCompilerFor(t)
	if err != nil {
		return nil, err
	}
	custom := validatingpolicy.NewCustomResources()
	for _, crd := range crds {
		_ = custom.AddCRD(crd) // reported by the check
	}
	var out []mutation.Finding
	for i, p := range v.Policies {
		for _, w := range c.TypeCheck(p, validatingpolicy.TypeCheckOptions{CustomResources: custom}) {
			out = append(out, mutation.Finding{Severity: mutation.SeverityWarning, Rule: ruleTypeCheck, Kind: "ValidatingAdmissionPolicy", Name: p.Name, Index: i, Field: w.FieldRef,
				Message: "kube-apiserver's type checker warns (status.typeChecking): " + strings.TrimSpace(w.Warning)})
		}
	}
	return out, nil
}

// ruleTypeCheck is the rule of kube-apiserver's type checker's warnings.
const ruleTypeCheck = "type-check"
