package conformance

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/gatehouse-dev/gatehouse/internal/policyworld"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// policyCheckTally counts, over policies run through kube-apiserver's
// dispatchers, those kube-apiserver fails on because of the policy (an
// error, not a validation's denial) and whether the check flags them, and
// the error findings on policies kube-apiserver never fails.
type policyCheckTally struct {
	policies, refused, failing, flagged, errorFindings, errorsOnNeverFailing int
	unflagged                                                                []string
}

// add counts a policy: failed when kube-apiserver's dispatcher failed on
// one of its requests. A policy with REST validation errors (rule
// invalid: kube-apiserver's REST API refuses it, as conformance/kubernetes
// shows of the validators) is counted as refused, and its other findings
// as those of a failing policy.
func (c *policyCheckTally) add(t *testing.T, name string, failed bool, findings []mutation.Finding) {
	t.Helper()
	c.policies++
	errs := 0
	for _, f := range findings {
		if f.Severity == mutation.SeverityError {
			errs++
		}
	}
	c.errorFindings += errs
	if slices.ContainsFunc(findings, func(f mutation.Finding) bool { return f.Rule == "invalid" }) {
		c.refused++
		if !failed {
			return
		}
	}
	if failed {
		t.Logf("fails in kube-apiserver: %s (%d findings, %d errors)", name, len(findings), errs)
		c.failing++
		if len(findings) > 0 {
			c.flagged++
		} else {
			c.unflagged = append(c.unflagged, name)
		}
	} else if errs > 0 {
		c.errorsOnNeverFailing += errs
		t.Errorf("%s: %d error findings, and kube-apiserver never fails on it", name, errs)
	}
}

// findingsOf returns the findings on a policy (and its bindings' params
// findings), the unbound-policy ones left out (the worlds bind every
// policy).
func findingsOf(all []mutation.Finding, kind, name string) []mutation.Finding {
	var out []mutation.Finding
	for _, f := range all {
		if f.Kind == kind && f.Name == name && f.Rule != "unbound-policy" {
			out = append(out, f)
		}
	}
	return out
}

var mdPolicyInError = regexp.MustCompile(`policy "([^"]+)"|MutatingAdmissionPolicy '([^']+)'`)

