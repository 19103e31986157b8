package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
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
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// testSuite is a gatehouse test file (kind AdmissionTest), or a kaptest
// manifest read into the same form.
type testSuite struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Policies are files of admission policies and bindings; Resources
	// files of the objects the cases name; Params, CRDs and Namespaces as
	// for admit. Paths are relative to the test file.
	Policies   []string `json:"policies"`
	Resources  []string `json:"resources"`
	Params     []string `json:"params,omitempty"`
	CRDs       []string `json:"crds,omitempty"`
	Namespaces []string `json:"namespaces,omitempty"`
	// BindUnbound binds each policy without a binding (Deny for validating
	// policies), as admit --bind-unbound.
	BindUnbound bool `json:"bindUnbound,omitempty"`
	// Webhooks are files of webhook configurations, answered from the file
	// WebhookAnswers as admit --webhook-answers answers them.
	Webhooks       []string `json:"webhooks,omitempty"`
	WebhookAnswers string   `json:"webhookAnswers,omitempty"`
	// RBAC are files of RBAC objects, the authorizer of the expressions'
	// authorizer checks, as admit --rbac.
	RBAC  []string   `json:"rbac,omitempty"`
	Cases []testCase `json:"cases"`
}

// testCase is one request and what it must give.
type testCase struct {
	Name string `json:"name"`
	// Object and OldObject name objects of the resources; the operation is
	// CREATE with an object alone, UPDATE with both, DELETE with the old
	// one alone, unless Operation says otherwise.
	Object    *resourceRef `json:"object,omitempty"`
	OldObject *resourceRef `json:"oldObject,omitempty"`
	Operation string       `json:"operation,omitempty"`
	User      *testUser    `json:"user,omitempty"`
	// Expect is admit or deny (unset: not checked); Message, when set,
	// must be contained in the denial's message; Warnings, when set, are
	// the warnings exactly; Admitted, when set, names the object the
	// admitted one must equal.
	Expect   string       `json:"expect,omitempty"`
	Message  string       `json:"message,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	Admitted *resourceRef `json:"admitted,omitempty"`
	// Policies are expectations about single policies of the chain.
	Policies []policyExpectation `json:"policies,omitempty"`
}

// policyExpectation is what one policy must have done with a case's request:
// whether it applied (kube-apiserver ran it: a binding matched and no match
// condition excluded the request — the peers' "skip" is applied: false),
// its verdict, what it changed and its warnings. Unset fields are not
// checked.
type policyExpectation struct {
	Name string `json:"name"`
	// Kind is ValidatingAdmissionPolicy or MutatingAdmissionPolicy, needed
	// only when policies of both kinds have the name.
	Kind    string `json:"kind,omitempty"`
	Applied *bool  `json:"applied,omitempty"`
	// Verdict is deny when the policy's outcome denies the request (a failed
	// validation with action Deny, an error under failurePolicy Fail), else
	// admit.
	Verdict string `json:"verdict,omitempty"`
	// Mutated tells whether a mutating policy changed the object.
	Mutated *bool `json:"mutated,omitempty"`
	// Warnings are the request's warnings that come from the policy.
	Warnings []string `json:"warnings,omitempty"`
}

// resourceRef names one object of a test file's resources.
type resourceRef struct {
	Group     string `json:"group,omitempty"`
	Version   string `json:"version,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// File, relative to the test file, says which resource file holds the
	// object when several hold one of that kind, namespace and name (an
	// expected object named as its input).
	File string `json:"file,omitempty"`
	// anyNamespace is kaptest's reading of a reference without a
	// namespace: an object of that name in any namespace.
	anyNamespace bool
}

func (r *resourceRef) String() string {
	s := r.Kind + " " + r.Name
	if r.Namespace != "" {
		s = r.Kind + " " + r.Namespace + "/" + r.Name
	}
	if r.File != "" {
		s += " (" + r.File + ")"
	}
	return s
}

// testUser is the requesting user of a gatehouse case.
type testUser struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

func (u *testUser) userInfo() *authenticationv1.UserInfo {
	if u == nil {
		return nil
	}
	info := &authenticationv1.UserInfo{Username: u.Username, UID: u.UID, Groups: u.Groups}
	for k, v := range u.Extra {
		if info.Extra == nil {
			info.Extra = map[string]authenticationv1.ExtraValue{}
		}
		info.Extra[k] = v
	}
	return info
}

// kaptestUser is kaptest's userInfo: kaptest reads name (its README shows
// user, which kaptest's decoder ignores; gatehouse takes either).
type kaptestUser struct {
	Name   string              `json:"name,omitempty"`
	User   string              `json:"user,omitempty"`
	Groups []string            `json:"groups,omitempty"`
	Extra  map[string][]string `json:"extra,omitempty"`
}

func (u *kaptestUser) userInfo() *authenticationv1.UserInfo {
	if u == nil {
		return nil
	}
	name := u.Name
	if name == "" {
		name = u.User
	}
	return (&testUser{Username: name, Groups: u.Groups, Extra: u.Extra}).userInfo()
}

// testReport is the -o json / -o yaml output of test.
type testReport struct {
	SchemaVersion int          `json:"schemaVersion"`
	Files         []testResult `json:"files"`
	Passed        int          `json:"passed"`
	Failed        int          `json:"failed"`
	// Skipped counts the cases out of gatehouse's scope (Kyverno's own
	// policy kinds), neither passed nor failed.
	Skipped int `json:"skipped,omitempty"`
}

