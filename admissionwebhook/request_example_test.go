package admissionwebhook_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// A request from typed objects: a CONNECT of pods/exec holds a
// PodExecOptions, which has no metadata, so a webhook's objectSelector
// (here: pods without the label "debug") does not match it, as in
// kube-apiserver.
func ExampleNewRequest() {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.Handle("/exec", admissionwebhooktest.Allow())
	none := admissionregistrationv1.SideEffectClassNone
	config := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "exec"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "exec.example.com", ClientConfig: srv.ClientConfig("/exec"), SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Connect},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/exec"}}}},
		ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "debug", Operator: metav1.LabelSelectorOpDoesNotExist}}},
	}}}
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(config)
	d, err := admissionwebhook.NewDispatcher(admissionmanifest.WebhooksOf([]*admissionregistrationv1.ValidatingWebhookConfiguration{config}, nil), admissionwebhook.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	req, err := admissionwebhook.NewRequest(admissionv1.Connect, corev1.SchemeGroupVersion.WithResource("pods"),
		&corev1.PodExecOptions{Container: "app", Command: []string{"sh"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	req.SubResource, req.Name, req.Namespace = "exec", "web-0", "default"
	fmt.Println(req.Kind.Kind, req.WithoutMetadata)
	_, trace, err := d.ExplainValidate(context.Background(), req)
	fmt.Print(trace)
	fmt.Println(err)
	// Output:
	// PodExecOptions true
	// webhook exec.example.com (exec): not called (objectSelector)
	// <nil>
}

// Each webhook's outcome: the status kube-apiserver would return on its
// account, and the failures it only logs (a webhook failing open).
func ExampleDispatcher_ExplainValidate_outcomes() {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.Handle("/deny", admissionwebhooktest.Deny(403, "not on Fridays"))
	srv.Handle("/down", admissionwebhooktest.Allow())
	srv.InjectAlways(admissionwebhooktest.Fault{Path: "/down", Status: 503})
	none := admissionregistrationv1.SideEffectClassNone
	ignore := admissionregistrationv1.Ignore
	rules := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}
	config := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "checks"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{
		{Name: "fridays.example.com", ClientConfig: srv.ClientConfig("/deny"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}},
		{Name: "audit.example.com", ClientConfig: srv.ClientConfig("/down"), Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, FailurePolicy: &ignore},
	}}
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(config)
	d, err := admissionwebhook.NewDispatcher(admissionmanifest.WebhooksOf([]*admissionregistrationv1.ValidatingWebhookConfiguration{config}, nil), admissionwebhook.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	req, err := admissionwebhook.NewRequest(admissionv1.Create, corev1.SchemeGroupVersion.WithResource("pods"),
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, trace, err := d.ExplainValidate(context.Background(), req)
	fmt.Println("request:", err)
	for _, w := range trace.Webhooks {
		fmt.Printf("%s: status %v, failed open %v\n", w.Webhook, w.Status, w.FailedOpen)
	}
	for _, f := range res.FailedOpen {
		fmt.Printf("to log: %s: %v\n", f.Webhook, f.Err)
	}
	// Output:
	// request: admission webhook "fridays.example.com" denied the request: not on Fridays
	// fridays.example.com: status admission webhook "fridays.example.com" denied the request: not on Fridays, failed open false
	// audit.example.com: status <nil>, failed open true
	// to log: audit.example.com: failed calling webhook "audit.example.com": failed to call webhook: the server is currently unable to handle the request
}
