package mutation

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/policycheck"
)

// maxIdempotenceKinds bounds the kinds a policy is applied to.
const maxIdempotenceKinds = 3

// checkIdempotence applies each mutation of a reinvocationPolicy IfNeeded
// policy without params to a sample object of the kinds it matches (built
// from the schema, see policycheck.Sample), then again to its own output,
// as the dispatcher's trace does: a mutation that changes its output again
// is reported (a warning: kube-apiserver reinvokes such policies when a
// later plugin changes the object, and the change is applied twice).
func checkIdempotence(p *admissionregistrationv1.MutatingAdmissionPolicy, kinds *policycheck.Kinds, schemas *Schemas, gvks []schema.GroupVersionKind) []Finding {
	if p.Spec.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy || p.Spec.ParamKind != nil {
		return nil
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "gatehouse-lint"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: p.Name},
	}
	d, err := NewDispatcher([]*admissionregistrationv1.MutatingAdmissionPolicy{p}, []*admissionregistrationv1.MutatingAdmissionPolicyBinding{binding}, Options{Schemas: schemas})
	if err != nil {
		return nil
	}
	var out []Finding
	reported := map[int]bool{}
	for n, gvk := range gvks {
		if n == maxIdempotenceKinds {
			break
		}
		node, ok := kinds.Node(gvk)
		gvr, namespaced, served := kinds.ServedKind(gvk)
		if !ok || !served {
			continue
		}
		sample := policycheck.Sample(node, gvk, namespaced)
		req := &Request{
			Operation: admissionv1.Create, Kind: gvk, Resource: gvr, Name: "sample",
			UserInfo:     authenticationv1.UserInfo{Username: "gatehouse-lint"},
			Object:       &unstructured.Unstructured{Object: sample},
			Reinvocation: &ReinvocationContext{},
		}
		if namespaced {
			req.Namespace = "default"
		}
		_, trace, err := d.Explain(context.Background(), req)
		if err != nil || trace == nil {
			continue
		}
		for _, pt := range trace.Policies {
			for _, bt := range pt.Bindings {
				for _, it := range bt.Invocations {
					for _, mt := range it.Mutations {
						if mt.Err != nil || mt.Idempotent || reported[mt.Index] || mt.Index >= len(p.Spec.Mutations) {
							continue
						}
						reported[mt.Index] = true
						m := p.Spec.Mutations[mt.Index]
						path := field.NewPath("spec", "mutations").Index(mt.Index)
						if m.PatchType == admissionregistrationv1.PatchTypeJSONPatch {
							path = path.Child("jsonPatch", "expression")
						} else {
							path = path.Child("applyConfiguration", "expression")
						}
						out = append(out, Finding{Severity: SeverityWarning, Rule: policycheck.RuleNotIdempotent, Kind: kindPolicy, Name: p.Name, Field: path.String(),
							Message: fmt.Sprintf("applied again to its own output on a sample %s %s (built from the schema), the mutation changes it again: with reinvocationPolicy IfNeeded, kube-apiserver applies it again when a later plugin changes the object", gvk.Kind, gvk.GroupVersion()),
							Fix:     "make the mutation idempotent (guard it on its own result, set rather than append), or use reinvocationPolicy Never"})
					}
				}
			}
		}
	}
	return out
}