type testResult struct {
	File string `json:"file"`
	// Format is gatehouse, kaptest, kaptest-v0.1 or kyverno.
	Format string `json:"format"`
	// Error is a problem with the file itself (its inputs).
	Error string `json:"error,omitempty"`
	// Notes are what kube-apiserver would do differently with the inputs
	// than the file may assume (API versions it serves only when enabled,
	// params it could not store).
	Notes []string      `json:"notes,omitempty"`
	Cases []caseOutcome `json:"cases"`
}

type caseOutcome struct {
	Name string `json:"name"`
	// Line is the case's line in the test file.
	Line   int  `json:"line,omitempty"`
	Passed bool `json:"passed"`
	// Got is kube-apiserver's outcome (admit, deny; for kaptest suites
	// also skip and error), Want the expectation.
	Got  string `json:"got"`
	Want string `json:"want"`
	// Failure says what differs; Note says where kaptest's answer differs
	// from kube-apiserver's.
	Failure string `json:"failure,omitempty"`
	Note    string `json:"note,omitempty"`
	Trace   string `json:"trace,omitempty"`
	// Skipped is a case gatehouse does not run, SkipReason says why.
	Skipped    bool   `json:"skipped,omitempty"`
	SkipReason string `json:"skipReason,omitempty"`
}

func (a *app) testCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "test FILE...",
		Short: "Run admission policy test suites: gatehouse's, kaptest's and Kyverno's",
		Long: `Run the cases of test files against kube-apiserver 1.37's admission chain and
report each one's pass or failure, with the trace of each failure.

A gatehouse test file (apiVersion gatehouse.dev/v1alpha1, kind AdmissionTest;
"gatehouse test init" writes one) names policy files, resource files, and cases:
the request (object, oldObject, operation, user) and what it must give (expect
admit or deny, a message, warnings, the admitted object). The policies run as
the cluster would run them: bindings, matchConstraints, failure policies.

kaptest manifests (its v1alpha1 format, with vapTestSuites and mapTestSuites,
and its first format, with testSuites) are read as they are: each case runs the
named policy bound alone (Deny; the case's param as its paramRef). kaptest
evaluates the expressions only; where its expected answer differs from
kube-apiserver's (kaptest ignores matchConstraints and failurePolicy and has no
authorizer), the case fails with a note saying so.

Kyverno CLI test files (kyverno-test.yaml: cli.kyverno.io/v1alpha1 Test, and its
older form) are read as they are: policies, resources, paramResources, values
(namespace labels), userinfo, and results. Each result on each resource is a
case: kube-apiserver's verdict on the native policy (ValidatingAdmissionPolicy:
pass, fail, warn, skip, error; MutatingAdmissionPolicy: pass with the admitted
object equal to patchedResources, skip, error). Where the file expects what
kube-apiserver cannot give (a policy without a binding, a policy or binding
kube-apiserver refuses, a policy that reads several params at once), the case
fails with a note giving the reason and the fix. --bind-unbound binds every
unbound policy to every request, as Kyverno evaluates them. Results of Kyverno's
own policy kinds are reported skipped.

Output: text, -o json, -o yaml, or -o junit (JUnit XML for CI systems). Exit
status: 0 when every case passes, 1 when one fails, 2 on a usage or input
error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runTests(cmd.Context(), args) },
	}
	cmd.Flags().StringVarP(&a.namespace, "namespace", "n", "default", namespaceUsage)
	cmd.Flags().BoolVar(&a.testBindUnbound, "bind-unbound", false, "bind every policy that has no binding to every request (Deny for validating policies), as Kyverno evaluates unbound policies")
	cmd.AddCommand(a.testInitCommand())
	return cmd
}

func (a *app) testInitCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "init POLICY_FILE",
		Short: "Write a skeleton test file for a policy file",
		Long: `Write <policy file without extension>.test.yaml next to the policy file: a
gatehouse test file with cases for each policy of the file, and
<name>.resources.yaml with their objects: for each policy, an object of the
first kind it matches, built from that kind's schema, in an admitted and a
denied case to edit (a validating policy), or an admitted case whose expected
object is what the policy makes of it now (a mutating policy).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.testInit(args[0]) },
	}
}

func (a *app) runTests(ctx context.Context, files []string) error {
	report := testReport{SchemaVersion: schemaVersion, Files: []testResult{}}
	inputErr := false
	for _, in := range readInputs(files, a.stdin) {
		r := a.runTestFile(ctx, in)
		inputErr = inputErr || r.Error != ""
		for _, c := range r.Cases {
			if c.Skipped {
				report.Skipped++
			} else if c.Passed {
				report.Passed++
			} else {
				report.Failed++
			}
		}
		report.Files = append(report.Files, r)
	}
	var err error
	if a.output == "junit" {
		err = writeJUnit(a, &report)
	} else {
		err = a.emit(report, report.text)
	}
	if err != nil {
		return err
	}
	switch {
	case inputErr:
		return errInput
	case report.Failed > 0:
		return errFindings
	}
	return nil
}

