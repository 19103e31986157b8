package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

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
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// admitReport is the -o json / -o yaml output of admit (see README.md).
type admitReport struct {
	SchemaVersion int `json:"schemaVersion"`
	// Invalid are the policies and bindings kube-apiserver would refuse,
	// left out of the chain.
	Invalid []mutateInvalid `json:"invalid,omitempty"`
	// Unbound are the valid policies without a binding.
	Unbound []string `json:"unbound,omitempty"`
	// Notes are what kube-apiserver would do differently with the inputs:
	// API versions it serves only when enabled, params it could not store.
	Notes []string `json:"notes,omitempty"`
	// Objects are the requests' outcomes, in input order.
	Objects []admitObject `json:"objects"`
}

type admitObject struct {
	Source    string `json:"source"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Admitted is false when kube-apiserver denies the request: Error is its
	// status, DeniedBy the plugin.
	Admitted bool         `json:"admitted"`
	Error    *mutateError `json:"error,omitempty"`
	DeniedBy string       `json:"deniedBy,omitempty"`
	// Object is the admitted object, Changed whether a mutation changed it.
	Object  map[string]any `json:"object,omitempty"`
	Changed bool           `json:"changed"`
	// Warnings and AuditAnnotations are the request's.
	Warnings         []string          `json:"warnings,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	// RequestAuditAnnotations are those of audit level Request (the
	// mutating webhooks' patches).
	RequestAuditAnnotations map[string]string `json:"requestAuditAnnotations,omitempty"`
	// Trace is each plugin's trace, as text.
	Trace string `json:"trace"`
	diff  string
}

type admitInputs struct {
	policies, params, crds, namespaces, old, objects []string
	// webhooks are files of webhook configurations; answers the file of
	// scripted answers; callWebhooks calls the real endpoints instead.
	webhooks     []string
	answers      string
	callWebhooks bool
	// rbac are files of RBAC objects: the expressions' authorizer.
	rbac []string
	// podSecurityConfig is the PodSecurity plugin's configuration file.
	podSecurityConfig string
	operation         admissionv1.Operation
	user              string
	groups            []string
	diff, bindUnbound bool
}

