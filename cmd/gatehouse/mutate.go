package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/internal/manifest"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// mutateReport is the -o json / -o yaml output of mutate (see README.md).
type mutateReport struct {
	SchemaVersion int `json:"schemaVersion"`
	// Policies are the policies and bindings that kube-apiserver would
	// refuse, with its errors; such objects are left out of the admission.
	Invalid []mutateInvalid `json:"invalid,omitempty"`
	// Objects are the admitted objects' outcomes, in input order.
	Objects []mutateObject `json:"objects"`
	// Unbound are the valid policies without a binding, which never apply
	// (unless --bind-unbound binds them).
	Unbound []string `json:"unbound,omitempty"`
	// Notes are what kube-apiserver would do differently with the inputs:
	// API versions it serves only when enabled, params it could not store.
	Notes []string `json:"notes,omitempty"`
}

type mutateInvalid struct {
	Kind   string   `json:"kind"`
	Name   string   `json:"name"`
	Errors []string `json:"errors"`
}

type mutateObject struct {
	Source    string `json:"source"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Admitted is false when kube-apiserver denies the request; Error is
	// then its status.
	Admitted bool         `json:"admitted"`
	Error    *mutateError `json:"error,omitempty"`
	// Object is the object as admitted; Changed the paths that the
	// mutations changed, in order of the mutations.
	Object  map[string]any `json:"object,omitempty"`
	Changed []string       `json:"changed,omitempty"`
	// NotIdempotent names the mutations (policy, binding, index) whose
	// second application changes the object again (--check-idempotent).
	NotIdempotent []string `json:"notIdempotent,omitempty"`
	// Trace is the dispatcher's trace, as text.
	Trace   string `json:"trace"`
	diff    string
	changed bool
}

type mutateError struct {
	Code    int32  `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func (a *app) mutateCommand() *cobra.Command {
	var policies, params, crds, namespaces []string
	var operation, user string
	var groups []string
	var checkIdempotent, noDiff, bindUnbound bool
	cmd := &cobra.Command{
		Use:   "mutate --policies PATH... [--params PATH...] [--crds PATH...] OBJECT...",
		Short: "What kube-apiserver's MutatingAdmissionPolicies do to objects",
		Long: `Admit each object (files, directories, "-" for standard input) through the
MutatingAdmissionPolicies and bindings of --policies, as kube-apiserver 1.37's
MutatingAdmissionPolicy plugin does on create (or --operation UPDATE, the object
then being its own old object): prints the object as admitted, a diff, and the
trace of every policy, binding, param and mutation, or the error that denies
the request. Policies and bindings are read in admissionregistration.k8s.io
v1, v1beta1 or v1alpha1, defaulted and validated as kube-apiserver's REST API
does; an invalid one is reported and left out. Params (--params) are any
objects; custom resources get their schemas from the CRDs of --crds; the
namespaces of namespaceSelectors come from the Namespace objects of
--namespaces (without it, every namespace exists without labels).

Exit status: 0 when every object is admitted, 1 when one is denied, a policy
is invalid, or (--check-idempotent) a mutation is not idempotent, 2 on a usage
or input error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(policies) == 0 {
				return usageError{err: errors.New("--policies is required"), command: cmd.CommandPath()}
			}
			return a.mutate(cmd.Context(), mutateInputs{
				policies: policies, params: params, crds: crds, namespaces: namespaces, objects: args,
				operation: admissionv1.Operation(strings.ToUpper(operation)), user: user, groups: groups,
				checkIdempotent: checkIdempotent, diff: !noDiff, bindUnbound: bindUnbound,
			})
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&policies, "policies", nil, "files or directories of MutatingAdmissionPolicies and bindings")
	f.StringSliceVar(&params, "params", nil, "files or directories of the params objects")
	f.StringSliceVar(&crds, "crds", nil, "files or directories of the CustomResourceDefinitions of custom objects")
	f.StringSliceVar(&namespaces, "namespaces", nil, "files or directories of the Namespace objects")
	f.StringVar(&operation, "operation", "CREATE", "the request's operation: CREATE or UPDATE")
	f.StringVar(&user, "as", "gatehouse", "the requesting user's name")
	f.StringSliceVar(&groups, "groups", []string{"system:authenticated"}, "the requesting user's groups")
	f.BoolVar(&checkIdempotent, "check-idempotent", false, "apply each mutation again to its own output and report those that change it again")
	f.BoolVar(&noDiff, "no-diff", false, "leave the diff out of the text output")
	f.StringVarP(&a.namespace, "namespace", "n", "default", namespaceUsage)
	f.BoolVar(&bindUnbound, "bind-unbound", false, "bind every policy that has no binding to every request (kube-apiserver applies no policy without a binding)")
	return cmd
}

type mutateInputs struct {
	policies, params, crds, namespaces, objects []string
	operation                                   admissionv1.Operation
	user                                        string
	groups                                      []string
	checkIdempotent, diff, bindUnbound          bool
}

// document is one YAML or JSON document of an input.
type document struct {
	source string // file, and document index when there are several
	// file and line are where the document starts.
	file   string
	line   int
	object *unstructured.Unstructured
}

// at is the document's file and line, for messages.
func (d document) at() string { return fmt.Sprintf("%s:%d", d.file, d.line) }

// splitDocuments splits a YAML or JSON stream into its documents, empty ones
// left out.
func splitDocuments(data []byte) ([][]byte, error) {
	docs, _, err := splitDocumentLines(data)
	return docs, err
}

// splitDocumentLines is splitDocuments with the line each document starts at.
func splitDocumentLines(data []byte) ([][]byte, []int, error) {
	var docs [][]byte
	var lines []int
	var errs []error
	manifest.Documents(data, func(line int, doc []byte, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", line, err))
			return
		}
		if len(strings.TrimSpace(string(doc))) > 0 {
			docs = append(docs, doc)
			lines = append(lines, line)
		}
	})
	return docs, lines, errors.Join(errs...)
}

// readDocuments reads the objects of paths; a problem is an input error.
func (a *app) readDocuments(paths []string) ([]document, []string) {
	var docs []document
	var problems []string
	for _, in := range readInputs(paths, a.stdin) {
		if in.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", in.name, in.err))
			continue
		}
		split, lines, err := splitDocumentLines(in.data)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", in.name, err))
			continue
		}
		for i, d := range split {
			var obj map[string]any
			if err := yaml.Unmarshal(d, &obj); err != nil {
				problems = append(problems, yamlProblem(in.name, lines[i], err))
				continue
			}
			if obj == nil {
				continue
			}
			u := &unstructured.Unstructured{Object: obj}
			source := in.name
			if len(split) > 1 {
				source = fmt.Sprintf("%s#%d", in.name, i+1)
			}
			if u.IsList() {
				items, err := u.ToList()
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: %v", in.name, lines[i], err))
					continue
				}
				for j := range items.Items {
					docs = append(docs, document{source: fmt.Sprintf("%s[%d]", source, j), file: in.name, line: lines[i], object: &items.Items[j]})
				}
				continue
			}
			docs = append(docs, document{source: source, file: in.name, line: lines[i], object: u})
		}
	}
	return docs, problems
}

func (a *app) mutate(ctx context.Context, in mutateInputs) error {
	if in.operation != admissionv1.Create && in.operation != admissionv1.Update {
		fmt.Fprintf(a.stderr, "gatehouse: --operation must be CREATE or UPDATE, not %q\n", in.operation)
		return errInput
	}
	var problems []string
	var uses []versionUse
	var policyObjs mutation.Objects
	configFiles := map[string]bool{}
	for _, inp := range readInputs(in.policies, a.stdin) {
		configFiles[inp.name] = true
		if inp.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", inp.name, inp.err))
			continue
		}
		uses = append(uses, apiVersionUses(a.kube, inp)...)
		got, err := mutation.Decode(inp.data)
		if got != nil {
			policyObjs.Policies = append(policyObjs.Policies, got.Policies...)
			policyObjs.Bindings = append(policyObjs.Bindings, got.Bindings...)
		}
		for _, e := range joined(err) {
			var kind *mutation.KindError
			if errors.As(e, &kind) {
				continue // GitOps directories mix kinds
			}
			problems = append(problems, fmt.Sprintf("%s: %v", inp.name, e))
		}
	}
	paramDocs, p := a.readDocuments(in.params)
	problems = append(problems, p...)
	nsDocs, p := a.readDocuments(in.namespaces)
	problems = append(problems, p...)
	objects, p := a.readDocuments(in.objects)
	problems = append(problems, p...)
	schemas, kinds, p := a.readCRDs(in.crds)
	problems = append(problems, p...)
	objects, p = configurationObjects(objects, configFiles, "--policies")
	problems = append(problems, p...)
	for _, docs := range [][]document{paramDocs, objects} {
		for _, d := range docs {
			kinds.inNamespace(d.object, a.namespace)
		}
	}
	if len(problems) > 0 {
		fmt.Fprintln(a.stderr, "gatehouse: "+strings.Join(problems, "\ngatehouse: "))
		return errInput
	}

	report := mutateReport{SchemaVersion: schemaVersion, Objects: []mutateObject{}, Notes: append(apiVersionNotes(a.kube, uses), paramNotes(schemas, paramDocs)...)}
	validator, err := mutation.NewValidator(mutation.ValidatorOptions{Kube: a.kube})
	if err != nil {
		return err
	}
	var valid []*admissionregistrationv1.MutatingAdmissionPolicy
	for _, pol := range policyObjs.Policies {
		if errs := validator.ValidateMutatingAdmissionPolicy(pol, nil); len(errs) > 0 {
			report.Invalid = append(report.Invalid, mutateInvalid{Kind: "MutatingAdmissionPolicy", Name: pol.Name, Errors: errorStrings(errs)})
			continue
		}
		valid = append(valid, pol)
	}
	var validBindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	for _, b := range policyObjs.Bindings {
		if errs := validator.ValidateMutatingAdmissionPolicyBinding(b, nil); len(errs) > 0 {
			report.Invalid = append(report.Invalid, mutateInvalid{Kind: "MutatingAdmissionPolicyBinding", Name: b.Name, Errors: errorStrings(errs)})
			continue
		}
		validBindings = append(validBindings, b)
	}
	for _, pol := range valid {
		bound := false
		for _, b := range validBindings {
			bound = bound || b.Spec.PolicyName == pol.Name
		}
		if bound {
			continue
		}
		if !in.bindUnbound {
			report.Unbound = append(report.Unbound, pol.Name)
			continue
		}
		validBindings = append(validBindings, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: pol.Name + "-binding"},
			Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: pol.Name},
		})
	}
	var paramObjects []runtime.Object
	for _, d := range paramDocs {
		paramObjects = append(paramObjects, d.object)
	}
	namespaceByName := map[string]*corev1.Namespace{}
	for _, d := range nsDocs {
		if d.object.GetKind() != "Namespace" {
			continue
		}
		ns := &corev1.Namespace{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(d.object.Object, ns); err != nil {
			fmt.Fprintf(a.stderr, "gatehouse: %s: %v\n", d.source, err)
			return errInput
		}
		namespaceByName[ns.Name] = ns
	}
	opts := mutation.Options{Schemas: schemas, Params: mutation.NewParamObjects(kinds.clusterScoped, paramObjects...), Kube: a.kube}
	if len(in.namespaces) > 0 {
		opts.Namespaces = mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := namespaceByName[name]; ok {
				return ns, nil
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
		})
	}
	d, err := mutation.NewDispatcher(valid, validBindings, opts)
	if err != nil {
		return err
	}
	findings := len(report.Invalid) > 0
	for _, doc := range objects {
		out, bad := a.admitOne(ctx, d, schemas, doc, in)
		findings = findings || bad
		report.Objects = append(report.Objects, out)
	}
	if err := a.emit(report, func(p *printer) { report.text(p, in.diff) }); err != nil {
		return err
	}
	if findings {
		return errFindings
	}
	return nil
}

// admitOne admits one object and reports whether it is a finding.
func (a *app) admitOne(ctx context.Context, d *mutation.Dispatcher, schemas *mutation.Schemas, doc document, in mutateInputs) (mutateObject, bool) {
	obj := doc.object
	gvk := obj.GroupVersionKind()
	resource, _ := meta.UnsafeGuessKindToResource(gvk)
	out := mutateObject{Source: doc.source, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	namespace := obj.GetNamespace()
	if gvk.Kind == "Namespace" {
		namespace = obj.GetName()
	}
	req := &mutation.Request{
		Operation: in.operation, Kind: gvk, Resource: resource, Name: obj.GetName(), Namespace: namespace,
		UserInfo:     authenticationv1.UserInfo{Username: in.user, Groups: in.groups},
		Object:       obj.DeepCopy(),
		Reinvocation: &mutation.ReinvocationContext{},
	}
	if in.operation == admissionv1.Update {
		req.OldObject = obj.DeepCopy()
	}
	res, trace, err := d.Explain(ctx, req)
	out.Trace = trace.String()
	if err != nil {
		out.Error = statusOf(err)
		return out, true
	}
	out.Admitted = true
	if res.Object != nil {
		out.Object = res.Object.Object
	}
	finding := false
	for _, pt := range trace.Policies {
		for _, bt := range pt.Bindings {
			for _, it := range bt.Invocations {
				for _, mt := range it.Mutations {
					out.Changed = append(out.Changed, mt.Changed...)
					if in.checkIdempotent && mt.Err == nil && !mt.Idempotent {
						out.NotIdempotent = append(out.NotIdempotent, fmt.Sprintf("%s/%s/%d", pt.Policy, bt.Binding, mt.Index))
						finding = true
					}
				}
			}
		}
	}
	// The object before and after, both as kube-apiserver holds them (a
	// built-in kind through its Go type): a mutated object is held so, but
	// when nothing applied the dispatcher returns the object as given.
	// Normalised the same way, the two differ by the mutations only, and
	// not at all when nothing changed.
	out.diff = yamlDiff(normalized(schemas, obj.Object, gvk), normalized(schemas, out.Object, gvk))
	out.changed = out.diff != ""
	if !in.diff {
		out.diff = ""
	}
	return out, finding
}

// normalized is object as kube-apiserver holds it (mutation.Schemas.Normalize),
// or object itself if it cannot be converted.
func normalized(schemas *mutation.Schemas, object map[string]any, gvk schema.GroupVersionKind) map[string]any {
	if object == nil {
		return nil
	}
	n, err := schemas.Normalize(object, gvk)
	if err != nil {
		return object
	}
	return n
}

// statusOf is the status of kube-apiserver's error.
func statusOf(err error) *mutateError {
	var status *apierrors.StatusError
	if errors.As(err, &status) {
		s := status.ErrStatus
		return &mutateError{Code: s.Code, Reason: string(s.Reason), Message: s.Message}
	}
	return &mutateError{Message: err.Error()}
}

// yamlDiff is a unified diff of two objects' YAML, the object before and as
// admitted.
func yamlDiff(before, after map[string]any) string {
	return labelledDiff("before", "admitted", before, after)
}

// labelledDiff is a unified diff of two objects' YAML, from the first
// (labelled from) to the second (to).
func labelledDiff(from, to string, before, after map[string]any) string {
	b, _ := yaml.Marshal(before)
	a, _ := yaml.Marshal(after)
	if string(a) == string(b) {
		return ""
	}
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(b)), B: difflib.SplitLines(string(a)),
		FromFile: from, ToFile: to, Context: 2,
	})
	return diff
}

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func (r mutateReport) text(p *printer, diff bool) {
	for _, inv := range r.Invalid {
		p.linef("%s %s %s:", p.paint(red, "invalid"), inv.Kind, inv.Name)
		for _, e := range inv.Errors {
			p.linef("  %s", e)
		}
	}
	for _, n := range r.Notes {
		p.linef("%s %s", p.paint(yellow, "note:"), n)
	}
	for _, name := range r.Unbound {
		p.linef("%s MutatingAdmissionPolicy %s has no binding: it applies to nothing (--bind-unbound binds it)", p.paint(yellow, "note:"), name)
	}
	for _, o := range r.Objects {
		name := o.Name
		if o.Namespace != "" {
			name = o.Namespace + "/" + name
		}
		p.linef("--- %s %s (%s)", o.Kind, name, o.Source)
		if trace := strings.TrimRight(o.Trace, "\n"); trace != "" {
			p.block("", trace)
		}
		if !o.Admitted {
			p.linef("%s: %s", p.paint(red, "denied"), o.Error.Message)
			continue
		}
		if len(o.NotIdempotent) > 0 {
			p.linef("%s: %s", p.paint(yellow, "not idempotent"), strings.Join(o.NotIdempotent, ", "))
		}
		if !o.changed {
			p.linef("%s", p.paint(green, "admitted unchanged"))
			continue
		}
		p.linef("%s", p.paint(green, "admitted as:"))
		data, _ := yaml.Marshal(o.Object)
		p.block("  ", strings.TrimRight(string(data), "\n"))
		if diff && o.diff != "" {
			p.block("  ", strings.TrimRight(o.diff, " \n"))
		}
	}
}