// kaptestManifest is kaptest's test manifest, both formats.
type kaptestManifest struct {
	Version string `json:"version"`
	// v1alpha1
	Policies      []string       `json:"policies"`
	VAPTestSuites []kaptestSuite `json:"vapTestSuites"`
	MAPTestSuites []kaptestSuite `json:"mapTestSuites"`
	// the first format
	ValidatingAdmissionPolicies []string       `json:"validatingAdmissionPolicies"`
	TestSuites                  []kaptestSuite `json:"testSuites"`
	// both; params and namespaces are the first format's (the current one
	// finds them among the resources, as gatehouse does in both).
	Resources  []string `json:"resources"`
	Params     []string `json:"params"`
	Namespaces []string `json:"namespaces"`
	CRDs       []string `json:"crds"`
	// SchemaLocations are kubeconform's schemas, with which kaptest checks
	// the resources; gatehouse types custom resources with their CRDs
	// (crds) and notes the locations it does not read.
	SchemaLocations []string `json:"schemaLocations"`
}

type kaptestSuite struct {
	Policy string        `json:"policy"`
	Tests  []kaptestTest `json:"tests"`
}

type kaptestTest struct {
	Object        *resourceRef `json:"object"`
	OldObject     *resourceRef `json:"oldObject"`
	Param         *resourceRef `json:"param"`
	UserInfo      *kaptestUser `json:"userInfo"`
	Expect        string       `json:"expect"`
	DeniedMessage string       `json:"deniedMessage"`
	ExpectObject  *resourceRef `json:"expectObject"`
	// DisableNameOverwrite keeps expectObject's own name (kaptest compares
	// it named as the object otherwise).
	DisableNameOverwrite bool `json:"disableNameOverwrite"`
}

// refs marks the test's references as kaptest reads them: without a
// namespace, an object of that name in any namespace.
func (tc *kaptestTest) refs() {
	for _, r := range []*resourceRef{tc.Object, tc.OldObject, tc.Param, tc.ExpectObject} {
		if r != nil && r.Namespace == "" {
			r.anyNamespace = true
		}
	}
}

// testWorld is what a test file's cases run against.
type testWorld struct {
	// kube is the Kubernetes that answers (--kube-version, --feature-gates).
	kube       kube.Target
	dir        string
	maps       mutation.Objects
	vaps       validatingpolicy.Objects
	resources  []document
	params     []document
	namespaces []document
	schemas    *mutation.Schemas
	scopes     scopes
	// namespace is -n: the namespace of objects of namespaced kinds that
	// have none, and of references without one.
	namespace string
	// notes are the inputs' notes (testResult.Notes).
	notes []string
	// The webhooks, pointed at the scripted server that stop stops.
	mutatingHooks   []*admissionregistrationv1.MutatingWebhookConfiguration
	validatingHooks []*admissionregistrationv1.ValidatingWebhookConfiguration
	invalidHooks    []mutateInvalid
	stop            func()
}

