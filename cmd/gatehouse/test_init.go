package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/internal/policycheck"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// initKind is the kind a policy's test objects are of: the first one its
// matchConstraints name.
type initKind struct {
	gvk        schema.GroupVersionKind
	resource   schema.GroupVersionResource
	namespaced bool
	// wildcard tells that the policy names no kind (a "*" rule): the
	// objects are Pods to change.
	wildcard bool
}

// matchedKind is the first served kind of the rules.
func matchedKind(kinds *policycheck.Kinds, mc *admissionregistrationv1.MatchResources) initKind {
	pod := initKind{gvk: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, namespaced: true, wildcard: true}
	if mc == nil {
		return pod
	}
	for _, r := range mc.ResourceRules {
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					if res == "*" || strings.Contains(res, "/") {
						continue
					}
					for _, s := range kinds.Served() {
						if s.Subresource == "" && s.Resource == res && (g == "*" || s.Group == g) && (v == "*" || s.Version == v) && s.Default {
							return initKind{gvk: schema.GroupVersionKind{Group: s.KindGroup, Version: s.KindVersion, Kind: s.Kind},
								resource: schema.GroupVersionResource{Group: s.Group, Version: s.Version, Resource: s.Resource}, namespaced: s.Namespaced}
						}
					}
				}
			}
		}
	}
	return pod
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
	data, err := os.ReadFile(policyFile)
	if err != nil {
		fmt.Fprintf(a.stderr, "gatehouse: %v\n", err)
		return errInput
	}
	cfg, err := admission.Decode(data)
	if p := policyProblems(policyFile, err); len(p) > 0 {
		fmt.Fprintln(a.stderr, "gatehouse: "+strings.Join(p, "\ngatehouse: "))
		return errInput
	}
	if len(cfg.ValidatingPolicies)+len(cfg.MutatingPolicies) == 0 {
		fmt.Fprintf(a.stderr, "gatehouse: %s holds no ValidatingAdmissionPolicy or MutatingAdmissionPolicy\n", policyFile)
		return errInput
	}
	kinds := policycheck.NewKindsFor(a.kube)
	var objects []map[string]any
	var cases strings.Builder
	sample := func(policy, suffix string, k initKind) map[string]any {
		node, _ := kinds.Node(k.gvk)
		obj := policycheck.Sample(node, k.gvk, k.namespaced)
		meta := obj["metadata"].(map[string]any)
		meta["name"] = policy + "-" + suffix
		if k.namespaced {
			meta["namespace"] = a.namespace
		}
		objects = append(objects, obj)
		return obj
	}
	ref := func(k initKind, name string) string {
		r := fmt.Sprintf("{kind: %s", k.gvk.Kind)
		if k.gvk.Group != "" {
			r += ", group: " + k.gvk.Group
		}
		if k.namespaced {
			r += ", namespace: " + a.namespace
		}
		return r + ", name: " + name + "}"
	}
	note := func(k initKind) string {
		if k.wildcard {
			return "  # CHANGEME: the policy names no kind; a Pod stands in\n"
		}
		return ""
	}
	bound := map[string]bool{}
	for _, b := range cfg.MutatingPolicyBindings {
		bound[b.Spec.PolicyName] = true
	}
	for _, b := range cfg.ValidatingPolicyBindings {
		bound[b.Spec.PolicyName] = true
	}
	var mutated []*unstructured.Unstructured
	var mkinds []initKind
	for _, p := range cfg.MutatingPolicies {
		k := matchedKind(kinds, p.Spec.MatchConstraints)
		mutated = append(mutated, &unstructured.Unstructured{Object: sample(p.Name, "input", k)})
		mkinds = append(mkinds, k)
	}
	// The mutating policies' admitted objects are what gatehouse makes of
	// the samples now: a regression test to review.
	unbound := false
	for _, p := range cfg.ValidatingPolicies {
		unbound = unbound || !bound[p.Name]
	}
	for _, p := range cfg.MutatingPolicies {
		unbound = unbound || !bound[p.Name]
	}
	maps := mutation.Objects{Policies: cfg.MutatingPolicies, Bindings: cfg.MutatingPolicyBindings}
	vaps := validatingpolicy.Objects{Policies: cfg.ValidatingPolicies, Bindings: cfg.ValidatingPolicyBindings}
	var report admitReport
	config, err := validConfig(a.kube, &maps, &vaps, true, &report)
	var chain *admission.Chain
	if err == nil {
		chain, err = admission.New(config, admission.Options{Kube: a.kube, Params: mutation.NewParamObjects(newScopes(a.kube).clusterScoped)})
	}
	if err != nil {
		return err
	}
	for _, inv := range report.Invalid {
		fmt.Fprintf(a.stderr, "gatehouse: note: %s %s is invalid (kube-apiserver refuses it): %s\n", inv.Kind, inv.Name, strings.Join(inv.Errors, "; "))
	}
	admit := func(k initKind, obj map[string]any) (admission.Result, *admission.Trace, error) {
		in := &unstructured.Unstructured{Object: obj}
		req := &admission.Request{Operation: admissionv1.Create, Kind: k.gvk, Resource: k.resource, Name: in.GetName(), Namespace: in.GetNamespace(),
			Object: in.DeepCopy(), UserInfo: authenticationv1.UserInfo{Username: "gatehouse", Groups: []string{"system:authenticated"}}, Authorization: admission.Allowed()}
		return chain.Explain(context.Background(), req)
	}
	for _, p := range cfg.ValidatingPolicies {
		k := matchedKind(kinds, p.Spec.MatchConstraints)
		good := sample(p.Name, "good", k)
		sample(p.Name, "bad", k)
		_, trace, aerr := admit(k, good)
		o := policyOutcomes(trace)["ValidatingAdmissionPolicy/"+p.Name]
		applied := o != nil && o.applied
		fmt.Fprintf(&cases, "- name: %s admits a good %s\n%s", p.Name, k.gvk.Kind, note(k))
		if aerr != nil {
			fmt.Fprintf(&cases, "  # CHANGEME: the sample is denied now (%s): edit %s-good in %s so that the policy admits it\n",
				strings.ReplaceAll(statusMessage(aerr), "\n", " "), p.Name, filepath.Base(resources))
		}
		fmt.Fprintf(&cases, "  object: %s\n  expect: admit\n  policies: [{name: %s, kind: ValidatingAdmissionPolicy, applied: %t, verdict: admit}]\n",
			ref(k, p.Name+"-good"), p.Name, applied)
		fmt.Fprintf(&cases, "- name: %s denies a bad %s\n  # CHANGEME: edit %s-bad in %s so that the policy denies it\n  object: %s\n  expect: deny\n  message: CHANGEME\n  policies: [{name: %s, kind: ValidatingAdmissionPolicy, applied: true, verdict: deny}]\n",
			p.Name, k.gvk.Kind, p.Name, filepath.Base(resources), ref(k, p.Name+"-bad"), p.Name)
	}
	{
		for i, p := range cfg.MutatingPolicies {
			k := mkinds[i]
			res, trace, aerr := admit(k, mutated[i].Object)
			fmt.Fprintf(&cases, "- name: %s mutates a %s\n%s  object: %s\n", p.Name, k.gvk.Kind, note(k), ref(k, p.Name+"-input"))
			o := policyOutcomes(trace)["MutatingAdmissionPolicy/"+p.Name]
			applied, changed := o != nil && o.applied, o != nil && o.mutated
			if aerr != nil {
				fmt.Fprintf(&cases, "  # gatehouse denies the sample now: %s\n  expect: deny\n", strings.ReplaceAll(statusMessage(aerr), "\n", " "))
			} else {
				admitted := res.Object.DeepCopy()
				admitted.SetName(p.Name + "-admitted")
				objects = append(objects, admitted.Object)
				fmt.Fprintf(&cases, "  # the admitted object is what gatehouse makes of the sample now: review it\n  expect: admit\n  admitted: %s\n", ref(k, p.Name+"-admitted"))
			}
			fmt.Fprintf(&cases, "  policies: [{name: %s, kind: MutatingAdmissionPolicy, applied: %t, mutated: %t}]\n", p.Name, applied, changed)
		}
	}
	var suite strings.Builder
	fmt.Fprintf(&suite, "apiVersion: gatehouse.dev/v1alpha1\nkind: AdmissionTest\npolicies: [%s]\nresources: [%s]\n", filepath.Base(policyFile), filepath.Base(resources))
	withParams := false
	for _, p := range cfg.ValidatingPolicies {
		withParams = withParams || p.Spec.ParamKind != nil
	}
	for _, p := range cfg.MutatingPolicies {
		withParams = withParams || p.Spec.ParamKind != nil
	}
	if withParams {
		suite.WriteString("# CHANGEME: the policies take params (paramKind): name their files\nparams: []\n")
	}
	if unbound {
		suite.WriteString("# A policy of the file has no binding: kube-apiserver would apply it to\n# nothing. bindUnbound binds it to every request; add a binding instead.\nbindUnbound: true\n")
	}
	suite.WriteString("cases:\n" + cases.String())
	var docs []string
	for _, o := range objects {
		out, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		docs = append(docs, string(out))
	}
	if err := os.WriteFile(testFile, []byte(suite.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(resources, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s and %s\n", testFile, resources)
	return nil
}
