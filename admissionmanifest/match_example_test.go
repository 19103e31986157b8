package admissionmanifest_test

import (
	"context"
	"fmt"
	"testing/fstest"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// A WebhookMatcher tells which of the loaded webhooks kube-apiserver calls
// for a request, and, with Explain, why the others are not called.
func ExampleWebhookMatcher() {
	files := admissionmanifest.FilesOf(fstest.MapFS{"etc/kubernetes/validating/hooks.yaml": {Data: []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pods.static.k8s.io
webhooks:
- name: pods.example.com
  clientConfig: {url: "https://127.0.0.1:8443/validate"}
  rules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  matchConditions:
  - name: not-dry-run
    expression: "!request.dryRun"
  sideEffects: None
  admissionReviewVersions: ["v1"]
`)}})
	m, err := admissionmanifest.Load(admissionmanifest.ValidatingAdmissionWebhook, "/etc/kubernetes/validating", admissionmanifest.LoadOptions{Files: files})
	if err != nil {
		fmt.Println(err)
		return
	}
	matcher, err := m.WebhookMatcher(admissionmanifest.MatchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod"}}
	request := &admissionmanifest.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Namespace: "default",
		Object:    pod,
	}
	for _, match := range matcher.Match(context.Background(), request) {
		fmt.Println("calls", match.Webhook.Name(), "with", match.Resource)
	}
	request.DryRun = true
	for _, x := range matcher.Explain(context.Background(), request) {
		fmt.Println(x.Webhook.Name(), x.Called, x.Reason, x.FailedCondition)
	}
	// Output:
	// calls pods.example.com with /v1, Resource=pods
	// pods.example.com false match condition not-dry-run
}