// loadTestWebhooks reads a test file's webhooks and points them at a
// server answering from its answers file.
func (a *app) loadTestWebhooks(w *testWorld, dir string, files []string, answersFile string) error {
	if len(files) == 0 {
		return nil
	}
	for i, f := range files {
		if !filepath.IsAbs(f) {
			files[i] = filepath.Join(dir, f)
		}
	}
	docs, problems := a.readDocuments(files)
	var report admitReport
	var p []string
	w.mutatingHooks, w.validatingHooks, p = readWebhookConfigurations(w.kube, docs, &report)
	problems = append(problems, p...)
	w.invalidHooks = report.Invalid
	var answers *admissionAnswers
	if answersFile != "" {
		if !filepath.IsAbs(answersFile) {
			answersFile = filepath.Join(dir, answersFile)
		}
		var err error
		if answers, err = readAdmissionAnswers(answersFile); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	stop, err := scriptAdmissionWebhooks(w.mutatingHooks, w.validatingHooks, answers)
	w.stop = stop
	return err
}

func (a *app) runTestFile(ctx context.Context, in input) testResult {
	res := testResult{File: in.name, Cases: []caseOutcome{}}
	if in.err != nil {
		res.Error = in.err.Error()
		return res
	}
	var probe map[string]any
	if err := yaml.Unmarshal(in.data, &probe); err != nil {
		res.Error = yamlProblem(in.name, 1, err)
		return res
	}
	if isKyvernoTest(probe) {
		return a.runKyvernoFile(ctx, in)
	}
	dir := filepath.Dir(in.name)
	if _, ok := probe["kind"]; ok {
		res.Format = "gatehouse"
		var s testSuite
		if err := yaml.UnmarshalStrict(in.data, &s); err != nil {
			res.Error = strictProblem(in.name, in.data, err)
			return res
		}
		s.BindUnbound = s.BindUnbound || a.testBindUnbound
		if s.Kind != "AdmissionTest" || s.APIVersion != "gatehouse.dev/v1alpha1" {
			res.Error = fmt.Sprintf("%s: unsupported kind %s %q: expected AdmissionTest (gatehouse.dev/v1alpha1), a kaptest manifest or a Kyverno CLI test", in.name, s.Kind, s.APIVersion)
			return res
		}
		w, err := a.loadTestWorld(dir, s.Policies, s.Resources, s.Params, s.CRDs, s.Namespaces)
		if err == nil {
			err = a.loadTestWebhooks(w, dir, s.Webhooks, s.WebhookAnswers)
		}
		if err != nil {
			res.Error = err.Error()
			return res
		}
		if w.stop != nil {
			defer w.stop()
		}
		res.Notes = w.notes
		lines := sequenceLines(in.data, "cases")
		res.Cases = a.runGatehouseCases(ctx, w, &s)
		for i := range res.Cases {
			// The configuration's own case, when there is one, comes first.
			if j := i - (len(res.Cases) - len(s.Cases)); j >= 0 && j < len(lines) {
				res.Cases[i].Line = lines[j]
			}
		}
		uniqueNames(res.Cases)
		return res
	}
	var k kaptestManifest
	res.Format = "kaptest"
	if err := yaml.UnmarshalStrict(in.data, &k); err != nil {
		res.Error = strictProblem(in.name, in.data, err)
		return res
	}
	policies := k.Policies
	vapSuites := k.VAPTestSuites
	if len(k.ValidatingAdmissionPolicies) > 0 || len(k.TestSuites) > 0 {
		res.Format = "kaptest-v0.1"
		policies = append(policies, k.ValidatingAdmissionPolicies...)
		vapSuites = append(vapSuites, k.TestSuites...)
	}
	w, err := a.loadTestWorld(dir, policies, k.Resources, k.Params, k.CRDs, k.Namespaces)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	// kaptest finds params and namespaces among the resources too.
	w.params = append(w.params, w.resources...)
	w.namespaces = append(w.namespaces, w.resources...)
	res.Notes = w.notes
	if len(k.SchemaLocations) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: schemaLocations (kubeconform's schemas) are not read: gatehouse types custom resources with their CustomResourceDefinitions (crds)", in.name))
	}
	for _, s := range vapSuites {
		for i, tc := range s.Tests {
			tc.refs()
			res.Cases = append(res.Cases, a.runKaptestVAP(ctx, w, s.Policy, i, &tc))
		}
	}
	for _, s := range k.MAPTestSuites {
		for i, tc := range s.Tests {
			tc.refs()
			res.Cases = append(res.Cases, a.runKaptestMAP(ctx, w, s.Policy, i, &tc))
		}
	}
	uniqueNames(res.Cases)
	return res
}

// uniqueNames numbers the cases whose names repeat, so that every case of a
// file (and of its JUnit suite) has its own name.
func uniqueNames(cases []caseOutcome) {
	seen := map[string]int{}
	for _, c := range cases {
		seen[c.Name]++
	}
	n := map[string]int{}
	for i, c := range cases {
		if seen[c.Name] > 1 {
			n[c.Name]++
			cases[i].Name = fmt.Sprintf("%s (%d)", c.Name, n[c.Name])
		}
	}
}

// loadTestWorld reads a test file's inputs, relative to its directory, each
// file once.
func (a *app) loadTestWorld(dir string, policies, resources, params, crds, namespaces []string) (*testWorld, error) {
	rel := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = p
			if !filepath.IsAbs(p) {
				out[i] = filepath.Join(dir, p)
			}
		}
		return out
	}
	w := &testWorld{dir: dir, kube: a.kube, namespace: a.namespace}
	var problems []string
	var uses []versionUse
	for _, inp := range readInputs(rel(policies), a.stdin) {
		if inp.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", inp.name, inp.err))
			continue
		}
		cfg, err := admission.Decode(inp.data)
		w.maps.Policies, w.maps.Bindings = append(w.maps.Policies, cfg.MutatingPolicies...), append(w.maps.Bindings, cfg.MutatingPolicyBindings...)
		w.vaps.Policies, w.vaps.Bindings = append(w.vaps.Policies, cfg.ValidatingPolicies...), append(w.vaps.Bindings, cfg.ValidatingPolicyBindings...)
		problems = append(problems, policyProblems(inp.name, err)...)
		uses = append(uses, apiVersionUses(a.kube, inp)...)
	}
	var p []string
	w.resources, p = a.readDocuments(rel(resources))
	problems = append(problems, p...)
	w.params, p = a.readDocuments(rel(params))
	problems = append(problems, p...)
	w.namespaces, p = a.readDocuments(rel(namespaces))
	problems = append(problems, p...)
	w.schemas, w.scopes, p = a.readCRDs(rel(crds))
	problems = append(problems, p...)
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	for _, docs := range [][]document{w.resources, w.params} {
		for _, d := range docs {
			w.scopes.inNamespace(d.object, w.namespace)
		}
	}
	w.notes = append(apiVersionNotes(a.kube, uses), paramNotes(w.schemas, w.params)...)
	return w, nil
}

