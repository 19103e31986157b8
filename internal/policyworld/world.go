// Package policyworld reads a directory of published ValidatingAdmissionPolicy
// manifests (policies, bindings, params, namespaces and the objects their
// tests admit) as one cluster, for the tests that give each file
// kube-apiserver's verdict: package validatingpolicy's, and the
// differential test in conformance that checks the verdicts against
// kube-apiserver.
package policyworld

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/internal/manifest"
	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
)

// World is the objects of one scenario's files as a cluster holds them.
type World struct {
	// Name names the scenario; Static is set for static manifests, loaded
	// as kube-apiserver loads a ValidatingAdmissionPolicy manifests
	// directory.
	Name   string
	Static bool
	// namespace is where objects without one are created;
	// namespaceLabels are the labels of namespaces the scenario sets up.
	namespace       string
	namespaceLabels map[string]map[string]string
	// Policies and Bindings are the ValidatingAdmissionPolicies and
	// bindings kube-apiserver's REST API accepts on create, in file order.
	Policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	Bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	// Invalid are those it refuses ("<file>: <Kind> <name>: <errors>"),
	// and the documents that do not decode ("<file>: <error>").
	Invalid []string
	// Objects are every other object (namespaces, params, targets), in
	// file order, with the file each comes from.
	Objects []Object
}

// Object is one object of a file.
type Object struct {
	File   string
	Object *unstructured.Unstructured
}

// Scenario is published files that belong together (a policy, its
// bindings, params and test objects), and what their sources' tests set up
// around them.
type Scenario struct {
	Files []string
	// Namespace is where objects without a namespace are created; empty is
	// "default".
	Namespace string
	// NamespaceLabels are labels the source's test gives namespaces.
	NamespaceLabels map[string]map[string]string
	// BindUnbound binds each policy that has no binding (with Deny, no
	// matchResources), as the source's tool evaluates a policy alone.
	BindUnbound bool
}

// Scenarios are the published scenarios, by name; a file in none is a
// scenario of its own. Files named "*static-*" are static manifests.
var Scenarios = map[string]Scenario{
	"authorino":                  {Files: []string{"Kuadrant__authorino__preventing-privilege-escalation-authconfig-apikey-all-namespaces.yaml", "Kuadrant__authorino__preventing-privilege-escalation-vap.yaml"}},
	"kolteq-hostpath":            {Files: []string{"kolteq__validating-admission-policies-pss__hostpath-volumes-binding.yaml", "kolteq__validating-admission-policies-pss__hostpath-volumes-policy.yaml", "kolteq__validating-admission-policies-pss__hostpath-volumes-test.yaml"}, NamespaceLabels: map[string]map[string]string{"policy-test": {"pss.security.kolteq.com/enforce": "restricted", "pss.security.kolteq.com/audit": "restricted", "pss.security.kolteq.com/warn": "restricted"}}},
	"website-basic":              {Files: []string{"kubernetes__website__basic-example-binding.yaml", "kubernetes__website__basic-example-policy.yaml"}},
	"website-params":             {Files: []string{"kubernetes__website__policy-with-param.yaml", "kubernetes__website__binding-with-param.yaml", "kubernetes__website__binding-with-param-prod.yaml", "kubernetes__website__replicalimit-param.yaml"}},
	"website-blog":               {Files: []string{"kubernetes__website__blog-vap-ga-policy-optional-variables.yaml", "kubernetes__website__blog-vap-ga-binding-warn.yaml", "kubernetes__website__blog-vap-ga-deployment.yaml", "kubernetes__website__blog-vap-alpha-binding-test.yaml"}, Namespace: "policy-test"},
	"website-blog-typo":          {Files: []string{"kubernetes__website__blog-vap-ga-policy-privileged-typo.yaml", "kubernetes__website__blog-vap-ga-binding-warn.yaml", "kubernetes__website__blog-vap-ga-deployment.yaml"}, Namespace: "policy-test"},
	"website-installer-csr":      {Files: []string{"kubernetes__website__installer-csr-delegation-binding.yaml", "kubernetes__website__installer-csr-delegation-policy.yaml", "kubernetes__website__installer-csr-invalid-delegated-clusterrole.yaml", "kubernetes__website__installer-csr-params-configmap.yaml", "kubernetes__website__installer-csr-policy.yaml", "kubernetes__website__installer-csr-specific-delegated-clusterrole.yaml"}},
	"kubescape":                  {Files: []string{"kubescape__cel-admission-library__basic-control-configuration.yaml", "kubescape__cel-admission-library__c-0046-insecure-capabilities-policy.yaml", "kubescape__cel-admission-library__policy-configuration-definition-crd.yaml", "kubescape__cel-admission-library__test-pod-capabilities.yaml", "kubescape__cel-admission-library__test-policy-binding.yaml"}},
	"kyverno-exception":          {Files: []string{"kyverno__kyverno__generated-vap-cpol-with-an-exception-binding.yaml", "kyverno__kyverno__generated-vap-cpol-with-an-exception.yaml"}},
	"kyverno-match-namespaces":   {Files: []string{"kyverno__kyverno__vap-match-namespaces-policy.yaml", "kyverno__kyverno__vap-match-namespaces-resources.yaml"}},
	"kyverno-bindings-3":         {Files: []string{"kyverno__kyverno__vap-with-bindings-3-deployment1.yaml", "kyverno__kyverno__vap-with-bindings-3-deployment3.yaml", "kyverno__kyverno__vap-with-bindings-3-policy.yaml"}, NamespaceLabels: map[string]map[string]string{"testing": {"environment": "testing"}, "production": {"environment": "production"}}},
	"kyverno-match-conditions":   {Files: []string{"kyverno__kyverno__vap-with-match-conditions-policy.yaml", "kyverno__kyverno__vap-with-match-conditions-resources.yaml"}, BindUnbound: true},
	"kyverno-params":             {Files: []string{"kyverno__kyverno__vap-with-params-cm.yaml", "kyverno__kyverno__vap-with-params-deployment1.yaml", "kyverno__kyverno__vap-with-params-deployment2.yaml", "kyverno__kyverno__vap-with-params-policy.yaml"}},
	"kaptest-complicated":        {Files: []string{"pfnet__kaptest__complicated-policy-namespace.yaml", "pfnet__kaptest__complicated-policy-params.yaml", "pfnet__kaptest__complicated-policy-resources.yaml", "pfnet__kaptest__complicated-policy.yaml"}},
	"kaptest-standard-resources": {Files: []string{"pfnet__kaptest__vap-standard-resources-resources.yaml", "pfnet__kaptest__vap-standard-resources.yaml"}},
}

