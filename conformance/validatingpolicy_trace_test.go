package conformance

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"

	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// TestValidatingPolicyDroppedAnnotationTextsAreKubeAPIServers: the errors
// a trace gives for audit annotations the request's attributes refuse are
// the texts of kube-apiserver's AddAnnotation.
func TestValidatingPolicyDroppedAnnotationTextsAreKubeAPIServers(t *testing.T) {
	for _, policyName := range []string{"Not_A_Prefix", "ok.example.com/extra", "-bad"} {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: policyName},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{
					NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
					ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
					}}},
				},
				AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: `"v"`}},
			}}
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policyName,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
		d, err := validatingpolicy.NewDispatcher([]*admissionregistrationv1.ValidatingAdmissionPolicy{p},
			[]*admissionregistrationv1.ValidatingAdmissionPolicyBinding{b}, validatingpolicy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "dev"}}
		req, err := validatingpolicy.NewRequest(admissionv1.Create, corev1.SchemeGroupVersion.WithResource("pods"), pod, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, trace, err := d.Explain(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		kube := admission.NewAttributesRecord(nil, nil, req.Kind, "dev", "x", req.Resource, "", admission.Create, nil, false, nil)
		kubeErr := kube.AddAnnotation(policyName+"/k", "v")
		dropped := trace.Policies[0].DroppedAuditAnnotations
		switch {
		case kubeErr == nil && len(dropped) == 0:
		case kubeErr == nil || len(dropped) != 1:
			t.Errorf("%s: dropped %v, kube-apiserver's error %v", policyName, dropped, kubeErr)
		case dropped[0].Err != kubeErr.Error():
			t.Errorf("%s: dropped with\n%s\nkube-apiserver:\n%s", policyName, dropped[0].Err, kubeErr)
		}
	}

	// A key set to another value.
	kube := admission.NewAttributesRecord(nil, nil, corev1.SchemeGroupVersion.WithKind("Pod"), "", "", corev1.SchemeGroupVersion.WithResource("pods"), "", admission.Create, nil, false, nil)
	if err := kube.AddAnnotation("p.example.com/k", "a"); err != nil {
		t.Fatal(err)
	}
	const want = `admission annotations are not allowd to be overwritten, key:"p.example.com/k", old value: {Metadata a}, new value: {Metadata b}`
	if err := kube.AddAnnotation("p.example.com/k", "b"); err == nil || err.Error() != want {
		t.Errorf("kube-apiserver's overwrite error is %v, validatingpolicy's text is %s", err, want)
	}
}