// find is the resource a reference names: exactly one must match, so that
// a reference never resolves to another object than the one meant.
func (w *testWorld) find(r *resourceRef) (*unstructured.Unstructured, error) {
	if r == nil {
		return nil, nil
	}
	var found []document
	seen := map[string]bool{}
	for _, d := range w.resources {
		// A file listed twice (kaptest's resources are also its params)
		// holds its objects once.
		if seen[d.at()] {
			continue
		}
		seen[d.at()] = true
		o := d.object
		gvk := o.GroupVersionKind()
		if o.GetKind() != r.Kind || o.GetName() != r.Name || (r.Group != "" && gvk.Group != r.Group) || (r.Version != "" && gvk.Version != r.Version) {
			continue
		}
		if r.File != "" && filepath.Clean(d.file) != filepath.Join(w.dir, r.File) {
			continue
		}
		switch ns := o.GetNamespace(); {
		case r.Namespace != "":
			if ns != r.Namespace {
				continue
			}
		case r.anyNamespace:
		default:
			// Without a namespace, a reference names the object in the
			// -n namespace (objects without one were put there), or a
			// cluster-scoped one.
			if ns != "" && ns != w.namespace {
				continue
			}
		}
		found = append(found, d)
	}
	switch len(found) {
	case 1:
		return found[0].object.DeepCopy(), nil
	case 0:
		where := "in the resources"
		if r.Namespace == "" && !r.anyNamespace {
			where = fmt.Sprintf("in the resources (a reference without a namespace names an object of namespace %q, -n, or a cluster-scoped one)", w.namespace)
		}
		return nil, fmt.Errorf("no resource %s %s", r, where)
	}
	var at []string
	for _, d := range found {
		at = append(at, fmt.Sprintf("%s %s at %s", d.object.GetKind(), objectKey(d.object), d.at()))
	}
	return nil, fmt.Errorf("%d resources match %s: %s; say which with file: (or namespace:)", len(found), r, strings.Join(at, ", "))
}

func objectKey(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

// options are the engines' collaborators over the world.
func (w *testWorld) options() admission.Options {
	var params []runtime.Object
	for _, d := range w.params {
		params = append(params, d.object)
	}
	o := admission.Options{Schemas: w.schemas, Params: mutation.NewParamObjects(w.scopes.clusterScoped, params...), Kube: w.kube}
	namespaces := map[string]*corev1.Namespace{}
	for _, d := range w.namespaces {
		if d.object.GetKind() != "Namespace" || d.object.GetAPIVersion() != "v1" {
			continue
		}
		ns := &corev1.Namespace{}
		if runtime.DefaultUnstructuredConverter.FromUnstructured(d.object.Object, ns) == nil {
			namespaces[ns.Name] = ns
		}
	}
	if len(namespaces) > 0 {
		o.Namespaces = mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := namespaces[name]; ok {
				return ns, nil
			}
			// Namespaces the files do not define exist, unlabelled.
			return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
		})
	}
	// PodSecurity, with its default configuration, over the namespaces'
	// labels (the default configuration is always valid).
	o.PodSecurity, _ = podSecurity("", o)
	return o
}

// request is the admission request of a case.
func (w *testWorld) request(object, old *resourceRef, operation string, user *authenticationv1.UserInfo) (*admission.Request, error) {
	obj, err := w.find(object)
	if err != nil {
		return nil, err
	}
	oldObj, err := w.find(old)
	if err != nil {
		return nil, err
	}
	some := obj
	if some == nil {
		some = oldObj
	}
	if some == nil {
		return nil, errors.New("a case needs an object or an old object")
	}
	op := admissionv1.Operation(strings.ToUpper(operation))
	if op == "" {
		switch {
		case obj != nil && oldObj != nil:
			op = admissionv1.Update
		case obj != nil:
			op = admissionv1.Create
		default:
			op = admissionv1.Delete
		}
	}
	gvk := some.GroupVersionKind()
	resource, _ := meta.UnsafeGuessKindToResource(gvk)
	ns := some.GetNamespace()
	if gvk.Group == "" && gvk.Kind == "Namespace" {
		ns = some.GetName()
	}
	r := &admission.Request{Operation: op, Kind: gvk, Resource: resource, Name: some.GetName(), Namespace: ns, Object: obj, OldObject: oldObj,
		UserInfo: authenticationv1.UserInfo{Username: "gatehouse", Groups: []string{"system:authenticated"}}, Authorization: admission.Allowed()}
	if user != nil {
		r.UserInfo = *user
	}
	return r, nil
}

