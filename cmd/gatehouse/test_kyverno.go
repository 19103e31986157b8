package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	authenticationv1 "k8s.io/api/authentication/v1"
	"path/filepath"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admission"
)

// This file reads Kyverno CLI test files (kyverno-test.yaml: apiVersion
// cli.kyverno.io/v1alpha1 or kyverno.io/v1, kind Test, and the older form
// without apiVersion) and answers their results about Kubernetes' native
// admission policies with kube-apiserver's verdict. Results about Kyverno's
// own policy kinds are reported skipped.

// kyvernoTest is one document of a kyverno-test.yaml. Every field of
// Kyverno's format is declared so that strict decoding refuses only the
// fields Kyverno itself would refuse; those that concern Kyverno's own
// policies alone (payloads, exceptions, context, mocks) are read and not
// used.
type kyvernoTest struct {
	APIVersion string            `json:"apiVersion,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	Metadata   metav1.ObjectMeta `json:"metadata,omitempty"`
	// Name is the older format's name of the test.
	Name             string          `json:"name,omitempty"`
	Policies         []string        `json:"policies,omitempty"`
	Resources        []string        `json:"resources,omitempty"`
	JSONPayload      string          `json:"jsonPayload,omitempty"`
	JSONPayloads     []string        `json:"jsonPayloads,omitempty"`
	HTTPPayloads     []string        `json:"httpPayloads,omitempty"`
	EnvoyPayloads    []string        `json:"envoyPayloads,omitempty"`
	TargetResources  []string        `json:"targetResources,omitempty"`
	Variables        string          `json:"variables,omitempty"`
	ParamResources   []string        `json:"paramResources,omitempty"`
	UserInfo         string          `json:"userinfo,omitempty"`
	Results          []kyvernoResult `json:"results,omitempty"`
	Values           *kyvernoValues  `json:"values,omitempty"`
	Exceptions       []string        `json:"exceptions,omitempty"`
	Context          string          `json:"context,omitempty"`
	ClusterResources []string        `json:"clusterResources,omitempty"`
	APICallResponses json.RawMessage `json:"apiCallResponses,omitempty"`
	GlobalContext    json.RawMessage `json:"globalContextEntries,omitempty"`
	// Checks are the assertion trees of Kyverno 1.12 to 1.18 (removed from
	// its test API since): each is reported skipped.
	Checks []struct {
		Match  json.RawMessage `json:"match,omitempty"`
		Assert json.RawMessage `json:"assert,omitempty"`
		Error  json.RawMessage `json:"error,omitempty"`
	} `json:"checks,omitempty"`
}

// kyvernoResult is one expected result: of a policy (and rule) on
// resources of a kind.
type kyvernoResult struct {
	Policy                      string `json:"policy"`
	Rule                        string `json:"rule,omitempty"`
	IsValidatingAdmissionPolicy bool   `json:"isValidatingAdmissionPolicy,omitempty"`
	IsMutatingAdmissionPolicy   bool   `json:"isMutatingAdmissionPolicy,omitempty"`
	IsValidatingPolicy          bool   `json:"isValidatingPolicy,omitempty"`
	IsDeletingPolicy            bool   `json:"isDeletingPolicy,omitempty"`
	IsImageValidatingPolicy     bool   `json:"isImageValidatingPolicy,omitempty"`
	IsGeneratingPolicy          bool   `json:"isGeneratingPolicy,omitempty"`
	IsMutatingPolicy            bool   `json:"isMutatingPolicy,omitempty"`
	// Result is pass, fail, skip, error or warn.
	Result                 string   `json:"result,omitempty"`
	Kind                   string   `json:"kind"`
	Operation              string   `json:"operation,omitempty"`
	PatchedResources       string   `json:"patchedResources,omitempty"`
	GeneratedResource      string   `json:"generatedResource,omitempty"`
	CloneSourceResource    string   `json:"cloneSourceResource,omitempty"`
	FailOnMissingResources bool     `json:"failOnMissingResources,omitempty"`
	Resources              []string `json:"resources,omitempty"`
	ResourceSpecs          []struct {
		Group       string `json:"group,omitempty"`
		Version     string `json:"version,omitempty"`
		Kind        string `json:"kind,omitempty"`
		Namespace   string `json:"namespace,omitempty"`
		Subresource string `json:"subresource,omitempty"`
		Name        string `json:"name,omitempty"`
	} `json:"resourceSpecs,omitempty"`
	GeneratedResources []string `json:"generatedResources,omitempty"`
	// The older format's fields: status for result, resource for
	// resources, namespace of the resource, patchedResource.
	Status          string `json:"status,omitempty"`
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	PatchedResource string `json:"patchedResource,omitempty"`
}

// kyvernoValues is a values file (kind Value) or a test's inline values.
type kyvernoValues struct {
	APIVersion    string            `json:"apiVersion,omitempty"`
	Kind          string            `json:"kind,omitempty"`
	Metadata      metav1.ObjectMeta `json:"metadata,omitempty"`
	GlobalValues  map[string]any    `json:"globalValues,omitempty"`
	Policies      []any             `json:"policies,omitempty"`
	NamespaceSels []struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"namespaceSelector,omitempty"`
	Namespaces   []corev1.Namespace `json:"namespaces,omitempty"`
	Subresources []any              `json:"subresources,omitempty"`
}

