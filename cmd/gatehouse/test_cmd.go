package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
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
	// Expect is admit or deny; Message, when set, must be contained in the
	// denial's message; Warnings, when set, are the warnings exactly;
	// Admitted, when set, names the object the admitted one must equal.
	Expect   string       `json:"expect"`
	Message  string       `json:"message,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	Admitted *resourceRef `json:"admitted,omitempty"`
}

type resourceRef struct {
	Group     string `json:"group,omitempty"`
	Version   string `json:"version,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (r *resourceRef) String() string {
	s := r.Kind + " " + r.Name
	if r.Namespace != "" {
		s = r.Kind + " " + r.Namespace + "/" + r.Name
	}
	return s
}

type testUser struct {
	Username string              `json:"username,omitempty"`
	User     string              `json:"user,omitempty"` // kaptest's name of it
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// testReport is the -o json / -o yaml output of test.
type testReport struct {
	SchemaVersion int          `json:"schemaVersion"`
	Files         []testResult `json:"files"`
	Passed        int          `json:"passed"`
	Failed        int          `json:"failed"`
}

type testResult struct {
	File string `json:"file"`
	// Format is gatehouse, kaptest or kaptest-v0.1.
	Format string `json:"format"`
	// Error is a problem with the file itself (its inputs).
	Error string        `json:"error,omitempty"`
	Cases []caseOutcome `json:"cases"`
}

type caseOutcome struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Got is kube-apiserver's outcome (admit, deny; for kaptest suites
	// also skip and error), Want the expectation.
	Got  string `json:"got"`
	Want string `json:"want"`
	// Failure says what differs; Note says where kaptest's answer differs
	// from kube-apiserver's.
	Failure string `json:"failure,omitempty"`
	Note    string `json:"note,omitempty"`
	Trace   string `json:"trace,omitempty"`
}

func (a *app) testCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "test FILE...",
		Short: "Run admission policy test suites: gatehouse's and kaptest's",
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

Output: text, -o json, -o yaml, or -o junit (JUnit XML for CI systems). Exit
status: 0 when every case passes, 1 when one fails, 2 on a usage or input
error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runTests(cmd.Context(), args) },
	}
	cmd.AddCommand(a.testInitCommand())
	return cmd
}

func (a *app) testInitCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "init POLICY_FILE",
		Short: "Write a skeleton test file for a policy file",
		Long: `Write <policy file without extension>.test.yaml next to the policy file: a
gatehouse test file with one admitted and one denied case to edit, and
<name>.resources.yaml with their objects.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.testInit(args[0]) },
	}
}

func (a *app) testInit(policyFile string) error {
	base := strings.TrimSuffix(policyFile, filepath.Ext(policyFile))
	testFile, resources := base+".test.yaml", base+".resources.yaml"
	for _, f := range []string{testFile, resources} {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintf(a.stderr, "gatehouse: %s exists: not overwritten\n", f)
			return errInput
		}
	}
	suite := fmt.Sprintf(`apiVersion: gatehouse.dev/v1alpha1
kind: AdmissionTest
policies: [%s]
resources: [%s]
cases:
- name: admitted
  object: {kind: Pod, namespace: default, name: good}
  expect: admit
- name: denied
  object: {kind: Pod, namespace: default, name: bad}
  expect: deny
  message: CHANGEME
`, filepath.Base(policyFile), filepath.Base(resources))
	objects := `apiVersion: v1
kind: Pod
metadata: {name: good, namespace: default}
spec:
  containers: [{name: c, image: CHANGEME}]
---
apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: default}
spec:
  containers: [{name: c, image: CHANGEME}]