// TestPolicyCheckCounts runs the policy check over the real-world
// policies and gatehouse's own corpus (policyCheckCorpus), each through
// kube-apiserver's dispatcher on its objects, and counts: the policies
// kube-apiserver fails on because of the policy that the check flags
// (target: all), and the error findings on policies it never fails
// (target: 0, asserted). go test -run TestPolicyCheckCounts -v prints them.
func TestPolicyCheckCounts(t *testing.T) {
	var tally policyCheckTally

	// Real-world MutatingAdmissionPolicies, on the requests of
	// TestMutationDispatchRealWorldKubeVerdicts.
	ctx := context.Background()
	for _, w := range mdRealworldWorlds(t) {
		policies, bindings, objects := mdLoad(t, &w)
		k := newKubeMAP(t, policies, bindings, objects...)
		failed := map[string]bool{}
		for i := range w.requests {
			err := k.admit(ctx, mdKubeAttributes(t, &w.requests[i]))
			if err == nil {
				continue
			}
			named := false
			for _, m := range mdPolicyInError.FindAllStringSubmatch(err.Error(), -1) {
				failed[m[1]+m[2]], named = true, true
			}
			if !named {
				for _, p := range policies {
					failed[p.Name] = true
				}
			}
		}
		objs, err := mutation.Decode([]byte(w.policies))
		require.NoError(t, err, w.name)
		params := []*unstructured.Unstructured{}
		for _, o := range objects {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
			require.NoError(t, err)
			params = append(params, &unstructured.Unstructured{Object: u})
		}
		findings, err := mutation.Check(objs, mutation.CheckOptions{Params: params})
		require.NoError(t, err)
		findings = append(findings, mdRESTFindings(t, objs)...)
		for _, p := range policies {
			tally.add(t, w.name+"/"+p.Name, failed[p.Name], findingsOf(findings, "MutatingAdmissionPolicy", p.Name))
		}
	}

	// Real-world ValidatingAdmissionPolicies, on their own objects: an
	// outcome denied by an error decision (not a validation that is false)
	// is a failure of the policy.
	worlds, err := policyworld.LoadAll("../validatingpolicy/testdata/realworld")
	require.NoError(t, err)
	errorDecision := regexp.MustCompile(`ValidatingAdmissionPolicy '([^']+)'[^:]*: (.*(resulted in error|compilation failed|failed to|no such key|running out).*)`)
	for _, w := range worlds {
		want := kubeVerdicts(t, w)
		failed := map[string]bool{}
		for _, o := range want.Outcomes {
			if m := errorDecision.FindStringSubmatch(o.Denied); m != nil {
				failed[m[1]] = true
			}
		}
		var params []*unstructured.Unstructured
		for i := range w.Objects {
			params = append(params, w.Objects[i].Object)
		}
		if params == nil {
			params = []*unstructured.Unstructured{}
		}
		findings, err := validatingpolicy.Check(&validatingpolicy.Objects{Policies: w.Policies, Bindings: w.Bindings}, validatingpolicy.CheckOptions{Params: params})
		require.NoError(t, err)
		// The built Deployments too, through every policy bound: the
		// published objects do not reach every policy.
		kube := newKubeVAP(t, w.Policies, bindEvery(w.Policies, w.Bindings), false, checkNamespace())
		for _, d := range checkDeployments() {
			err := kube.validate(admission.NewAttributesRecord(d.DeepCopy(), nil, deploymentGVK, d.Namespace, d.Name, deploymentGVR, "", admission.Create, nil, false, checkUser)).err
			if err == nil {
				continue
			}
			if m := errorDecision.FindStringSubmatch(err.Error()); m != nil {
				failed[m[1]] = true
			}
		}
		for _, p := range w.Policies {
			tally.add(t, w.Name+"/"+p.Name, failed[p.Name], findingsOf(findings, "ValidatingAdmissionPolicy", p.Name))
		}
	}

	// The corpus: every policy on the bare and the full Deployment.
	alice, gvk, gvr := checkUser, deploymentGVK, deploymentGVR
	for _, c := range policyCheckCorpus {
		failed := false
		var findings []mutation.Finding
		if v, err := validatingpolicy.Decode([]byte(c.doc)); err == nil && len(v.Policies) > 0 {
			findings, err = validatingpolicy.Check(v, validatingpolicy.CheckOptions{})
			require.NoError(t, err)
			kube := newKubeVAP(t, v.Policies, v.Bindings, false, checkNamespace())
			for _, d := range checkDeployments() {
				if kube.validate(admission.NewAttributesRecord(d, nil, gvk, d.Namespace, d.Name, gvr, "", admission.Create, nil, false, alice)).err != nil {
					failed = true
				}
			}
		} else {
			m, err := mutation.Decode([]byte(c.doc))
			require.NoError(t, err)
			findings, err = mutation.Check(m, mutation.CheckOptions{})
			require.NoError(t, err)
			kube := newKubeMAP(t, m.Policies, m.Bindings, checkNamespace())
			for _, d := range checkDeployments() {
				if kube.admit(ctx, admission.NewAttributesRecord(d, nil, gvk, d.Namespace, d.Name, gvr, "", admission.Create, nil, false, alice)) != nil {
					failed = true
				}
			}
		}
		tally.add(t, "corpus/"+c.name, failed, findingsOf(findings, findingsKind(findings), "p"))
	}

	t.Logf("%d policies through kube-apiserver's dispatchers: %d refused by its REST API (flagged: rule invalid); %d fail at admission because of the policy, %d of them flagged by the check (not flagged: %v); %d error findings, %d on policies kube-apiserver never fails or refuses",
		tally.policies, tally.refused, tally.failing, tally.flagged, tally.unflagged, tally.errorFindings, tally.errorsOnNeverFailing)
	assert.Zero(t, tally.errorsOnNeverFailing)
}

// findingsKind is the policy kind of a corpus case's findings.
func findingsKind(findings []mutation.Finding) string {
	for _, f := range findings {
		if f.Kind == "MutatingAdmissionPolicy" || f.Kind == "ValidatingAdmissionPolicy" {
			return f.Kind
		}
	}
	return ""
}

var (
	checkUser     = &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"devs"}}
	deploymentGVK = appsv1.SchemeGroupVersion.WithKind("Deployment")
	deploymentGVR = appsv1.SchemeGroupVersion.WithResource("deployments")
)

// bindEvery returns bindings with one more, Deny, for every policy that has
// none.
func bindEvery(policies []*admissionregistrationv1.ValidatingAdmissionPolicy, bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding) []*admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	out := slices.Clone(bindings)
	for _, p := range policies {
		if !slices.ContainsFunc(bindings, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) bool {
			return b.Spec.PolicyName == p.Name
		}) {
			out = append(out, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
				ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-bound"},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: p.Name,
					ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
			})
		}
	}
	return out
}

// mdRESTFindings are kube-apiserver's REST validation errors of the
// policies, as gatehouse lint reports them (rule invalid).
func mdRESTFindings(t *testing.T, objs *mutation.Objects) []mutation.Finding {
	v, err := mutation.NewValidator(mutation.ValidatorOptions{})
	require.NoError(t, err)
	var out []mutation.Finding
	for _, p := range objs.Policies {
		for _, e := range v.ValidateMutatingAdmissionPolicy(p, nil) {
			out = append(out, mutation.Finding{Severity: mutation.SeverityError, Rule: "invalid", Kind: "MutatingAdmissionPolicy", Name: p.Name, Field: e.Field, Message: e.ErrorBody()})
		}
	}
	return out
}