// kyvernoUserInfo is a userinfo file (kind UserInfo).
type kyvernoUserInfo struct {
	APIVersion   string            `json:"apiVersion,omitempty"`
	Kind         string            `json:"kind,omitempty"`
	Metadata     metav1.ObjectMeta `json:"metadata,omitempty"`
	Roles        []string          `json:"roles,omitempty"`
	ClusterRoles []string          `json:"clusterRoles,omitempty"`
	UserInfo     struct {
		Username string              `json:"username,omitempty"`
		UID      string              `json:"uid,omitempty"`
		Groups   []string            `json:"groups,omitempty"`
		Extra    map[string][]string `json:"extra,omitempty"`
	} `json:"userInfo"`
	Synchronize bool `json:"synchronize,omitempty"`
}

// isKyvernoTest tells whether a test file's first document is a Kyverno
// test: kind Test of Kyverno's groups, or the older form without
// apiVersion, which has results (kaptest's manifests have none).
func isKyvernoTest(probe map[string]any) bool {
	switch probe["apiVersion"] {
	case "cli.kyverno.io/v1alpha1", "kyverno.io/v1":
		return probe["kind"] == "Test"
	case nil:
		_, results := probe["results"]
		return probe["kind"] == nil && results
	}
	return false
}

// readKyvernoTests decodes the documents of a kyverno-test.yaml, strictly:
// a field Kyverno does not know is an error naming the file.
func readKyvernoTests(name string, data []byte) ([]kyvernoTest, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var tests []kyvernoTest
	for i, d := range docs {
		var t kyvernoTest
		if err := yaml.UnmarshalStrict(d, &t); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
		}
		switch {
		case t.APIVersion == "" && t.Kind == "":
		case (t.APIVersion == "cli.kyverno.io/v1alpha1" || t.APIVersion == "kyverno.io/v1") && t.Kind == "Test":
		default:
			return nil, fmt.Errorf("%s: document %d: unsupported kind %s %q: expected Test (cli.kyverno.io/v1alpha1)", name, i+1, t.Kind, t.APIVersion)
		}
		for j, r := range t.Results {
			if r.Policy == "" {
				return nil, fmt.Errorf("%s: document %d: results[%d]: no policy", name, i+1, j)
			}
			if r.result() == "" {
				return nil, fmt.Errorf("%s: document %d: results[%d]: no result", name, i+1, j)
			}
			switch r.result() {
			case "pass", "fail", "skip", "error", "warn":
			default:
				return nil, fmt.Errorf("%s: document %d: results[%d]: result %q: expected pass, fail, skip, error or warn", name, i+1, j, r.result())
			}
			switch op := strings.ToUpper(r.Operation); op {
			case "", "CREATE", "UPDATE", "DELETE":
			default:
				return nil, fmt.Errorf("%s: document %d: results[%d]: invalid operation %q, must be one of CREATE, UPDATE, DELETE", name, i+1, j, r.Operation)
			}
		}
		tests = append(tests, t)
	}
	return tests, nil
}

func (r *kyvernoResult) result() string {
	if r.Result != "" {
		return r.Result
	}
	return r.Status
}

