package main

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/gatehouse-dev/gatehouse/admission"
)

// valid tells whether a case says what it expects, in words gatehouse
// knows.
func (tc *testCase) valid() error {
	switch tc.Expect {
	case "", "admit", "deny":
	default:
		return fmt.Errorf("expect is admit or deny, not %q (a policy that does not apply: policies: [{name: ..., applied: false}])", tc.Expect)
	}
	if tc.Expect == "" && tc.Policies == nil && tc.Admitted == nil && tc.Warnings == nil && tc.Message == "" {
		return errors.New("the case expects nothing: set expect, policies, admitted, warnings or message")
	}
	for _, p := range tc.Policies {
		if p.Name == "" {
			return errors.New("a policy expectation needs the policy's name")
		}
		switch p.Kind {
		case "", "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
		default:
			return fmt.Errorf("policy %s: kind is ValidatingAdmissionPolicy or MutatingAdmissionPolicy, not %q", p.Name, p.Kind)
		}
		switch p.Verdict {
		case "", "admit", "deny":
		default:
			return fmt.Errorf("policy %s: verdict is admit or deny, not %q", p.Name, p.Verdict)
		}
	}
	return nil
}

// policyOutcome is what one policy did with a request, from the chain's
// trace.
type policyOutcome struct {
	kind    string
	applied bool
	denied  bool
	mutated bool
}

// policyOutcomes gathers each policy's outcome over the chain's passes.
func policyOutcomes(t *admission.Trace) map[string]*policyOutcome {
	out := map[string]*policyOutcome{}
	get := func(kind, name string) *policyOutcome {
		k := kind + "/" + name
		if out[k] == nil {
			out[k] = &policyOutcome{kind: kind}
		}
		return out[k]
	}
	if t == nil {
		return out
	}
	for _, pass := range t.MutatingPolicies {
		for _, pt := range pass.Policies {
			o := get("MutatingAdmissionPolicy", pt.Policy)
			if pt.Err != nil && t.DeniedBy == admission.PluginMutatingAdmissionPolicy {
				o.denied = true
			}
			for _, bt := range pt.Bindings {
				for _, it := range bt.Invocations {
					if it.Ran && it.Skipped == "" {
						o.applied = true
					}
					if it.Err != nil && t.DeniedBy == admission.PluginMutatingAdmissionPolicy {
						o.denied = true
					}
					for _, mt := range it.Mutations {
						o.mutated = o.mutated || len(mt.Changed) > 0
					}
				}
			}
		}
	}
	if vt := t.ValidatingPolicies; vt != nil {
		for _, pt := range vt.Policies {
			o := get("ValidatingAdmissionPolicy", pt.Policy)
			for _, bt := range pt.Bindings {
				for _, it := range bt.Invocations {
					if !it.Skipped && (it.Err == "" || it.Denied) {
						o.applied = true
					}
					o.denied = o.denied || it.Denied
					for _, v := range it.Validations {
						o.denied = o.denied || v.Denied
					}
				}
			}
		}
	}
	return out
}

// checkPolicies compares a case's policy expectations with the trace; the
// warnings of a policy are those of the request that name it (kube-apiserver
// words a validating policy's warning "Validation failed for
// ValidatingAdmissionPolicy '<name>' ...").
func checkPolicies(w *testWorld, t *admission.Trace, warnings []string, exps []policyExpectation) []string {
	if len(exps) == 0 {
		return nil
	}
	outcomes := policyOutcomes(t)
	var failures []string
	for _, e := range exps {
		kind, err := w.policyKind(e)
		if err != nil {
			failures = append(failures, err.Error())
			continue
		}
		o := outcomes[kind+"/"+e.Name]
		if o == nil {
			o = &policyOutcome{kind: kind}
		}
		what := kind + " " + e.Name
		if e.Applied != nil && *e.Applied != o.applied {
			if o.applied {
				failures = append(failures, what+" applied, want not applied")
			} else {
				failures = append(failures, what+" did not apply, want applied"+w.whyNotApplied(kind, e.Name))
			}
		}
		if e.Verdict != "" {
			got := "admit"
			if o.denied {
				got = "deny"
			}
			if got != e.Verdict {
				failures = append(failures, fmt.Sprintf("%s: verdict %s, want %s", what, got, e.Verdict))
			}
		}
		if e.Mutated != nil && *e.Mutated != o.mutated {
			failures = append(failures, fmt.Sprintf("%s: mutated %t, want %t", what, o.mutated, *e.Mutated))
		}
		if e.Warnings != nil {
			var own []string
			for _, wn := range warnings {
				if strings.Contains(wn, "ValidatingAdmissionPolicy '"+e.Name+"'") {
					own = append(own, wn)
				}
			}
			if !reflect.DeepEqual(own, e.Warnings) && !(len(own) == 0 && len(e.Warnings) == 0) {
				failures = append(failures, fmt.Sprintf("%s: warnings %q, want %q", what, own, e.Warnings))
			}
		}
	}
	return failures
}

// policyKind is the kind of the policy an expectation names.
func (w *testWorld) policyKind(e policyExpectation) (string, error) {
	var kinds []string
	for _, p := range w.vaps.Policies {
		if p.Name == e.Name {
			kinds = append(kinds, "ValidatingAdmissionPolicy")
			break
		}
	}
	for _, p := range w.maps.Policies {
		if p.Name == e.Name {
			kinds = append(kinds, "MutatingAdmissionPolicy")
			break
		}
	}
	if e.Kind != "" {
		for _, k := range kinds {
			if k == e.Kind {
				return k, nil
			}
		}
		return "", fmt.Errorf("no %s %q in the test file's policies", e.Kind, e.Name)
	}
	switch len(kinds) {
	case 0:
		return "", fmt.Errorf("no policy %q in the test file's policies", e.Name)
	case 1:
		return kinds[0], nil
	}
	return "", fmt.Errorf("policies of both kinds are named %q: say which with kind", e.Name)
}

// whyNotApplied says why a policy that never ran could not: no binding, or
// a binding kube-apiserver refuses.
func (w *testWorld) whyNotApplied(kind, name string) string {
	bound := false
	if kind == "ValidatingAdmissionPolicy" {
		bound = boundValidating(w.vaps.Bindings, name)
	} else {
		bound = boundMutating(w.maps.Bindings, name)
	}
	if !bound {
		return " (no binding binds it: kube-apiserver applies no policy without one; add one, or bindUnbound: true)"
	}
	return ""
}
