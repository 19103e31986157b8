package admissionpolicy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestJoin(t *testing.T) {
	type (
		policy  = admissionregistrationv1.ValidatingAdmissionPolicy
		binding = admissionregistrationv1.ValidatingAdmissionPolicyBinding
	)
	p := func(name, paramAPIVersion string) *policy {
		out := &policy{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name + paramAPIVersion)}}
		if paramAPIVersion != "" {
			out.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: paramAPIVersion, Kind: "ConfigMap"}
		}
		return out
	}
	b := func(name, policyName string) *binding {
		return &binding{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policyName}}
	}
	policies := []*policy{
		nil,
		p("a", ""),
		p("a", "v1"),      // a second "a": the first wins
		p("bad", "a/b/c"), // an apiVersion that does not parse: left out ...
		p("bad", "v1"),    // ... so this one is "bad"
		p("lonely", ""),   // no binding: no hook
		p("c", ""),
	}
	bindings := []*binding{b("b1", "c"), nil, b("b2", "a"), b("b3", "missing"), b("b4", "bad"), b("b5", "a")}
	hooks := Join(policies, bindings,
		func(p *policy) string { return p.Name },
		func(p *policy) *admissionregistrationv1.ParamKind { return p.Spec.ParamKind },
		func(b *binding) string { return b.Spec.PolicyName })
	type joined struct {
		uid       string
		paramKind string
		bindings  []string
	}
	var got []joined
	for _, h := range hooks {
		j := joined{uid: string(h.Policy.UID)}
		if h.ParamKind != nil {
			j.paramKind = h.ParamKind.String()
		}
		for _, b := range h.Bindings {
			j.bindings = append(j.bindings, b.Name)
		}
		got = append(got, j)
	}
	assert.Equal(t, []joined{
		{uid: "uid-a", bindings: []string{"b2", "b5"}},
		{uid: "uid-badv1", paramKind: "/v1, Kind=ConfigMap", bindings: []string{"b4"}},
		{uid: "uid-c", bindings: []string{"b1"}},
	}, got)
}