func (a *app) runGatehouseCases(ctx context.Context, w *testWorld, s *testSuite) []caseOutcome {
	var report admitReport
	cfg, err := validConfig(w.kube, &w.maps, &w.vaps, s.BindUnbound, &report)
	cfg.MutatingWebhooks, cfg.ValidatingWebhooks = w.mutatingHooks, w.validatingHooks
	opts := w.options()
	if err == nil && len(s.RBAC) > 0 {
		paths := make([]string, len(s.RBAC))
		for i, p := range s.RBAC {
			paths[i] = p
			if !filepath.IsAbs(p) {
				paths[i] = filepath.Join(w.dir, p)
			}
		}
		opts.Authorizer, err = expressionAuthorizer(paths, a.stdin)
	}
	var chain *admission.Chain
	if err == nil {
		chain, err = admission.New(cfg, opts)
	}
	// Objects kube-apiserver would refuse are left out of the chain; the
	// suite says so as a failure of its own.
	var out []caseOutcome
	if invalid := append(report.Invalid, w.invalidHooks...); len(invalid) > 0 {
		var msgs []string
		for _, inv := range invalid {
			msgs = append(msgs, fmt.Sprintf("%s %s: %s", inv.Kind, inv.Name, strings.Join(inv.Errors, "; ")))
		}
		out = append(out, caseOutcome{Name: "the configuration is valid", Want: "valid", Got: "invalid", Failure: strings.Join(msgs, "\n")})
	}
	for i, tc := range s.Cases {
		co := caseOutcome{Name: tc.Name, Want: tc.Expect}
		if co.Name == "" {
			co.Name = fmt.Sprintf("case %d", i+1)
		}
		if err == nil {
			err = tc.valid()
		}
		if err != nil {
			co.Failure = err.Error()
			out = append(out, co)
			if tc.valid() != nil {
				err = nil // the next case's own
			}
			continue
		}
		req, rerr := w.request(tc.Object, tc.OldObject, tc.Operation, tc.User.userInfo())
		if rerr != nil {
			co.Failure = rerr.Error()
			out = append(out, co)
			continue
		}
		res, trace, aerr := chain.Explain(ctx, req)
		co.Trace = traceText(trace)
		co.Got = "admit"
		var failures []string
		if aerr != nil {
			co.Got = "deny"
			if tc.Message != "" && !strings.Contains(aerr.Error(), tc.Message) {
				failures = append(failures, fmt.Sprintf("message %q does not contain %q", statusMessage(aerr), tc.Message))
			}
		}
		if tc.Expect != "" && co.Got != tc.Expect {
			failures = append([]string{fmt.Sprintf("%s, want %s", describe(co.Got, aerr), tc.Expect)}, failures...)
		}
		failures = append(failures, checkPolicies(w, trace, res.Warnings, tc.Policies)...)
		if tc.Warnings != nil && !reflect.DeepEqual(res.Warnings, tc.Warnings) {
			failures = append(failures, fmt.Sprintf("warnings %q, want %q", res.Warnings, tc.Warnings))
		}
		if tc.Admitted != nil && aerr == nil {
			want, ferr := w.find(tc.Admitted)
			switch {
			case ferr != nil:
				failures = append(failures, ferr.Error())
			case res.Object == nil:
				failures = append(failures, "no admitted object")
			default:
				// The expected object is named as the request's (a
				// resource file cannot hold two objects of one name).
				want.SetName(req.Name)
				gvk := want.GroupVersionKind()
				if d := labelledDiff("expected", "admitted", normalized(w.schemas, want.Object, gvk), normalized(w.schemas, res.Object.Object, gvk)); d != "" {
					failures = append(failures, "the admitted object differs from the expected one:\n"+strings.TrimRight(d, "\n"))
				}
			}
		}
		co.Passed = len(failures) == 0
		co.Failure = strings.Join(failures, "; ")
		if co.Passed {
			co.Trace = ""
		}
		out = append(out, co)
	}
	return out
}

func statusMessage(err error) string {
	var status *apierrors.StatusError
	if errors.As(err, &status) {
		return status.ErrStatus.Message
	}
	return err.Error()
}

func describe(got string, err error) string {
	if err != nil {
		return got + " (" + statusMessage(err) + ")"
	}
	return got
}

// runKaptestVAP runs one kaptest case of a ValidatingAdmissionPolicy: the
// policy alone, bound with Deny (the case's param as paramRef), as
// kube-apiserver would run it; kaptest's expectations are admit, deny, skip
// (a false match condition) and error (an expression that fails).
func (a *app) runKaptestVAP(ctx context.Context, w *testWorld, policy string, i int, tc *kaptestTest) caseOutcome {
	co := caseOutcome{Name: kaptestCaseName("VAP", policy, i, tc), Want: tc.Expect}
	var p *admissionregistrationv1.ValidatingAdmissionPolicy
	for _, cand := range w.vaps.Policies {
		if cand.Name == policy {
			p = cand
		}
	}
	if p == nil {
		co.Failure = fmt.Sprintf("no ValidatingAdmissionPolicy %q", policy)
		return co
	}
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: policy + "-kaptest"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
	ref, err := w.kaptestParamRef(tc.Param, p.Spec.ParamKind)
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	b.Spec.ParamRef = ref
	o := w.options()
	d, err := validatingpolicy.NewDispatcher([]*admissionregistrationv1.ValidatingAdmissionPolicy{p}, []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{b},
		validatingpolicy.Options{Params: o.Params, Namespaces: o.Namespaces, Kube: o.Kube})
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	req, err := w.request(tc.Object, tc.OldObject, "", tc.UserInfo.userInfo())
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	_, trace, verr := d.Explain(ctx, &validatingpolicy.Request{Operation: req.Operation, Kind: req.Kind, Resource: req.Resource, Name: req.Name,
		Namespace: req.Namespace, UserInfo: req.UserInfo, Object: req.Object, OldObject: req.OldObject, DryRun: true})
	co.Trace = trace.String()
	var why string
	co.Got, why = kaptestVerdict(trace, verr)
	if hint := ruleGroupHint(p.Spec.MatchConstraints, req.Resource); hint != "" && co.Got == "skip" {
		why += "; " + hint
	}
	co.Passed = co.Got == tc.Expect
	if co.Passed && tc.Expect == "deny" && tc.DeniedMessage != "" && !strings.Contains(statusMessage(verr), tc.DeniedMessage) {
		co.Passed = false
		co.Failure = fmt.Sprintf("message %q does not contain %q", statusMessage(verr), tc.DeniedMessage)
	}
	if !co.Passed && co.Failure == "" {
		co.Failure = fmt.Sprintf("kube-apiserver: %s, kaptest expects %s", co.Got, tc.Expect)
		co.Note = why
	}
	if co.Passed {
		co.Trace = ""
	}
	return co
}

