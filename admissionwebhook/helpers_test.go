package admissionwebhook_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// podRules are rules for pods, new for each webhook.
func podRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
	}}
}

// validating is a validating webhook of configuration "config" with its
// API defaults, calling path on srv.
func validating(srv *admissionwebhooktest.Server, name, path string, mod ...func(*admissionregistrationv1.ValidatingWebhook)) admissionmanifest.Webhook {
	none := admissionregistrationv1.SideEffectClassNone
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: name, ClientConfig: srv.ClientConfig(path), Rules: podRules(), SideEffects: &none,
		AdmissionReviewVersions: []string{"v1"},
	}}}
	admissionmanifest.SetDefaultsValidatingWebhookConfiguration(c)
	for _, m := range mod {
		m(&c.Webhooks[0])
	}
	return admissionmanifest.Webhook{ConfigurationName: "config", Validating: &c.Webhooks[0]}
}

// mutating is the same for a mutating webhook.
func mutating(srv *admissionwebhooktest.Server, name, path string, mod ...func(*admissionregistrationv1.MutatingWebhook)) admissionmanifest.Webhook {
	none := admissionregistrationv1.SideEffectClassNone
	c := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{{
		Name: name, ClientConfig: srv.ClientConfig(path), Rules: podRules(), SideEffects: &none,
		AdmissionReviewVersions: []string{"v1"},
	}}}
	admissionmanifest.SetDefaultsMutatingWebhookConfiguration(c)
	for _, m := range mod {
		m(&c.Webhooks[0])
	}
	return admissionmanifest.Webhook{ConfigurationName: "config", Mutating: &c.Webhooks[0]}
}

func ignore(w *admissionregistrationv1.ValidatingWebhook) {
	p := admissionregistrationv1.Ignore
	w.FailurePolicy = &p
}

func ignoreMutating(w *admissionregistrationv1.MutatingWebhook) {
	p := admissionregistrationv1.Ignore
	w.FailurePolicy = &p
}

func pod() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "namespace": "default", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}},
	}}
}

func createPod() *admissionwebhook.Request {
	return &admissionwebhook.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name:      "p",
		Namespace: "default",
		UserInfo:  authenticationv1.UserInfo{Username: "alice", Groups: []string{"dev"}},
		Object:    pod(),
	}
}

func newServer(t *testing.T, o admissionwebhooktest.Options) *admissionwebhooktest.Server {
	t.Helper()
	srv, err := admissionwebhooktest.NewServer(o)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv
}

func fixedUID() types.UID { return "0b7a6c61-0000-4000-8000-000000000001" }
