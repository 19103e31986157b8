package kubernetes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
)

// The differential test of the REST validation of MutatingAdmissionPolicy
// and its binding: a generated corpus, and the published policies.

func mapBase() *admissionregistrationv1.MutatingAdmissionPolicy {
	fail := admissionregistrationv1.Fail
	return &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "sidecar.example.com"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				}}},
			},
			FailurePolicy:      &fail,
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"a": "b"}}}`},
			}},
		},
	}
}

// mapMutations are changes to a valid policy, each exercising rules of the
// validation (several make it invalid).
func mapMutations() []func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
	ac := func(e string) admissionregistrationv1.Mutation {
		return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: e}}
	}
	jp := func(e string) admissionregistrationv1.Mutation {
		return admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: e}}
	}
	setMutation := func(m admissionregistrationv1.Mutation) func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = []admissionregistrationv1.Mutation{m}
		}
	}
	addMutation := func(m admissionregistrationv1.Mutation) func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.Mutations = append(p.Spec.Mutations, m)
		}
	}
	vars := func(vs ...string) func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			for i := 0; i+1 < len(vs); i += 2 {
				p.Spec.Variables = append(p.Spec.Variables, admissionregistrationv1.Variable{Name: vs[i], Expression: vs[i+1]})
			}
		}
	}
	op := func(ops ...admissionregistrationv1.OperationType) func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		return func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			if hasRule(p) {
				p.Spec.MatchConstraints.ResourceRules[0].Operations = ops
			}
		}
	}
	return []func(p *admissionregistrationv1.MutatingAdmissionPolicy){
		func(*admissionregistrationv1.MutatingAdmissionPolicy) {},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Name = "Bad_Name" },
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.FailurePolicy = nil },
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			x := admissionregistrationv1.FailurePolicyType("Sometimes")
			p.Spec.FailurePolicy = &x
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.MatchConstraints = nil },
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.MatchConstraints.ResourceRules = nil },
		op(admissionregistrationv1.Delete),
		op(admissionregistrationv1.Create, admissionregistrationv1.Delete, admissionregistrationv1.Update),
		op(admissionregistrationv1.OperationAll),
		op(admissionregistrationv1.Connect),
		op(),
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			if hasRule(p) {
				p.Spec.MatchConstraints.ResourceRules[0].Resources = []string{"*/*", "pods"}
			}
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			if p.Spec.MatchConstraints != nil {
				p.Spec.MatchConstraints.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a b": "c"}}
			}
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "a/b/c", Kind: ""}
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.ReinvocationPolicy = "" },
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.ReinvocationPolicy = "Always" },
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.ReinvocationPolicy = admissionregistrationv1.IfNeededReinvocationPolicy
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.Mutations = nil },
		setMutation(admissionregistrationv1.Mutation{}),
		setMutation(admissionregistrationv1.Mutation{PatchType: "StrategicMerge"}),
		setMutation(admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch}),
		setMutation(admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration}),
		setMutation(admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{}"}, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: "[]"}}),
		setMutation(admissionregistrationv1.Mutation{PatchType: admissionregistrationv1.PatchTypeJSONPatch,
			ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: "Object{}"}, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: "[]"}}),
		setMutation(ac("")),
		setMutation(ac("   ")),
		setMutation(ac(`"x"`)),
		setMutation(ac(`Object.spec{}`)),
		setMutation(ac(`  Object{}  `)),
		setMutation(ac(`Object{`)),
		setMutation(ac(`Object{metadata: Object.metadata{name: params.name}}`)),
		setMutation(ac(`[1].includes(1) ? Object{} : Object{}`)),
		setMutation(ac(`Object{metadata: Object.metadata{labels: {jsonpatch.escapeKey("a/b"): "c"}}}`)),
		setMutation(jp(`[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]`)),
		setMutation(jp(`[]`)),
		setMutation(jp(`[JSONPatch{op: 1}]`)),
		setMutation(jp(`[JSONPatch{op: "add", foo: 1}]`)),
		setMutation(jp(`dyn([])`)),
		addMutation(jp(`[JSONPatch{op: "remove", path: "/metadata/annotations"}]`)),
		addMutation(ac(`Object{spec: variables.nope}`)),
		vars("n", `object.metadata.name`),
		vars("n", `object.metadata.name`, "m", `variables.n + "x"`),
		vars("", `1`),
		vars("1bad", `1`),
		vars("in", `1`),
		vars("ok", ``),
		vars("o", `Object{}`),
		vars("o", `params`),
		vars("k", `jsonpatch.escapeKey("a")`),
		vars("n", `1`, "m", `variables.n + "x"`),
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			vars("n", `"x"`)(p)
			setMutation(jp(`[JSONPatch{op: "add", path: "/metadata/labels/" + variables.n, value: variables.n}]`))(p)
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			vars("n", `1`)(p)
			setMutation(jp(`[JSONPatch{op: "add", path: variables.n}]`))(p)
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: `object.metadata.name != ""`}}
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: `variables.x`}}
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: `1`}, {Name: "c", Expression: `true`}}
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
			p.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: `params != null`}}
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
		},
		func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Name = "x.static.k8s.io" },
	}
}

func hasRule(p *admissionregistrationv1.MutatingAdmissionPolicy) bool {
	return p.Spec.MatchConstraints != nil && len(p.Spec.MatchConstraints.ResourceRules) > 0
}

// mapCorpus combines the changes in pairs.
func mapCorpus() []*admissionregistrationv1.MutatingAdmissionPolicy {
	muts := mapMutations()
	var out []*admissionregistrationv1.MutatingAdmissionPolicy
	for i := range muts {
		for j := i; j < len(muts); j += 7 {
			p := mapBase()
			muts[i](p)
			muts[j](p)
			out = append(out, p)
		}
	}
	return out
}

func TestAdmissionMutatingPolicyValidationMatchesKube(t *testing.T) {
	var create, update admCounts
	corpus := mapCorpus()
	for i, p := range corpus {
		admCompare(t, &create, "MAP create", p, nil)
		admCompare(t, &update, "MAP no-op update", p, p)
		admCompare(t, &update, "MAP update to another", corpus[(i*104729+1)%len(corpus)], p)
		if t.Failed() {
			break
		}
	}
	t.Logf("mutating admission policies: create: %d cases (%d valid); update: %d cases (%d valid)", create.cases, create.valid, update.cases, update.valid)
	assert.Greater(t, create.valid, 30)
	assert.Greater(t, create.cases-create.valid, 100)
}

func mapbCorpus() []*admissionregistrationv1.MutatingAdmissionPolicyBinding {
	deny, allow, bad := admissionregistrationv1.DenyAction, admissionregistrationv1.AllowAction, admissionregistrationv1.ParameterNotFoundActionType("Maybe")
	base := func() *admissionregistrationv1.MutatingAdmissionPolicyBinding {
		return &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
			Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "p"}}
	}
	muts := []func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding){
		func(*admissionregistrationv1.MutatingAdmissionPolicyBinding) {},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { b.Spec.PolicyName = "" },
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { b.Spec.PolicyName = "Not_A_Name" },
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "cfg", ParameterNotFoundAction: &deny}
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: &allow}
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "cfg", Selector: &metav1.LabelSelector{}}
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{ParameterNotFoundAction: &bad}
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "a/b", ParameterNotFoundAction: &deny}
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.MatchResources = &admissionregistrationv1.MatchResources{}
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete, admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}}
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			b.Spec.MatchResources = &admissionregistrationv1.MatchResources{ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				ResourceNames: []string{"a", "a"},
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}}
		},
		func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) { b.Name = "b.static.k8s.io" },
	}
	var out []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	for i := range muts {
		for j := i; j < len(muts); j++ {
			b := base()
			muts[i](b)
			muts[j](b)
			out = append(out, b)
		}
	}
	return out
}

func TestAdmissionMutatingPolicyBindingValidationMatchesKube(t *testing.T) {
	var c admCounts
	corpus := mapbCorpus()
	for i, b := range corpus {
		admCompare(t, &c, "MAPB create", b, nil)
		admCompare(t, &c, "MAPB update", corpus[(i*104729+1)%len(corpus)], b)
	}
	t.Logf("mutating admission policy bindings: %d cases (%d valid)", c.cases, c.valid)
	assert.Greater(t, c.valid, 10)
}

// TestAdmissionMutatingRealWorldValidationMatchesKube validates every
// MutatingAdmissionPolicy and binding of the published files (in any
// version, converted to v1 as kube-apiserver stores them) with both.
func TestAdmissionMutatingRealWorldValidationMatchesKube(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(mvRealworldDir, "*.yaml")) // the copy of shared/realworld/mutating-admission-policy
	require.NoError(t, err)
	require.NotEmpty(t, files)
	decoder := serializer.NewCodecFactory(legacyscheme.Scheme).UniversalDeserializer()
	var c admCounts
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, doc := range strings.Split(string(data), "\n---") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			obj, _, err := decoder.Decode([]byte(doc), nil, nil)
			if err != nil {
				continue // not an admission object of the scheme (ConfigMaps are, and skipped below)
			}
			var internal, v1obj runtime.Object
			switch obj.GetObjectKind().GroupVersionKind().Kind {
			case "MutatingAdmissionPolicy":
				internal, v1obj = &admissionregistration.MutatingAdmissionPolicy{}, &admissionregistrationv1.MutatingAdmissionPolicy{}
			case "MutatingAdmissionPolicyBinding":
				internal, v1obj = &admissionregistration.MutatingAdmissionPolicyBinding{}, &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
			default:
				continue
			}
			// The REST API defaults an object in the version it is written
			// in (v1alpha1's paramRef defaults), converts it to the
			// internal type and stores it in v1.
			legacyscheme.Scheme.Default(obj)
			require.NoError(t, legacyscheme.Scheme.Convert(obj, internal, nil), "%s #%d", f, i)
			require.NoError(t, legacyscheme.Scheme.Convert(internal, v1obj, nil), "%s #%d", f, i)
			admCompare(t, &c, fmt.Sprintf("%s #%d", filepath.Base(f), i), v1obj, nil)
		}
	}
	t.Logf("published mutating admission policies and bindings: %d (%d valid)", c.cases, c.valid)
	assert.Greater(t, c.cases, 20)
}
