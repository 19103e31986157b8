package admissionwebhook_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// A webhook for apps/v1 deployments with matchPolicy Equivalent is called
// for an apps/v1beta2 request with the object converted to apps/v1, and the
// result converted back.
func TestEquivalentResourceIsConverted(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/v1", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/labels/seen","value":"v1"}]`))
	v1 := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	v1beta2 := schema.GroupVersionResource{Group: "apps", Version: "v1beta2", Resource: "deployments"}
	equivalents := runtime.NewEquivalentResourceRegistry()
	equivalents.RegisterKindFor(v1, "", schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	equivalents.RegisterKindFor(v1beta2, "", schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"})
	w := mutating(srv, "m.example.com", "/v1", func(w *admissionregistrationv1.MutatingWebhook) {
		w.Rules[0].APIGroups = []string{"apps"}
		w.Rules[0].Resources = []string{"deployments"}
	})
	// apps deployments differ little between the two versions: the
	// conversion sets the apiVersion.
	var conversions []string
	converter := admissionwebhook.ConverterFunc(func(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
		conversions = append(conversions, obj.GetAPIVersion()+" to "+to.GroupVersion().String())
		out := obj.DeepCopy()
		out.SetAPIVersion(to.GroupVersion().String())
		return out, nil
	})
	req := &admissionwebhook.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"},
		Resource:  v1beta2,
		Name:      "d", Namespace: "default",
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1beta2", "kind": "Deployment",
			"metadata": map[string]any{"name": "d", "namespace": "default", "labels": map[string]any{"app": "d"}}}},
	}

	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{
		Match: admissionmanifest.MatchOptions{Equivalents: equivalents}, Converter: converter,
	})
	require.NoError(t, err)
	res, err := d.Admit(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, []string{"apps/v1beta2 to apps/v1", "apps/v1 to apps/v1beta2"}, conversions)
	assert.Equal(t, "apps/v1beta2", res.Object.GetAPIVersion())
	assert.Equal(t, map[string]string{"app": "d", "seen": "v1"}, res.Object.GetLabels())
	got := srv.Requests()[0].Request
	assert.Equal(t, "v1", got.Kind.Version)
	assert.Equal(t, "v1", got.Resource.Version)
	assert.Equal(t, "v1beta2", got.RequestKind.Version)
	assert.Equal(t, "v1beta2", got.RequestResource.Version)

	// Without a Converter the request fails with an internal error.
	d, err = admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{
		Match: admissionmanifest.MatchOptions{Equivalents: equivalents},
	})
	require.NoError(t, err)
	_, err = d.Admit(context.Background(), req)
	assert.True(t, apierrors.IsInternalError(err), "%v", err)
}
