package admissionwebhook_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// A mutating webhook adds a label, then a validating webhook refuses pods
// without an owner; both are paths of one fake webhook server, called over
// TLS with its certificate as caBundle.
func ExampleDispatcher() {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.Handle("/label", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/labels/team","value":"payments"}]`))
	srv.Handle("/owner", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		pod := &unstructured.Unstructured{}
		if err := pod.UnmarshalJSON(r.Object.Raw); err != nil || pod.GetLabels()["owner"] == "" {
			return admissionwebhooktest.Answer{Status: &metav1.Status{Code: 403, Message: "pods need an owner label"},
				Warnings: []string{"see go/owners"}}
		}
		return admissionwebhooktest.Answer{Allowed: true}
	})

	none := admissionregistrationv1.SideEffectClassNone
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
	}}
	mutatingConfig := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{{
		Name: "label.example.com", ClientConfig: srv.ClientConfig("/label"), Rules: rules,
		SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
	}}}
	validatingConfig := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "owner.example.com", ClientConfig: srv.ClientConfig("/owner"), Rules: rules,
		SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
	}}}
	admissionmanifest.SetDefaultsMutatingWebhookConfiguration(mutatingConfig)
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(validatingConfig)

	sink := metrics.NewMemory()
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{
		{ConfigurationName: "labels", Mutating: &mutatingConfig.Webhooks[0]},
		{ConfigurationName: "owners", Validating: &validatingConfig.Webhooks[0]},
	}, admissionwebhook.Options{Metrics: sink})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := &admissionwebhook.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name:      "web", Namespace: "default",
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "web", "namespace": "default", "labels": map[string]any{"app": "web"}}}},
	}
	mutated, err := d.Admit(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("labels:", mutated.Object.GetLabels())
	fmt.Println(mutated.AuditAnnotations["mutation.webhook.admission.k8s.io/round_0_index_0"])

	req.Object = mutated.Object
	validated, err := d.Validate(context.Background(), req)
	fmt.Println(err)
	fmt.Println("warnings:", validated.Warnings)
	fmt.Print(sink.Text("apiserver_admission_webhook_rejection_count"))
	// Output:
	// labels: map[app:web team:payments]
	// {"configuration":"labels","webhook":"label.example.com","mutated":true}
	// admission webhook "owner.example.com" denied the request: pods need an owner label
	// warnings: [see go/owners]
	// # HELP apiserver_admission_webhook_rejection_count [ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.
	// # TYPE apiserver_admission_webhook_rejection_count counter
	// apiserver_admission_webhook_rejection_count{error_type="no_error",name="owner.example.com",operation="CREATE",rejection_code="403",type="validating"} 1
}