// ruleGroupHint says when rules name the request's resource in another
// group than its own (deployments under apiGroups [""]: kaptest's examples
// do), the commonest reason kube-apiserver does not apply a policy kaptest
// evaluates.
func ruleGroupHint(mc *admissionregistrationv1.MatchResources, r schema.GroupVersionResource) string {
	if mc == nil {
		return ""
	}
	for _, rule := range mc.ResourceRules {
		named, group := false, false
		for _, res := range rule.Resources {
			named = named || res == r.Resource
		}
		for _, g := range rule.APIGroups {
			group = group || g == "*" || g == r.Group
		}
		if named && !group {
			return fmt.Sprintf("the rules name %s in apiGroups %q, but %s are in group %q: write apiGroups: [%q]", r.Resource, rule.APIGroups, r.Resource, r.Group, r.Group)
		}
	}
	return ""
}

// kaptestCaseName is a kaptest case's name as kaptest prints it: the kind of
// policy (a VAP and a MAP suite may share a policy name), the policy, the
// operation and the objects.
func kaptestCaseName(kind, policy string, i int, tc *kaptestTest) string {
	name := fmt.Sprintf("[%s] %s #%d", kind, policy, i+1)
	switch {
	case tc.Object != nil && tc.OldObject != nil:
		name += " (UPDATE) " + tc.OldObject.String() + " -> " + tc.Object.String()
	case tc.Object != nil:
		name += " (CREATE) " + tc.Object.String()
	case tc.OldObject != nil:
		name += " (DELETE) " + tc.OldObject.String()
	}
	if tc.Param != nil {
		name += " (param " + tc.Param.Name + ")"
	}
	return name
}

// kaptestParamRef is the paramRef of kaptest's param reference: the object
// of the policy's paramKind with that name (in any namespace when the
// reference has none, as kaptest finds it), or none.
func (w *testWorld) kaptestParamRef(r *resourceRef, kind *admissionregistrationv1.ParamKind) (*admissionregistrationv1.ParamRef, error) {
	if r == nil || kind == nil {
		return nil, nil
	}
	ref := *r
	ref.Kind = kind.Kind
	if gv, err := schema.ParseGroupVersion(kind.APIVersion); err == nil {
		ref.Group, ref.Version = gv.Group, gv.Version
	}
	pw := *w
	pw.resources = w.params
	obj, err := pw.find(&ref)
	if err != nil {
		return nil, fmt.Errorf("param: %w", err)
	}
	return &admissionregistrationv1.ParamRef{Name: obj.GetName(), Namespace: obj.GetNamespace(), ParameterNotFoundAction: new(admissionregistrationv1.DenyAction)}, nil
}

// kaptestVerdict is kube-apiserver's outcome of a policy alone in kaptest's
// terms, and, for the outcomes kaptest cannot give, why.
func kaptestVerdict(t *validatingpolicy.Trace, err error) (verdict, why string) {
	if len(t.Policies) == 0 {
		return "skip", "no binding matched"
	}
	pt := t.Policies[0]
	if pt.Err != nil {
		return "error", "the policy fails to configure: " + pt.Err.Error()
	}
	if !pt.Matched {
		return "skip", fmt.Sprintf("kube-apiserver does not apply the policy: its matchConstraints do not match the request (%s); kaptest ignores matchConstraints", pt.Reason)
	}
	for _, bt := range pt.Bindings {
		if bt.Err != nil {
			return "error", "the binding fails to configure: " + bt.Err.Error()
		}
		for _, it := range bt.Invocations {
			switch {
			case it.Skipped:
				return "skip", ""
			case it.Err != "":
				if !it.Denied {
					return "error", "kube-apiserver admits the request: failurePolicy Ignore (kaptest ignores failurePolicy)"
				}
				return "error", ""
			}
			for _, v := range it.Validations {
				if v.Error {
					if !v.Denied {
						return "error", "kube-apiserver admits the request: failurePolicy Ignore (kaptest ignores failurePolicy)"
					}
					return "error", ""
				}
			}
			for _, v := range it.Validations {
				if !v.Passed {
					return "deny", ""
				}
			}
		}
	}
	if err != nil {
		return "error", statusMessage(err)
	}
	return "admit", ""
}