// LoadAll reads the .yaml files of dir as scenarios, sorted by name: those
// of Scenarios, and one for each other file.
func LoadAll(dir string) ([]*World, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	grouped := map[string]bool{}
	scenarios := map[string]Scenario{}
	for name, sc := range Scenarios {
		scenarios[name] = sc
		for _, f := range sc.Files {
			grouped[f] = true
		}
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") && !grouped[e.Name()] {
			scenarios[strings.TrimSuffix(e.Name(), ".yaml")] = Scenario{Files: []string{e.Name()}}
		}
	}
	var out []*World
	for _, name := range slices.Sorted(maps.Keys(scenarios)) {
		w, err := Load(name, dir, scenarios[name])
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// Load reads the files of one scenario as kubectl create would create their
// objects: a policy or binding whose name was already created is refused
// (already exists), and so is one that the REST API refuses; a namespaced
// object without a namespace goes to the scenario's namespace. A static
// scenario's file is loaded as kube-apiserver loads a static manifests
// directory.
func Load(name, dir string, sc Scenario) (*World, error) {
	w := &World{Name: name, namespace: sc.Namespace, namespaceLabels: sc.NamespaceLabels}
	if w.namespace == "" {
		w.namespace = "default"
	}
	files := sc.Files
	if len(files) == 1 && strings.Contains(files[0], "static-") {
		return w, w.loadStatic(filepath.Join(dir, files[0]))
	}
	v, err := admissionmanifest.NewValidator(admissionmanifest.Options{})
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		// A document that does not decode is refused, as kubectl refuses
		// it: the file's other documents are still read.
		if err := w.add(f, data, v); err != nil {
			for _, e := range flatten(err) {
				w.Invalid = append(w.Invalid, fmt.Sprintf("%s: %v", f, e))
			}
		}
	}
	if sc.BindUnbound {
		w.bindUnbound()
	}
	return w, nil
}

// bindUnbound adds a Deny binding of every policy that has none.
func (w *World) bindUnbound() {
	for _, p := range w.Policies {
		if slices.ContainsFunc(w.Bindings, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) bool {
			return b.Spec.PolicyName == p.Name
		}) {
			continue
		}
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		b.Name, b.Spec.PolicyName = p.Name+"-binding", p.Name
		b.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
		w.Bindings = append(w.Bindings, b)
	}
}

// loadStatic loads a static manifest file alone in a directory.
func (w *World) loadStatic(file string) error {
	w.Static = true
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "policyworld")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(file)), data, 0o644); err != nil {
		return err
	}
	m, err := admissionmanifest.Load(admissionmanifest.ValidatingAdmissionPolicy, dir, admissionmanifest.LoadOptions{})
	if err != nil {
		w.Invalid = append(w.Invalid, strings.ReplaceAll(err.Error(), dir, "<dir>"))
		return nil
	}
	w.Policies, w.Bindings = m.ValidatingAdmissionPolicies(), m.ValidatingAdmissionPolicyBindings()
	return nil
}