`
	if err := os.WriteFile(testFile, []byte(suite), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(resources, []byte(objects), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s and %s\n", testFile, resources)
	return nil
}

func (a *app) runTests(ctx context.Context, files []string) error {
	report := testReport{SchemaVersion: schemaVersion, Files: []testResult{}}
	inputErr := false
	for _, in := range readInputs(files, a.stdin) {
		r := a.runTestFile(ctx, in)
		inputErr = inputErr || r.Error != ""
		for _, c := range r.Cases {
			if c.Passed {
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
	// both
	Resources []string `json:"resources"`
	CRDs      []string `json:"crds"`
}

type kaptestSuite struct {
	Policy string        `json:"policy"`
	Tests  []kaptestTest `json:"tests"`
}

type kaptestTest struct {
	Object        *resourceRef `json:"object"`
	OldObject     *resourceRef `json:"oldObject"`
	Param         *resourceRef `json:"param"`
	UserInfo      *testUser    `json:"userInfo"`
	Expect        string       `json:"expect"`
	DeniedMessage string       `json:"deniedMessage"`
	ExpectObject  *resourceRef `json:"expectObject"`
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
		res.Error = err.Error()
		return res
	}
	dir := filepath.Dir(in.name)
	if _, ok := probe["kind"]; ok {
		res.Format = "gatehouse"
		var s testSuite
		if err := yaml.UnmarshalStrict(in.data, &s); err != nil {
			res.Error = err.Error()
			return res
		}
		if s.Kind != "AdmissionTest" || s.APIVersion != "gatehouse.dev/v1alpha1" {
			res.Error = fmt.Sprintf("unsupported kind %s %q: expected AdmissionTest (gatehouse.dev/v1alpha1) or a kaptest manifest", s.Kind, s.APIVersion)
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
		res.Cases = a.runGatehouseCases(ctx, w, &s)
		return res
	}
	var k kaptestManifest
	if err := yaml.UnmarshalStrict(in.data, &k); err != nil {
		res.Error = err.Error()
		return res
	}
	res.Format = "kaptest"
	policies := k.Policies
	vapSuites := k.VAPTestSuites
	if len(k.ValidatingAdmissionPolicies) > 0 || len(k.TestSuites) > 0 {
		res.Format = "kaptest-v0.1"
		policies = append(policies, k.ValidatingAdmissionPolicies...)
		vapSuites = append(vapSuites, k.TestSuites...)
	}
	w, err := a.loadTestWorld(dir, policies, k.Resources, k.Resources, k.CRDs, k.Resources)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	for _, s := range vapSuites {
		for i, tc := range s.Tests {
			res.Cases = append(res.Cases, a.runKaptestVAP(ctx, w, s.Policy, i, &tc))
		}
	}
	for _, s := range k.MAPTestSuites {
		for i, tc := range s.Tests {
			res.Cases = append(res.Cases, a.runKaptestMAP(ctx, w, s.Policy, i, &tc))
		}
	}
	return res
}

// loadTestWorld reads a test file's inputs, relative to its directory.
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
	w := &testWorld{dir: dir, kube: a.kube}
	var problems []string
	for _, inp := range readInputs(rel(policies), a.stdin) {
		if inp.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", inp.name, inp.err))
			continue
		}
		cfg, err := admission.Decode(inp.data)
		w.maps.Policies, w.maps.Bindings = append(w.maps.Policies, cfg.MutatingPolicies...), append(w.maps.Bindings, cfg.MutatingPolicyBindings...)
		w.vaps.Policies, w.vaps.Bindings = append(w.vaps.Policies, cfg.ValidatingPolicies...), append(w.vaps.Bindings, cfg.ValidatingPolicyBindings...)
		problems = append(problems, policyProblems(inp.name, err)...)
	}
	var p []string
	w.resources, p = a.readDocuments(rel(resources))
	problems = append(problems, p...)
	w.params, p = a.readDocuments(rel(params))
	problems = append(problems, p...)
	w.namespaces, p = a.readDocuments(rel(namespaces))
	problems = append(problems, p...)
	w.schemas, p = a.readCRDs(rel(crds))
	problems = append(problems, p...)
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return w, nil
}

// find is the resource a reference names.
func (w *testWorld) find(r *resourceRef) (*unstructured.Unstructured, error) {
	if r == nil {
		return nil, nil
	}
	for _, d := range w.resources {
		o := d.object
		gvk := o.GroupVersionKind()
		if o.GetKind() == r.Kind && o.GetName() == r.Name && o.GetNamespace() == r.Namespace &&
			(r.Group == "" || gvk.Group == r.Group) && (r.Version == "" || gvk.Version == r.Version) {
			return o.DeepCopy(), nil
		}
	}
	return nil, fmt.Errorf("no resource %s", r)
}

// options are the engines' collaborators over the world.
func (w *testWorld) options() admission.Options {
	var params []runtime.Object
	for _, d := range w.params {
		params = append(params, d.object)
	}
	o := admission.Options{Schemas: w.schemas, Params: mutation.NewParamObjects(clusterScoped, params...), Kube: w.kube}
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
func (w *testWorld) request(object, old *resourceRef, operation string, user *testUser) (*admission.Request, error) {
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
		UserInfo: authenticationv1.UserInfo{Username: "gatehouse", Groups: []string{"system:authenticated"}}}
	if user != nil {
		r.UserInfo = authenticationv1.UserInfo{Username: user.Username, Groups: user.Groups}
		if user.User != "" {
			r.UserInfo.Username = user.User
		}
		for k, v := range user.Extra {
			if r.UserInfo.Extra == nil {
				r.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
			}
			r.UserInfo.Extra[k] = v
		}
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
		if err != nil {
			co.Failure = err.Error()
			out = append(out, co)
			continue
		}
		req, rerr := w.request(tc.Object, tc.OldObject, tc.Operation, tc.User)
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
		if co.Got != tc.Expect {
			failures = append([]string{fmt.Sprintf("%s, want %s", describe(co.Got, aerr), tc.Expect)}, failures...)
		}
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
				if d := yamlDiff(normalized(w.schemas, want.Object, gvk), normalized(w.schemas, res.Object.Object, gvk)); d != "" {
					failures = append(failures, "the admitted object differs:\n"+strings.TrimRight(d, "\n"))
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
	co := caseOutcome{Name: fmt.Sprintf("%s #%d", policy, i+1), Want: tc.Expect}
	if tc.Object != nil {
		co.Name += " " + tc.Object.String()
	} else if tc.OldObject != nil {
		co.Name += " " + tc.OldObject.String()
	}
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
	if tc.Param != nil {
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: tc.Param.Name, Namespace: tc.Param.Namespace,
			ParameterNotFoundAction: new(admissionregistrationv1.DenyAction)}
	}
	o := w.options()
	d, err := validatingpolicy.NewDispatcher([]*admissionregistrationv1.ValidatingAdmissionPolicy{p}, []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{b},
		validatingpolicy.Options{Params: o.Params, Namespaces: o.Namespaces, Kube: o.Kube})
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	req, err := w.request(tc.Object, tc.OldObject, "", tc.UserInfo)
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	_, trace, verr := d.Explain(ctx, &validatingpolicy.Request{Operation: req.Operation, Kind: req.Kind, Resource: req.Resource, Name: req.Name,
		Namespace: req.Namespace, UserInfo: req.UserInfo, Object: req.Object, OldObject: req.OldObject, DryRun: true})
	co.Trace = trace.String()
	var why string
	co.Got, why = kaptestVerdict(trace, verr)
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
	co := caseOutcome{Name: fmt.Sprintf("%s #%d", policy, i+1), Want: tc.Expect}
	if tc.Object != nil {
		co.Name += " " + tc.Object.String()
	}
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
	if tc.Param != nil {
		b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: tc.Param.Name, Namespace: tc.Param.Namespace, ParameterNotFoundAction: new(admissionregistrationv1.DenyAction)}
	}
	o := w.options()
	d, err := mutation.NewDispatcher([]*admissionregistrationv1.MutatingAdmissionPolicy{p}, []*admissionregistrationv1.MutatingAdmissionPolicyBinding{b},
		mutation.Options{Schemas: w.schemas, Params: o.Params, Namespaces: o.Namespaces, Kube: o.Kube})
	if err != nil {
		co.Failure = err.Error()
		return co
	}
	req, err := w.request(tc.Object, tc.OldObject, "", tc.UserInfo)
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
			want.SetName(req.Name)
			gvk := want.GroupVersionKind()
			if d := yamlDiff(normalized(w.schemas, want.Object, gvk), normalized(w.schemas, res.Object.Object, gvk)); d != "" {
				co.Passed, co.Failure = false, "the mutated object differs:\n"+strings.TrimRight(d, "\n")
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
		p.linef("=== %s (%s)", f.File, f.Format)
		if f.Error != "" {
			p.linef("%s %s", p.paint(red, "error:"), f.Error)
			continue
		}
		for _, c := range f.Cases {
			if c.Passed {
				p.linef("%s %s", p.paint(green, "PASS"), c.Name)
				continue
			}
			p.linef("%s %s: %s", p.paint(red, "FAIL"), c.Name, c.Failure)
			if c.Note != "" {
				p.linef("  %s %s", p.paint(yellow, "note:"), c.Note)
			}
			if trace := strings.TrimRight(c.Trace, "\n"); trace != "" {
				p.block("  ", trace)
			}
		}
	}
	p.linef("%d passed, %d failed", r.Passed, r.Failed)
}

// JUnit XML, as CI systems read it.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Tests   int          `xml:"tests,attr"`
	Failed  int          `xml:"failures,attr"`
	Errors  int          `xml:"errors,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name   string      `xml:"name,attr"`
	Tests  int         `xml:"tests,attr"`
	Failed int         `xml:"failures,attr"`
	Errors int         `xml:"errors,attr"`
	Cases  []junitCase `xml:"testcase"`
	Error  *junitError `xml:"error,omitempty"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Failure *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitError struct {
	Message string `xml:"message,attr"`
}

func writeJUnit(a *app, r *testReport) error {
	out := junitSuites{Tests: r.Passed + r.Failed, Failed: r.Failed}
	for _, f := range r.Files {
		s := junitSuite{Name: f.File, Tests: len(f.Cases)}
		if f.Error != "" {
			s.Errors, s.Error = 1, &junitError{Message: f.Error}
			out.Errors++
		}
		for _, c := range f.Cases {
			jc := junitCase{Name: c.Name, Class: f.File}
			if !c.Passed {
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