// kyvernoKind is the Kyverno policy kind a result's flags name, if one of
// Kyverno's own.
func (r *kyvernoResult) kyvernoKind() string {
	switch {
	case r.IsValidatingPolicy:
		return "ValidatingPolicy"
	case r.IsMutatingPolicy:
		return "MutatingPolicy"
	case r.IsDeletingPolicy:
		return "DeletingPolicy"
	case r.IsImageValidatingPolicy:
		return "ImageValidatingPolicy"
	case r.IsGeneratingPolicy:
		return "GeneratingPolicy"
	}
	return ""
}

// readKyvernoFile decodes a values or userinfo file strictly into v.
func (a *app) readKyvernoFile(dir, path string, v any) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	in := readFile(path)
	if in.err != nil {
		return fmt.Errorf("%s: %w", path, in.err)
	}
	if err := yaml.UnmarshalStrict(in.data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// runKyvernoFile runs the results of a Kyverno test file.
func (a *app) runKyvernoFile(ctx context.Context, in input) testResult {
	res := testResult{File: in.name, Format: "kyverno", Cases: []caseOutcome{}}
	tests, err := readKyvernoTests(in.name, in.data)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	seen := map[string]int{}
	for _, t := range tests {
		cases, notes, err := a.runKyvernoTest(ctx, filepath.Dir(in.name), &t)
		res.Notes = append(res.Notes, notes...)
		if err != nil {
			res.Error = err.Error()
			return res
		}
		// Each case's name is unique in the file.
		for _, c := range cases {
			if n := seen[c.Name]; n > 0 {
				seen[c.Name]++
				c.Name = fmt.Sprintf("%s #%d", c.Name, n+1)
			} else {
				seen[c.Name] = 1
			}
			res.Cases = append(res.Cases, c)
		}
	}
	return res
}

// kyvernoWorld is a test's world with what its cases share.
type kyvernoWorld struct {
	*testWorld
	report    admitReport
	chain     *admission.Chain
	chainErr  error
	patched   map[string][]document
	user      *authenticationv1.UserInfo
	operation string
	// refusedParams are the params kube-apiserver refuses to store, and
	// why; bindUnbound is --bind-unbound.
	refusedParams []string
	bindUnbound   bool
	// kyvernoPolicies are the kinds (and apiVersions) of the policies of
	// Kyverno's own kinds in the policy files, by name.
	kyvernoPolicies map[string]string
}

func (a *app) runKyvernoTest(ctx context.Context, dir string, t *kyvernoTest) ([]caseOutcome, []string, error) {
	name := t.Metadata.Name
	if name == "" {
		name = t.Name
	}
	w, err := a.loadTestWorld(dir, t.Policies, t.Resources, t.ParamResources, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	// kubectl (and Kyverno) put an object of a namespaced kind without a
	// namespace in "default".
	kw := &kyvernoWorld{testWorld: w, patched: map[string][]document{}, bindUnbound: a.testBindUnbound, kyvernoPolicies: map[string]string{}}
	paths := make([]string, len(t.Policies))
	for i, p := range t.Policies {
		paths[i] = p
		if !filepath.IsAbs(p) {
			paths[i] = filepath.Join(dir, p)
		}
	}
	docs, _ := a.readDocuments(paths)
	for _, d := range docs {
		if g := d.object.GroupVersionKind().Group; g == "kyverno.io" || strings.HasSuffix(g, ".kyverno.io") {
			kw.kyvernoPolicies[d.object.GetName()] = fmt.Sprintf("%s (%s)", d.object.GetKind(), d.object.GetAPIVersion())
		}
	}
	// A param kube-apiserver cannot store (a ConfigMap's data not strings)
	// does not exist for its policies.
	params := w.params[:0]
	for _, d := range w.params {
		if err := storable(w.schemas, d.object); err != nil {
			kw.refusedParams = append(kw.refusedParams, err.Error())
			continue
		}
		params = append(params, d)
	}
	w.params = params
	values := t.Values
	if t.Variables != "" {
		values = &kyvernoValues{}
		if err := a.readKyvernoFile(dir, t.Variables, values); err != nil {
			return nil, nil, err
		}
	}
	if values != nil {
		// The namespaces the values label are the namespaces the
		// policies' namespaceSelectors and namespaceObject see.
		for _, ns := range values.NamespaceSels {
			o := &unstructured.Unstructured{}
			o.SetAPIVersion("v1")
			o.SetKind("Namespace")
			o.SetName(ns.Name)
			o.SetLabels(ns.Labels)
			w.namespaces = append(w.namespaces, document{source: t.Variables, object: o})
		}
		for i := range values.Namespaces {
			ns := values.Namespaces[i]
			ns.APIVersion, ns.Kind = "v1", "Namespace"
			obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&ns)
			if err != nil {
				return nil, nil, err
			}
			w.namespaces = append(w.namespaces, document{source: t.Variables, object: &unstructured.Unstructured{Object: obj}})
		}
		if op, ok := values.GlobalValues["request.operation"].(string); ok {
			kw.operation = op
		}
	}
	if t.UserInfo != "" {
		var u kyvernoUserInfo
		if err := a.readKyvernoFile(dir, t.UserInfo, &u); err != nil {
			return nil, nil, err
		}
		kw.user = (&testUser{Username: u.UserInfo.Username, Groups: u.UserInfo.Groups, Extra: u.UserInfo.Extra}).userInfo()
	}
	for _, r := range t.Results {
		for _, p := range []string{r.PatchedResources, r.PatchedResource} {
			if p == "" || kw.patched[p] != nil {
				continue
			}
			path := p
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			docs, problems := a.readDocuments([]string{path})
			if len(problems) > 0 {
				return nil, nil, errors.New(strings.Join(problems, "; "))
			}
			for _, d := range docs {
				w.scopes.inNamespace(d.object, w.namespace)
			}
			kw.patched[p] = docs
		}
	}
	var cfg admission.Config
	cfg, kw.chainErr = validConfig(w.kube, &w.maps, &w.vaps, a.testBindUnbound, &kw.report)
	if kw.chainErr == nil {
		kw.chain, kw.chainErr = admission.New(cfg, w.options())
	}
	var out []caseOutcome
	for i := range t.Results {
		out = append(out, a.kyvernoCases(ctx, kw, name, &t.Results[i])...)
	}
	for i, c := range t.Checks {
		co := caseOutcome{Name: fmt.Sprintf("%s: checks[%d]", name, i), Want: "assert", Skipped: true,
			SkipReason: "checks are assertion trees over Kyverno's engine responses, which kube-apiserver has no equivalent of: not evaluated (write them as results)"}
		if len(c.Error) > 0 {
			co.Want = "error"
		}
		out = append(out, co)
	}
	return out, w.notes, nil
}

// kyvernoCases are the cases of a result: one per resource it names (every
// resource of its kind when it names none).
func (a *app) kyvernoCases(ctx context.Context, w *kyvernoWorld, test string, r *kyvernoResult) []caseOutcome {
	want := r.result()
	policy := r.Policy
	if i := strings.LastIndex(policy, "/"); i >= 0 {
		policy = policy[i+1:]
	}
	op := strings.ToUpper(r.Operation)
	if op == "" {
		op = strings.ToUpper(w.operation)
	}
	refs, missing := w.kyvernoResources(r)
	prefix := test
	if prefix != "" {
		prefix += ": "
	}
	label := r.Policy
	if r.Rule != "" {
		label += "/" + r.Rule
	}
	caseName := func(ref *resourceRef) string {
		s := fmt.Sprintf("%s%s %s", prefix, label, ref.Kind)
		if ref.Namespace != "" {
			s += " " + ref.Namespace + "/" + ref.Name
		} else {
			s += " " + ref.Name
		}
		if r.Operation != "" {
			s += " (" + op + ")"
		}
		return s
	}
	var out []caseOutcome
	kind, native := w.nativeKind(r, policy)
	for _, m := range missing {
		co := caseOutcome{Name: fmt.Sprintf("%s%s %s %s", prefix, label, r.Kind, m), Want: want}
		if native {
			co.Failure = fmt.Sprintf("no %s %s in the test's resources", r.Kind, m)
		} else {
			co.Skipped, co.SkipReason = true, kind
		}
		out = append(out, co)
	}
	for _, ref := range refs {
		co := caseOutcome{Name: caseName(ref), Want: want}
		if !native {
			co.Skipped, co.SkipReason = true, kind
			out = append(out, co)
			continue
		}
		a.runKyvernoCase(ctx, w, kind, policy, op, ref, r, &co)
		if co.Passed {
			co.Trace = ""
		}
		out = append(out, co)
	}
	return out
}

// nativeKind is the kind of native policy a result is about, or, when it
// is not about one, why it is skipped.
func (w *kyvernoWorld) nativeKind(r *kyvernoResult, policy string) (string, bool) {
	if k := r.kyvernoKind(); k != "" {
		return fmt.Sprintf("a Kyverno %s (policies.kyverno.io): Kyverno's own policy kinds are out of gatehouse's scope", k), false
	}
	hasVAP, hasMAP := false, false
	for _, p := range w.vaps.Policies {
		hasVAP = hasVAP || p.Name == policy
	}
	for _, p := range w.maps.Policies {
		hasMAP = hasMAP || p.Name == policy
	}
	switch {
	case r.IsValidatingAdmissionPolicy || (hasVAP && !r.IsMutatingAdmissionPolicy):
		return "ValidatingAdmissionPolicy", true
	case r.IsMutatingAdmissionPolicy || hasMAP:
		return "MutatingAdmissionPolicy", true
	}
	if k, ok := w.kyvernoPolicies[policy]; ok {
		return fmt.Sprintf("a Kyverno %s: Kyverno's own policy kinds are out of gatehouse's scope", k), false
	}
	return "not a native admission policy of the test's policy files (a Kyverno policy, ClusterPolicy or Policy): Kyverno's own policy kinds are out of gatehouse's scope", false
}

// kyvernoResources are the resources a result names, and the names it
// gives that no resource has. A name is "name" or "namespace/name".
func (w *kyvernoWorld) kyvernoResources(r *kyvernoResult) ([]*resourceRef, []string) {
	names := append([]string{}, r.Resources...)
	if r.Resource != "" {
		names = append(names, r.Resource)
	}
	var refs []*resourceRef
	var missing []string
	add := func(o *unstructured.Unstructured) {
		gvk := o.GroupVersionKind()
		refs = append(refs, &resourceRef{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()})
	}
	for _, n := range names {
		ns, name, qualified := strings.Cut(n, "/")
		if !qualified {
			ns, name = r.Namespace, n
		}
		found := false
		for _, d := range w.resources {
			o := d.object
			if o.GetKind() == r.Kind && o.GetName() == name && (ns == "" || o.GetNamespace() == ns) {
				add(o)
				found = true
			}
		}
		if !found {
			missing = append(missing, n)
		}
	}
	for _, s := range r.ResourceSpecs {
		found := false
		for _, d := range w.resources {
			o := d.object
			gvk := o.GroupVersionKind()
			kind := s.Kind
			if kind == "" {
				kind = r.Kind
			}
			if gvk.Kind == kind && gvk.Group == s.Group && gvk.Version == s.Version && o.GetNamespace() == s.Namespace && o.GetName() == s.Name {
				add(o)
				found = true
			}
		}
		if !found {
			missing = append(missing, s.Namespace+"/"+s.Name)
		}
	}
	if len(names) == 0 && len(r.ResourceSpecs) == 0 {
		// Kyverno checks a result that names no resource on every one.
		for _, d := range w.resources {
			if d.object.GetKind() == r.Kind {
				add(d.object)
			}
		}
	}
	return refs, missing
}

// runKyvernoCase gives kube-apiserver's verdict on one resource for one
// policy of the result.
func (a *app) runKyvernoCase(ctx context.Context, w *kyvernoWorld, kind, policy, op string, ref *resourceRef, r *kyvernoResult, co *caseOutcome) {
	if w.chainErr != nil {
		co.Failure = w.chainErr.Error()
		return
	}
	found := false
	if kind == "ValidatingAdmissionPolicy" {
		for _, p := range w.vaps.Policies {
			found = found || p.Name == policy
		}
	} else {
		for _, p := range w.maps.Policies {
			found = found || p.Name == policy
		}
	}
	if !found {
		co.Failure = fmt.Sprintf("no %s %q in the test's policy files", kind, policy)
		return
	}
	var req *admission.Request
	var err error
	switch op {
	case "UPDATE":
		req, err = w.request(ref, ref, op, w.user)
	case "DELETE":
		req, err = w.request(nil, ref, op, w.user)
	default:
		req, err = w.request(ref, nil, "CREATE", w.user)
	}
	if err != nil {
		co.Failure = err.Error()
		return
	}
	some := req.Object
	if some == nil {
		some = req.OldObject
	}
	if err := storable(w.schemas, some); err != nil {
		co.Got = "error"
		co.Failure = fmt.Sprintf("kube-apiserver: error (%v: the request fails before admission), Kyverno expects %s", err, co.Want)
		co.Note = "Fix: make the resource valid for its kind"
		return
	}
	res, trace, aerr := w.chain.Explain(ctx, req)
	co.Trace = traceText(trace)
	var why string
	if kind == "ValidatingAdmissionPolicy" {
		co.Got, why = kyvernoVAPVerdict(trace, policy)
	} else {
		co.Got, why = kyvernoMAPVerdict(trace, policy)
	}
	var failures []string
	if co.Got != co.Want {
		msg := fmt.Sprintf("kube-apiserver: %s", co.Got)
		if why != "" {
			msg += " (" + why + ")"
		}
		failures = append(failures, msg+", Kyverno expects "+co.Want)
		co.Note = w.explainDifference(kind, policy, trace)
	}
	patched := r.PatchedResources
	if patched == "" {
		patched = r.PatchedResource
	}
	if co.Got == co.Want && patched != "" {
		if d := w.comparePatched(patched, ref, res, aerr); d != "" {
			failures = append(failures, d)
		}
	}
	co.Passed = len(failures) == 0
	co.Failure = strings.Join(failures, "; ")
}

// comparePatched compares the admitted object with the resource of the
// patched resources file of the same kind, namespace and name.
func (w *kyvernoWorld) comparePatched(file string, ref *resourceRef, res admission.Result, aerr error) string {
	var want *unstructured.Unstructured
	for _, d := range w.patched[file] {
		o := d.object
		if o.GetKind() == ref.Kind && o.GetNamespace() == ref.Namespace && o.GetName() == ref.Name {
			want = o.DeepCopy()
		}
	}
	switch {
	case want == nil:
		return fmt.Sprintf("%s has no %s", file, ref)
	case aerr != nil:
		return fmt.Sprintf("kube-apiserver denies the request (%s): no admitted object to compare with %s", statusMessage(aerr), file)
	case res.Object == nil:
		return "no admitted object"
	}
	gvk := want.GroupVersionKind()
	if d := yamlDiff(normalized(w.schemas, want.Object, gvk), normalized(w.schemas, res.Object.Object, gvk)); d != "" {
		return fmt.Sprintf("the admitted object differs from %s:\n%s", file, strings.TrimRight(d, "\n"))
	}
	return ""
}

// kyvernoVAPVerdict is kube-apiserver's verdict of one validating policy in
// Kyverno's terms: fail (a failed validation denies, or is audited), warn (it
// warns only), pass (the policy applied, every validation held), skip (not
// applied), error (its configuration or an expression failed); and why,
// when it is not pass.
func kyvernoVAPVerdict(t *admission.Trace, policy string) (string, string) {
	if t.ValidatingPolicies == nil {
		return "skip", "the request was denied before validation, by " + t.DeniedBy
	}
	for _, pt := range t.ValidatingPolicies.Policies {
		if pt.Policy != policy {
			continue
		}
		if pt.Err != nil {
			return "error", "the policy fails to configure: " + pt.Err.Error()
		}
		if !pt.Matched {
			return "skip", "its matchConstraints do not match the request: " + pt.Reason
		}
		got, why := "skip", "no binding matches the request"
		for _, bt := range pt.Bindings {
			switch {
			case bt.Err != nil:
				return "error", fmt.Sprintf("binding %s fails: %v", bt.Binding, bt.Err)
			case bt.NamespaceErr != nil:
				return "error", fmt.Sprintf("binding %s: %v", bt.Binding, bt.NamespaceErr)
			case !bt.Matched:
				if got == "skip" {
					why = fmt.Sprintf("binding %s does not match the request: %s", bt.Binding, bt.Reason)
				}
				continue
			}
			for _, it := range bt.Invocations {
				if it.Skipped {
					if got == "skip" {
						why = fmt.Sprintf("match condition %s is false", it.FailedCondition)
					}
					continue
				}
				if it.Err != "" {
					return "error", it.Err
				}
				if got == "skip" {
					got, why = "pass", ""
				}
				for _, v := range it.Validations {
					switch {
					case v.Error:
						return "error", v.Message
					case v.Passed:
					case hasAction(bt.Actions, admissionregistrationv1.Deny) || hasAction(bt.Actions, admissionregistrationv1.Audit):
						got, why = "fail", v.Message
					case got != "fail":
						got, why = "warn", v.Message
					}
				}
			}
		}
		return got, why
	}
	return "skip", "kube-apiserver applies no binding of the policy"
}

func hasAction(actions []admissionregistrationv1.ValidationAction, a admissionregistrationv1.ValidationAction) bool {
	for _, x := range actions {
		if x == a {
			return true
		}
	}
	return false
}

// kyvernoMAPVerdict is kube-apiserver's verdict of one mutating policy in
// Kyverno's terms: pass (its mutations applied), skip (not applied), error
// (its configuration or a mutation failed).
func kyvernoMAPVerdict(t *admission.Trace, policy string) (string, string) {
	if len(t.MutatingPolicies) == 0 {
		return "skip", "the mutating admission policies did not run"
	}
	for _, pt := range t.MutatingPolicies[0].Policies {
		if pt.Policy != policy {
			continue
		}
		if pt.Err != nil {
			return "error", "the policy fails to configure: " + pt.Err.Error()
		}
		if !pt.Matched {
			return "skip", "its matchConstraints do not match the request: " + pt.Reason
		}
		got, why := "skip", "no binding matches the request"
		for _, bt := range pt.Bindings {
			switch {
			case bt.Err != nil:
				return "error", fmt.Sprintf("binding %s fails: %v", bt.Binding, bt.Err)
			case !bt.Matched:
				if got == "skip" {
					why = fmt.Sprintf("binding %s does not match the request: %s", bt.Binding, bt.Reason)
				}
				continue
			}
			for _, it := range bt.Invocations {
				if it.Err != nil {
					return "error", it.Err.Error()
				}
				if !it.Ran {
					if got == "skip" {
						why = "not run: " + it.Skipped
						if it.FailedCondition != "" {
							why = fmt.Sprintf("match condition %s is false", it.FailedCondition)
						}
					}
					continue
				}
				for _, m := range it.Mutations {
					if m.Err != nil {
						return "error", m.Err.Error()
					}
				}
				got, why = "pass", ""
			}
		}
		return got, why
	}
	return "skip", "kube-apiserver applies no binding of the policy"
}

// explainDifference says why kube-apiserver's verdict differs from Kyverno's
// where Kyverno's model is the cause, and the fix: a policy that no binding
// binds, a policy or binding kube-apiserver's REST API refuses, a policy
// that reads several params at once.
func (w *kyvernoWorld) explainDifference(kind, policy string, t *admission.Trace) string {
	bindingKind := kind + "Binding"
	var notes []string
	for _, inv := range w.report.Invalid {
		if inv.Kind == kind && inv.Name == policy {
			notes = append(notes, fmt.Sprintf("kube-apiserver refuses the %s %s (%s), so it never applies it; Kyverno evaluates it regardless. Fix: %s.",
				kind, policy, strings.Join(inv.Errors, "; "), restFix(inv.Errors)))
		}
	}
	bindings, refused := w.bindingsOf(kind, policy), 0
	for _, b := range bindings {
		for _, inv := range w.report.Invalid {
			if inv.Kind == bindingKind && inv.Name == b {
				refused++
				notes = append(notes, fmt.Sprintf("kube-apiserver refuses the %s %s (%s), so it never applies it; Kyverno uses it regardless. Fix: %s.",
					bindingKind, b, strings.Join(inv.Errors, "; "), restFix(inv.Errors)))
			}
		}
	}
	if refused > 0 && refused == len(bindings) && w.bindUnbound {
		notes = append(notes, fmt.Sprintf("--bind-unbound binds the policy, left without a binding, to every request with a binding of gatehouse's (named %s-binding), without the paramRef of the file's.", policy))
	}
	for _, u := range w.report.Unbound {
		if u == kind+" "+policy && refused == 0 {
			fix := fmt.Sprintf("add a %s (policyName: %s", bindingKind, policy)
			if kind == "ValidatingAdmissionPolicy" {
				fix += ", validationActions: [Deny]"
			}
			notes = append(notes, fmt.Sprintf("no valid %s binds the %s %s: kube-apiserver never applies it, Kyverno evaluates it as if bound to every request. Fix: %s), or run gatehouse test --bind-unbound.",
				bindingKind, kind, policy, fix))
		}
	}
	if n := w.multiParam(kind, policy, t); n != "" {
		notes = append(notes, n)
	}
	for _, p := range w.refusedParams {
		notes = append(notes, p+": the policy's paramRef cannot find it. Fix: make the param valid for its kind (a ConfigMap's data values are strings: quote them).")
	}
	return strings.Join(notes, " ")
}

func (w *kyvernoWorld) bindingsOf(kind, policy string) []string {
	var names []string
	if kind == "ValidatingAdmissionPolicy" {
		for _, b := range w.vaps.Bindings {
			if b.Spec.PolicyName == policy {
				names = append(names, b.Name)
			}
		}
	} else {
		for _, b := range w.maps.Bindings {
			if b.Spec.PolicyName == policy {
				names = append(names, b.Name)
			}
		}
	}
	return names
}

// multiParam explains a policy whose binding selects several params and
// whose invocations failed: kube-apiserver runs the policy once per param,
// params being one object each time; Kyverno gives it the list of them.
func (w *kyvernoWorld) multiParam(kind, policy string, t *admission.Trace) string {
	var params []string
	failed := false
	if kind == "MutatingAdmissionPolicy" && len(t.MutatingPolicies) > 0 {
		for _, pt := range t.MutatingPolicies[0].Policies {
			if pt.Policy != policy {
				continue
			}
			for _, bt := range pt.Bindings {
				for _, it := range bt.Invocations {
					params = append(params, it.ParamNamespace+"/"+it.ParamName)
					failed = failed || it.Err != nil
					for _, m := range it.Mutations {
						failed = failed || m.Err != nil
					}
				}
			}
		}
	}
	if kind == "ValidatingAdmissionPolicy" && t.ValidatingPolicies != nil {
		for _, pt := range t.ValidatingPolicies.Policies {
			if pt.Policy != policy {
				continue
			}
			for _, bt := range pt.Bindings {
				for _, it := range bt.Invocations {
					params = append(params, it.ParamNamespace+"/"+it.ParamName)
					failed = failed || it.Err != ""
					for _, v := range it.Validations {
						failed = failed || v.Error
					}
				}
			}
		}
	}
	selector := false
	if kind == "MutatingAdmissionPolicy" {
		for _, b := range w.maps.Bindings {
			selector = selector || (b.Spec.PolicyName == policy && b.Spec.ParamRef != nil && b.Spec.ParamRef.Selector != nil)
		}
	} else {
		for _, b := range w.vaps.Bindings {
			selector = selector || (b.Spec.PolicyName == policy && b.Spec.ParamRef != nil && b.Spec.ParamRef.Selector != nil)
		}
	}
	if !failed || (!selector && len(params) < 2) {
		return ""
	}
	sort.Strings(params)
	return fmt.Sprintf("the binding's paramRef selects params by label (here %s): kube-apiserver runs the policy once per param, params being one object each time, so an expression that reads several at once (params.items[...]) fails; Kyverno hands the expressions all of them together. Fix: put the values in one param and name it (paramRef.name), or write one policy per param.",
		strings.Join(params, ", "))
}

// restFix is the fix of kube-apiserver's validation errors of a policy or
// binding.
func restFix(errs []string) string {
	var fixes []string
	for _, e := range errs {
		switch {
		case strings.Contains(e, "operations: Required value"):
			fixes = append(fixes, "list the operations of each resource rule (operations: [CREATE, UPDATE], or [\"*\"])")
		case strings.Contains(e, "validationActions: Required value"):
			fixes = append(fixes, "set the binding's validationActions (e.g. [Deny])")
		case strings.Contains(e, "parameterNotFoundAction: Required value"):
			fixes = append(fixes, "set the binding's paramRef.parameterNotFoundAction (Deny or Allow)")
		}
	}
	if len(fixes) == 0 {
		return "correct the fields the errors name"
	}
	return strings.Join(fixes, "; ")
}
