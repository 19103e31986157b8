package conformance

import (
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/utils/ptr"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// vapBenchPolicy is a policy on pods with three validations (one with a
// messageExpression) that a Pod named "alpha", labelled with a team and
// with an image in every container, passes.
func vapBenchPolicy(name string, rules ...admissionregistrationv1.NamedRuleWithOperations) *admissionregistrationv1.ValidatingAdmissionPolicy {
	if len(rules) == 0 {
		rules = []admissionregistrationv1.NamedRuleWithOperations{vapRule("", "v1", "pods")}
	}
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{},
				ObjectSelector:    &metav1.LabelSelector{},
				MatchPolicy:       ptr.To(admissionregistrationv1.Equivalent),
				ResourceRules:     rules,
			},
			Validations: []admissionregistrationv1.Validation{
				{Expression: `object.metadata.name.startsWith("a")`, Message: "name must start with a"},
				{Expression: `has(object.metadata.labels) && 'team' in object.metadata.labels`, MessageExpression: `"missing team label on " + object.metadata.name`},
				{Expression: `object.spec.containers.all(c, c.image != "")`, Reason: ptr.To(metav1.StatusReasonForbidden)},
			},
		},
	}
}

func vapBenchBinding(policy string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy + "-binding"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
}

// BenchmarkValidatingPolicyCompile compiles a policy with three validations
// and a messageExpression: kube-apiserver as its plugin does when it loads
// a policy (a composited compiler over the cached base environment, then
// each expression), gatehouse with a Compiler built once.
func BenchmarkValidatingPolicyCompile(b *testing.B) {
	p := vapBenchPolicy("bench")
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if v := compileKubeVAP(p); v == nil {
				b.Fatal("no validator")
			}
		}
	})
	c, err := validatingpolicy.NewCompiler()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if errs := c.Compile(p).CompileErrors(); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

// vapBenchPod is the Pod the admission benchmarks create: it passes every
// validation of vapBenchPolicy.
func vapBenchPod() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "alpha", Namespace: "dev", Labels: map[string]string{"team": "a", "app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Image: "nginx:1.27"},
			{Name: "sidecar", Image: "envoy:1.30"},
		}},
	}
}

// benchmarkVAPAdmit creates vapBenchPod through a world's dispatchers,
// built once. kube-apiserver is handed the typed Pod as its admission chain
// is; gatehouse the unstructured content its Request takes (converted once,
// outside the loop, as a caller holding unstructured objects would).
func benchmarkVAPAdmit(b *testing.B, w *vapWorld) {
	compiler, err := validatingpolicy.NewCompiler()
	if err != nil {
		b.Fatal(err)
	}
	s := newVAPSetup(b, w, compiler)
	pod := vapBenchPod()
	gvk := pod.GroupVersionKind()
	gvr := gvk.GroupVersion().WithResource("pods")
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	u := mdUnstructured(b, pod)
	ctx := context.Background()
	request := func(u *unstructured.Unstructured) *validatingpolicy.Request {
		return &validatingpolicy.Request{Operation: admissionv1.Create, Kind: gvk, Resource: gvr, Name: u.GetName(), Namespace: "dev",
			UserInfo: authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}, Object: u}
	}
	// Both evaluate the policy: a Pod that fails it is denied by both.
	bad := pod.DeepCopy()
	bad.Name = "beta"
	attrs := admission.NewAttributesRecord(bad, nil, gvk, "dev", "beta", gvr, "", admission.Create, nil, false, alice)
	if out := s.kube.validate(attrs); out.err == nil {
		b.Fatal("kube-apiserver admitted a Pod that fails the policy")
	}
	if _, err := s.ours.Validate(ctx, request(mdUnstructured(b, bad))); err == nil {
		b.Fatal("gatehouse admitted a Pod that fails the policy")
	}
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			attrs := admission.NewAttributesRecord(pod, nil, gvk, "dev", "alpha", gvr, "", admission.Create, nil, false, alice)
			if out := s.kube.validate(attrs); out.err != nil {
				b.Fatal(out.err)
			}
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.ours.Validate(ctx, request(u)); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The objects come from the typed Pod, so they are already as
	// kube-apiserver holds them, and the request says so (Normalized), as
	// contrib/apiserver's admission plugin does.
	b.Run("impl=gatehouse-normalized", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := request(u)
			r.Normalized = true
			if _, err := s.ours.Validate(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

var vapBenchNamespaces = []runtime.Object{
	&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dev", Labels: map[string]string{"env": "dev"}}},
}

// BenchmarkValidatingPolicyAdmitPod admits a Pod (CREATE) through one
// matching policy with three validations that pass, and one binding.
func BenchmarkValidatingPolicyAdmitPod(b *testing.B) {
	p := vapBenchPolicy("pods")
	benchmarkVAPAdmit(b, &vapWorld{
		name:     "admit-pod",
		policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{p},
		bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{vapBenchBinding(p.Name)},
		objects:  vapBenchNamespaces,
	})
}

// BenchmarkValidatingPolicy100 admits the same Pod through 100 policies,
// each bound: one matches pods, the 99 others match other resources by
// their rules (example.com widgetsN).
func BenchmarkValidatingPolicy100(b *testing.B) {
	w := &vapWorld{name: "100-policies", objects: vapBenchNamespaces}
	for i := range 100 {
		var p *admissionregistrationv1.ValidatingAdmissionPolicy
		if i == 50 {
			p = vapBenchPolicy("pods")
		} else {
			p = vapBenchPolicy(fmt.Sprintf("widgets-%02d", i), vapRule("example.com", "v1", fmt.Sprintf("widgets%d", i)))
		}
		w.policies = append(w.policies, p)
		w.bindings = append(w.bindings, vapBenchBinding(p.Name))
	}
	benchmarkVAPAdmit(b, w)
}