func (a *app) admitCommand() *cobra.Command {
	var in admitInputs
	var operation string
	var noDiff bool
	cmd := &cobra.Command{
		Use:   "admit --policies PATH... [--params PATH...] [--crds PATH...] [--old PATH...] OBJECT...",
		Short: "What kube-apiserver's admission chain does with objects",
		Long: `Send each object (files, directories, "-" for standard input) through
kube-apiserver 1.37's admission chain of the policies of --policies, in its
order: MutatingAdmissionPolicies (reinvoked once when one asks), then, on the
admitted object, PodSecurity (enabled by default in kube-apiserver: the
pod-security.kubernetes.io labels of the namespaces of --namespaces, the
PodSecurityConfiguration of --pod-security-config) and ValidatingAdmissionPolicies. Prints, for each object, the
verdict (or the denial and the plugin that denied), the admitted object and a
diff, the warnings, the audit annotations and every plugin's trace.

Policies and bindings of both kinds are read in admissionregistration.k8s.io
v1, v1beta1 or v1alpha1, defaulted and validated as kube-apiserver's REST API
does; an invalid one is reported and left out. Params (--params) are any
objects; custom resources get their schemas from the CRDs of --crds; namespaces
come from the Namespace objects of --namespaces (without it, every namespace
exists without labels). The expressions' authorizer checks are answered by
kube-apiserver's authorizers over the RBAC objects of --rbac (system:masters,
then RBAC); without it they fail, as no authorizer is there. --operation is
CREATE (default), UPDATE (the old object
is the one of --old with the same kind, namespace and name, else the object
itself) or DELETE (the object is the old object).

Webhook configurations (--webhooks, admissionregistration.k8s.io/v1) join the
chain in kube-apiserver's order (MutatingAdmissionWebhook after the mutating
policies, ValidatingAdmissionWebhook after the validating ones). They are not
called: a local server answers for each, from the file of --webhook-answers
(a webhook it does not name allows everything), unless --call-webhooks calls
the real endpoints.

Exit status: 0 when every object is admitted, 1 when one is denied or a
policy is invalid, 2 on a usage or input error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(in.policies) == 0 {
				return usageError{err: errors.New("--policies is required"), command: cmd.CommandPath()}
			}
			in.objects, in.diff = args, !noDiff
			in.operation = admissionv1.Operation(strings.ToUpper(operation))
			return a.admit(cmd.Context(), in)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&in.policies, "policies", nil, "files or directories of admission policies and their bindings (mutating and validating)")
	f.StringSliceVar(&in.params, "params", nil, "files or directories of the params objects")
	f.StringSliceVar(&in.crds, "crds", nil, "files or directories of the CustomResourceDefinitions of custom objects")
	f.StringSliceVar(&in.namespaces, "namespaces", nil, "files or directories of the Namespace objects")
	f.StringSliceVar(&in.old, "old", nil, "files or directories of the old objects of an UPDATE")
	f.StringVar(&operation, "operation", "CREATE", "the request's operation: CREATE, UPDATE or DELETE")
	f.StringVar(&in.user, "as", "gatehouse", "the requesting user's name")
	f.StringSliceVar(&in.groups, "groups", []string{"system:authenticated"}, "the requesting user's groups")
	f.BoolVar(&noDiff, "no-diff", false, "leave the diff out of the text output")
	f.StringVarP(&a.namespace, "namespace", "n", "default", namespaceUsage)
	f.BoolVar(&in.bindUnbound, "bind-unbound", false, "bind every policy that has no binding to every request (Deny for validating policies)")
	f.StringSliceVar(&in.webhooks, "webhooks", nil, "files or directories of validating and mutating webhook configurations")
	f.StringVar(&in.answers, "webhook-answers", "", "a file of scripted answers of the webhooks (webhooks: [{name, answers: [{when, allowed, status, patch, warnings, auditAnnotations}], fail}])")
	f.BoolVar(&in.callWebhooks, "call-webhooks", false, "call the webhooks' real endpoints instead of answering from --webhook-answers")
	f.StringVar(&in.podSecurityConfig, "pod-security-config", "", "a PodSecurityConfiguration, or an AdmissionConfiguration with a PodSecurity entry (default: everything privileged, no exemptions)")
	f.StringSliceVar(&in.rbac, "rbac", nil, "files or directories of RBAC objects: the authorizer of the expressions' authorizer checks (system:masters, then RBAC)")
	return cmd
}

func (a *app) admit(ctx context.Context, in admitInputs) error {
	switch in.operation {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete:
	default:
		fmt.Fprintf(a.stderr, "gatehouse: --operation must be CREATE, UPDATE or DELETE, not %q\n", in.operation)
		return errInput
	}
	var problems []string
	var uses []versionUse
	var mapObjs mutation.Objects
	var vaps validatingpolicy.Objects
	configFiles := map[string]bool{}
	for _, inp := range readInputs(append(in.policies, in.webhooks...), a.stdin) {
		configFiles[inp.name] = true
	}
	for _, inp := range readInputs(in.policies, a.stdin) {
		if inp.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", inp.name, inp.err))
			continue
		}
		cfg, err := admission.Decode(inp.data)
		mapObjs.Policies, mapObjs.Bindings = append(mapObjs.Policies, cfg.MutatingPolicies...), append(mapObjs.Bindings, cfg.MutatingPolicyBindings...)
		vaps.Policies, vaps.Bindings = append(vaps.Policies, cfg.ValidatingPolicies...), append(vaps.Bindings, cfg.ValidatingPolicyBindings...)
		problems = append(problems, policyProblems(inp.name, err)...)
		uses = append(uses, apiVersionUses(a.kube, inp)...)
	}
	paramDocs, p := a.readDocuments(in.params)
	problems = append(problems, p...)
	nsDocs, p := a.readDocuments(in.namespaces)
	problems = append(problems, p...)
	oldDocs, p := a.readDocuments(in.old)
	problems = append(problems, p...)
	objects, p := a.readDocuments(in.objects)
	problems = append(problems, p...)
	schemas, kinds, p := a.readCRDs(in.crds)
	problems = append(problems, p...)
	objects, p = configurationObjects(objects, configFiles, "--policies")
	problems = append(problems, p...)
	for _, docs := range [][]document{paramDocs, oldDocs, objects} {
		for _, d := range docs {
			kinds.inNamespace(d.object, a.namespace)
		}
	}
	webhookDocs, p := a.readDocuments(in.webhooks)
	problems = append(problems, p...)
	var answers *admissionAnswers
	switch {
	case in.answers != "" && in.callWebhooks:
		problems = append(problems, "--webhook-answers and --call-webhooks exclude each other")
	case in.answers != "":
		var err error
		if answers, err = readAdmissionAnswers(in.answers); err != nil {
			problems = append(problems, err.Error())
		}
	}
	report := admitReport{SchemaVersion: schemaVersion, Objects: []admitObject{}, Notes: append(apiVersionNotes(a.kube, uses), paramNotes(schemas, paramDocs)...)}
	mutatingHooks, validatingHooks, p := readWebhookConfigurations(a.kube, webhookDocs, &report)
	problems = append(problems, p...)
	if len(problems) > 0 {
		fmt.Fprintln(a.stderr, "gatehouse: "+strings.Join(problems, "\ngatehouse: "))
		return errInput
	}
	cfg, err := validConfig(a.kube, &mapObjs, &vaps, in.bindUnbound, &report)
	if err != nil {
		return err
	}
	cfg.MutatingWebhooks, cfg.ValidatingWebhooks = mutatingHooks, validatingHooks
	if len(mutatingHooks)+len(validatingHooks) > 0 && !in.callWebhooks {
		stop, err := scriptAdmissionWebhooks(mutatingHooks, validatingHooks, answers)
		if err != nil {
			return err
		}
		defer stop()
	}
	var paramObjects []runtime.Object
	for _, d := range paramDocs {
		paramObjects = append(paramObjects, d.object)
	}
	opts := admission.Options{Schemas: schemas, Params: mutation.NewParamObjects(kinds.clusterScoped, paramObjects...), Kube: a.kube}
	if len(in.rbac) > 0 {
		az, err := expressionAuthorizer(in.rbac, a.stdin)
		if err != nil {
			fmt.Fprintf(a.stderr, "gatehouse: --rbac: %v\n", err)
			return errInput
		}
		opts.Authorizer = az
	}
	if len(in.namespaces) > 0 {
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
		opts.Namespaces = mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := namespaceByName[name]; ok {
				return ns, nil
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
		})
	}
	if opts.PodSecurity, err = podSecurity(in.podSecurityConfig, opts); err != nil {
		fmt.Fprintf(a.stderr, "gatehouse: --pod-security-config: %v\n", err)
		return errInput
	}
	chain, err := admission.New(cfg, opts)
	if err != nil {
		return err
	}
	findings := len(report.Invalid) > 0
	for _, doc := range objects {
		out := a.admitThroughChain(ctx, chain, schemas, doc, oldDocs, in)
		findings = findings || !out.Admitted
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

// policyProblems are the errors of admission.Decode on an input, but for
// documents of other kinds (GitOps directories mix kinds).
func policyProblems(name string, err error) []string {
	var out []string
	for _, e := range joined(err) {
		var kind *admission.KindError
		if !errors.As(e, &kind) {
			out = append(out, fmt.Sprintf("%s: %v", name, e))
		}
	}
	return out
}

// readCRDs builds the schemas of the CRDs of paths, and the scopes of every
// kind.
func (a *app) readCRDs(paths []string) (*mutation.Schemas, scopes, []string) {
	var problems []string
	schemas, kinds := mutation.BuiltIn(), newScopes(a.kube)
	for _, inp := range readInputs(paths, a.stdin) {
		if inp.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", inp.name, inp.err))
			continue
		}
		split, err := splitDocuments(inp.data)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", inp.name, err))
			continue
		}
		for _, d := range split {
			if err := schemas.AddCRD(d); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", inp.name, err))
			}
			kinds.addCRD(d)
		}
	}
	return schemas, kinds, problems
}

// validConfig keeps the policies and bindings kube-apiserver's REST API
// accepts, reporting the others and the unbound policies (or binding them).
func validConfig(t kube.Target, maps *mutation.Objects, vaps *validatingpolicy.Objects, bindUnbound bool, report *admitReport) (admission.Config, error) {
	var cfg admission.Config
	mv, err := mutation.NewValidator(mutation.ValidatorOptions{Kube: t})
	if err != nil {
		return cfg, err
	}
	vv, err := admissionmanifest.NewValidator(admissionmanifest.Options{Kube: t, StaticNames: admissionmanifest.StaticNamesFor(t)})
	if err != nil {
		return cfg, err
	}
	invalid := func(kind, name string, errs []string) {
		report.Invalid = append(report.Invalid, mutateInvalid{Kind: kind, Name: name, Errors: errs})
	}
	for _, p := range maps.Policies {
		if errs := mv.ValidateMutatingAdmissionPolicy(p, nil); len(errs) > 0 {
			invalid("MutatingAdmissionPolicy", p.Name, errorStrings(errs))
			continue
		}
		cfg.MutatingPolicies = append(cfg.MutatingPolicies, p)
	}
	for _, b := range maps.Bindings {
		if errs := mv.ValidateMutatingAdmissionPolicyBinding(b, nil); len(errs) > 0 {
			invalid("MutatingAdmissionPolicyBinding", b.Name, errorStrings(errs))
			continue
		}
		cfg.MutatingPolicyBindings = append(cfg.MutatingPolicyBindings, b)
	}
	for _, p := range vaps.Policies {
		if errs, _ := vv.ValidateValidatingAdmissionPolicy(p, nil); len(errs) > 0 {
			invalid("ValidatingAdmissionPolicy", p.Name, errorStrings(errs))
			continue
		}
		cfg.ValidatingPolicies = append(cfg.ValidatingPolicies, p)
	}
	for _, b := range vaps.Bindings {
		if errs, _ := vv.ValidateValidatingAdmissionPolicyBinding(b, nil); len(errs) > 0 {
			invalid("ValidatingAdmissionPolicyBinding", b.Name, errorStrings(errs))
			continue
		}
		cfg.ValidatingPolicyBindings = append(cfg.ValidatingPolicyBindings, b)
	}
	for _, p := range cfg.MutatingPolicies {
		if boundMutating(cfg.MutatingPolicyBindings, p.Name) {
			continue
		}
		if !bindUnbound {
			report.Unbound = append(report.Unbound, "MutatingAdmissionPolicy "+p.Name)
			continue
		}
		cfg.MutatingPolicyBindings = append(cfg.MutatingPolicyBindings, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-binding"}, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: p.Name}})
	}
	for _, p := range cfg.ValidatingPolicies {
		if boundValidating(cfg.ValidatingPolicyBindings, p.Name) {
			continue
		}
		if !bindUnbound {
			report.Unbound = append(report.Unbound, "ValidatingAdmissionPolicy "+p.Name)
			continue
		}
		cfg.ValidatingPolicyBindings = append(cfg.ValidatingPolicyBindings, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-binding"},
			Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: p.Name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}})
	}
	return cfg, nil
}

func boundMutating(bs []*admissionregistrationv1.MutatingAdmissionPolicyBinding, name string) bool {
	for _, b := range bs {
		if b.Spec.PolicyName == name {
			return true
		}
	}
	return false
}

func boundValidating(bs []*admissionregistrationv1.ValidatingAdmissionPolicyBinding, name string) bool {
	for _, b := range bs {
		if b.Spec.PolicyName == name {
			return true
		}
	}
	return false
}

// admitOne sends one object through the chain.
func (a *app) admitThroughChain(ctx context.Context, chain *admission.Chain, schemas *mutation.Schemas, doc document, oldDocs []document, in admitInputs) admitObject {
	obj := doc.object
	gvk := obj.GroupVersionKind()
	resource, _ := meta.UnsafeGuessKindToResource(gvk)
	out := admitObject{Source: doc.source, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	namespace := obj.GetNamespace()
	if gvk.Kind == "Namespace" {
		namespace = obj.GetName()
	}
	req := &admission.Request{Operation: in.operation, Kind: gvk, Resource: resource, Name: obj.GetName(), Namespace: namespace,
		UserInfo: authenticationv1.UserInfo{Username: in.user, Groups: in.groups}, Authorization: admission.Allowed()}
	switch in.operation {
	case admissionv1.Create:
		req.Object = obj.DeepCopy()
	case admissionv1.Update:
		req.Object, req.OldObject = obj.DeepCopy(), oldOf(obj, oldDocs).DeepCopy()
	case admissionv1.Delete:
		req.OldObject = obj.DeepCopy()
	}
	res, trace, err := chain.Explain(ctx, req)
	out.Trace = traceText(trace)
	out.Warnings, out.AuditAnnotations, out.RequestAuditAnnotations = res.Warnings, res.AuditAnnotations, res.RequestAuditAnnotations
	if err != nil {
		out.Error, out.DeniedBy = statusOf(err), trace.DeniedBy
		return out
	}
	out.Admitted = true
	if res.Object != nil {
		out.Object = res.Object.Object
		out.Changed = res.Changed
		if res.Changed && in.diff {
			out.diff = yamlDiff(normalized(schemas, obj.Object, gvk), normalized(schemas, out.Object, gvk))
		}
	}
	return out
}

// oldOf is the object of --old with obj's apiVersion, kind, namespace and
// name, or obj itself.
func oldOf(obj *unstructured.Unstructured, oldDocs []document) *unstructured.Unstructured {
	for _, d := range oldDocs {
		o := d.object
		if o.GetAPIVersion() == obj.GetAPIVersion() && o.GetKind() == obj.GetKind() && o.GetNamespace() == obj.GetNamespace() && o.GetName() == obj.GetName() {
			return o
		}
	}
	return obj
}

// traceText renders each plugin's trace.
func traceText(t *admission.Trace) string {
	var b strings.Builder
	for i, mt := range t.MutatingPolicies {
		if s := strings.TrimRight(mt.String(), "\n"); s != "" {
			fmt.Fprintf(&b, "MutatingAdmissionPolicy (pass %d):\n%s\n", i+1, "  "+indent(s, "  "))
		}
	}
	for i, wt := range t.MutatingWebhooks {
		if s := strings.TrimRight(wt.String(), "\n"); s != "" {
			fmt.Fprintf(&b, "MutatingAdmissionWebhook (pass %d):\n%s\n", i+1, "  "+indent(s, "  "))
		}
	}
	if ps := t.PodSecurity; ps != nil && (ps.Err != nil || len(ps.Verdict.Warnings) > 0) {
		b.WriteString("PodSecurity:\n")
		if ps.Err != nil {
			fmt.Fprintf(&b, "  denied: %v\n", ps.Err)
		}
		for _, w := range ps.Verdict.Warnings {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
	}
	if t.ValidatingPolicies != nil {
		if s := strings.TrimRight(t.ValidatingPolicies.String(), "\n"); s != "" {
			fmt.Fprintf(&b, "ValidatingAdmissionPolicy:\n%s\n", "  "+indent(s, "  "))
		}
	}
	if t.ValidatingWebhooks != nil {
		if s := strings.TrimRight(t.ValidatingWebhooks.String(), "\n"); s != "" {
			fmt.Fprintf(&b, "ValidatingAdmissionWebhook:\n%s\n", "  "+indent(s, "  "))
		}
	}
	return b.String()
}

func (r admitReport) text(p *printer, diff bool) {
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
		p.linef("%s %s has no binding: it applies to nothing (--bind-unbound binds it)", p.paint(yellow, "note:"), name)
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
		for _, w := range o.Warnings {
			p.linef("%s %s", p.paint(yellow, "warning:"), w)
		}
		for _, k := range slices.Sorted(maps.Keys(o.AuditAnnotations)) {
			p.linef("audit annotation %s: %s", k, o.AuditAnnotations[k])
		}
		for _, k := range slices.Sorted(maps.Keys(o.RequestAuditAnnotations)) {
			p.linef("audit annotation (Request level) %s: %s", k, o.RequestAuditAnnotations[k])
		}
		if !o.Admitted {
			p.linef("%s by %s: %s", p.paint(red, "denied"), o.DeniedBy, o.Error.Message)
			continue
		}
		switch {
		case o.Object == nil:
			p.linef("%s", p.paint(green, "admitted"))
			continue
		case !o.Changed:
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

// expressionAuthorizer is kube-apiserver's authorizer over the RBAC objects
// of paths (system:masters, then RBAC), for the expressions' authorizer
// checks.
func expressionAuthorizer(paths []string, stdin io.Reader) (matchcond.Authorizer, error) {
	set, err := loadRBAC(paths, stdin)
	if err != nil {
		return nil, err
	}
	chain, err := authorizer.NewChain(
		authorizer.Named{Name: "system:masters", Authorizer: authorizer.PrivilegedGroups("system:masters")},
		authorizer.Named{Name: "rbac", Authorizer: set.authorizer})
	if err != nil {
		return nil, err
	}
	return authorizer.ForExpressions(chain), nil
}