func (w *World) add(file string, data []byte, v *admissionmanifest.Validator) error {
	const group = admissionregistrationv1.GroupName
	gk := manifest.GroupKinds{Group: group, Versions: []string{"v1", "v1beta1", "v1alpha1"}, Kinds: []string{"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}}
	var errs []error
	err := manifest.TypedObjects(data, gk, func(apiVersion, kind string) error { return errOtherKind }, func(kind, version string, doc []byte) error {
		switch kind {
		case "ValidatingAdmissionPolicy":
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
			if err := manifest.UnmarshalStrict(doc, p); err != nil {
				return err
			}
			p.Namespace = ""
			admissionmanifest.SetDefaultsValidatingAdmissionPolicy(p)
			if fe, _ := v.ValidateValidatingAdmissionPolicy(p, nil); len(fe) > 0 {
				w.Invalid = append(w.Invalid, fmt.Sprintf("%s: %s %s: %v", file, kind, p.Name, fe.ToAggregate()))
				return nil
			}
			if slices.ContainsFunc(w.Policies, func(o *admissionregistrationv1.ValidatingAdmissionPolicy) bool { return o.Name == p.Name }) {
				w.Invalid = append(w.Invalid, fmt.Sprintf("%s: %s %s: already exists", file, kind, p.Name))
				return nil
			}
			w.Policies = append(w.Policies, p)
		default:
			b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			if err := manifest.UnmarshalStrict(doc, b); err != nil {
				return err
			}
			b.Namespace = ""
			admissionmanifest.SetDefaultsValidatingAdmissionPolicyBinding(b)
			if version == "v1alpha1" && b.Spec.ParamRef != nil && b.Spec.ParamRef.ParameterNotFoundAction == nil {
				b.Spec.ParamRef.ParameterNotFoundAction = new(admissionregistrationv1.DenyAction)
			}
			if fe, _ := v.ValidateValidatingAdmissionPolicyBinding(b, nil); len(fe) > 0 {
				w.Invalid = append(w.Invalid, fmt.Sprintf("%s: %s %s: %v", file, kind, b.Name, fe.ToAggregate()))
				return nil
			}
			if slices.ContainsFunc(w.Bindings, func(o *admissionregistrationv1.ValidatingAdmissionPolicyBinding) bool { return o.Name == b.Name }) {
				w.Invalid = append(w.Invalid, fmt.Sprintf("%s: %s %s: already exists", file, kind, b.Name))
				return nil
			}
			w.Bindings = append(w.Bindings, b)
		}
		return nil
	})
	// Documents of other kinds are the objects.
	manifest.Documents(data, func(_ int, doc []byte, derr error) {
		if derr != nil {
			return
		}
		var obj map[string]any
		if yaml.Unmarshal(doc, &obj) != nil || obj == nil {
			return
		}
		w.addObject(file, obj)
	})
	for _, e := range flatten(err) {
		if !errors.Is(e, errOtherKind) {
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}

var errOtherKind = errors.New("other kind")

// addObject adds an object of another kind than the policies' (the items
// of a List one by one).
func (w *World) addObject(file string, obj map[string]any) {
	u := &unstructured.Unstructured{Object: obj}
	if u.GetKind() == "List" {
		items, _ := obj["items"].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				w.addObject(file, m)
			}
		}
		return
	}
	if g := u.GroupVersionKind().Group; g == admissionregistrationv1.GroupName && slices.Contains([]string{"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}, u.GetKind()) {
		return
	}
	if u.GetKind() == "" || u.GetAPIVersion() == "" {
		return
	}
	// An object its Go type does not take is refused before admission.
	if gvk := u.GroupVersionKind(); mutationpatch.IsBuiltin(gvk) {
		if _, err := mutationpatch.Normalize(u.Object, gvk, true); err != nil {
			w.Invalid = append(w.Invalid, fmt.Sprintf("%s: %s %s: %v", file, u.GetKind(), u.GetName(), err))
			return
		}
	}
	if u.GetNamespace() == "" && !clusterScoped[u.GetKind()] {
		u.SetNamespace(w.namespace)
	}
	w.Objects = append(w.Objects, Object{File: file, Object: u})
}

func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// Resource is the resource of a kind: its lower-case plural.
func Resource(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "y") && !strings.HasSuffix(k, "ey"):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "s"):
		return k + "es"
	}
	return k + "s"
}

// clusterScoped are the cluster-scoped kinds the published files hold;
// every other kind is taken as namespaced.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"CustomResourceDefinition": true, "PersistentVolume": true, "StorageClass": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
	"MutatingAdmissionPolicy": true, "MutatingAdmissionPolicyBinding": true,
}