// runKaptestMAP runs one kaptest case of a MutatingAdmissionPolicy bound
// alone; kaptest's expectations are mutate (the admitted object must be
// expectObject), skip and error.
func (a *app) runKaptestMAP(ctx context.Context, w *testWorld, policy string, i int, tc *kaptestTest) caseOutcome {
	co := caseOutcome{Name: kaptestCaseName("MAP", policy, i, tc), Want: tc.Expect}
	var p *admissionregistrationv1.MutatingAdmissionPolicy
	for _, cand := range w.maps.Policies {
		if cand.Name == policy {
			p = cand
		}
	}
	if p == nil {
		co.Failure = fmt.Sprintf("no MutatingAdmissionPolicy %q", policy)
		return co
	}
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: policy + "-kaptest"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: policy}}
	ref, err := w.kaptestParamRef(tc.Param, p.Spec.ParamKind)
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	b.Spec.ParamRef = ref
	o := w.options()
	d, err := mutation.NewDispatcher([]*admissionregistrationv1.MutatingAdmissionPolicy{p}, []*admissionregistrationv1.MutatingAdmissionPolicyBinding{b},
		mutation.Options{Schemas: w.schemas, Params: o.Params, Namespaces: o.Namespaces, Kube: o.Kube})
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	req, err := w.request(tc.Object, tc.OldObject, "", tc.UserInfo.userInfo())
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	res, trace, merr := d.Explain(ctx, &mutation.Request{Operation: req.Operation, Kind: req.Kind, Resource: req.Resource, Name: req.Name,
		Namespace: req.Namespace, UserInfo: req.UserInfo, Object: req.Object, OldObject: req.OldObject, DryRun: true})
	co.Trace = trace.String()
	switch {
	case merr != nil:
		co.Got = "error"
	case res.Changed:
		co.Got = "mutate"
	default:
		co.Got = "skip"
	}
	co.Passed = co.Got == tc.Expect
	if co.Passed && co.Got == "mutate" && tc.ExpectObject != nil {
		want, ferr := w.find(tc.ExpectObject)
		if ferr != nil {
			co.Passed, co.Failure = false, ferr.Error()
		} else {
			if !tc.DisableNameOverwrite {
				want.SetName(req.Name)
			}
			gvk := want.GroupVersionKind()
			if d := labelledDiff("expected", "mutated", normalized(w.schemas, want.Object, gvk), normalized(w.schemas, res.Object.Object, gvk)); d != "" {
				co.Passed, co.Failure = false, "the mutated object differs from the expected one:\n"+strings.TrimRight(d, "\n")
			}
		}
	}
	if !co.Passed && co.Failure == "" {
		co.Failure = fmt.Sprintf("kube-apiserver: %s, kaptest expects %s", describe(co.Got, merr), tc.Expect)
	}
	if co.Passed {
		co.Trace = ""
	}
	return co
}

func (r testReport) text(p *printer) {
	for _, f := range r.Files {
		if f.Format == "" {
			p.linef("=== %s", f.File)
		} else {
			p.linef("=== %s (%s)", f.File, f.Format)
		}
		if f.Error != "" {
			p.linef("%s %s", p.paint(red, "error:"), f.Error)
			continue
		}
		for _, n := range f.Notes {
			p.linef("%s %s", p.paint(yellow, "note:"), n)
		}
		for _, c := range f.Cases {
			if c.Skipped {
				p.linef("%s %s: %s", p.paint(yellow, "SKIP"), c.Name, c.SkipReason)
				continue
			}
			if c.Passed {
				p.linef("%s %s", p.paint(green, "PASS"), c.Name)
				continue
			}
			at := ""
			if c.Line > 0 {
				at = fmt.Sprintf(" (%s:%d)", f.File, c.Line)
			}
			p.linef("%s %s%s: %s", p.paint(red, "FAIL"), c.Name, at, c.Failure)
			if c.Note != "" {
				p.linef("  %s %s", p.paint(yellow, "note:"), c.Note)
			}
			if trace := strings.TrimRight(c.Trace, "\n"); trace != "" {
				p.block("  ", trace)
			}
		}
	}
	if r.Skipped > 0 {
		p.linef("%d passed, %d failed, %d skipped", r.Passed, r.Failed, r.Skipped)
		return
	}
	p.linef("%d passed, %d failed", r.Passed, r.Failed)
}

// JUnit XML, as CI systems read it.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Tests   int          `xml:"tests,attr"`
	Failed  int          `xml:"failures,attr"`
	Errors  int          `xml:"errors,attr"`
	Skipped int          `xml:"skipped,attr,omitempty"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name   string `xml:"name,attr"`
	Tests  int    `xml:"tests,attr"`
	Failed int    `xml:"failures,attr"`
	Errors int    `xml:"errors,attr"`
	// Skipped is omitted when none is.
	Skipped int         `xml:"skipped,attr,omitempty"`
	Cases   []junitCase `xml:"testcase"`
	Error   *junitError `xml:"error,omitempty"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Failure *junitFailure `xml:"failure,omitempty"`
	Skipped *junitSkipped `xml:"skipped,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitError struct {
	Message string `xml:"message,attr"`
}

func writeJUnit(a *app, r *testReport) error {
	out := junitSuites{Tests: r.Passed + r.Failed + r.Skipped, Failed: r.Failed, Skipped: r.Skipped}
	for _, f := range r.Files {
		s := junitSuite{Name: f.File, Tests: len(f.Cases)}
		if f.Error != "" {
			s.Errors, s.Error = 1, &junitError{Message: f.Error}
			out.Errors++
		}
		for _, c := range f.Cases {
			jc := junitCase{Name: c.Name, Class: f.File}
			if c.Skipped {
				s.Skipped++
				jc.Skipped = &junitSkipped{Message: c.SkipReason}
			} else if !c.Passed {
				s.Failed++
				text := c.Trace
				if c.Note != "" {
					text = "note: " + c.Note + "\n" + text
				}
				jc.Failure = &junitFailure{Message: c.Failure, Text: text}
			}
			s.Cases = append(s.Cases, jc)
		}
		out.Suites = append(out.Suites, s)
	}
	data, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s%s\n", xml.Header, data)
	return err
}
