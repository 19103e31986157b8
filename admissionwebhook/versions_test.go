package admissionwebhook_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// The widgets of example.com, served in v1 and v2, converted by setting the
// apiVersion within the group (apiextensions' strategy None).
var (
	widgetsV1   = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	widgetsV2   = schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}
	widgetV1    = widgetsV1.GroupVersion().WithKind("Widget")
	widgetV2    = widgetsV2.GroupVersion().WithKind("Widget")
	widgetEquiv = func() runtime.EquivalentResourceMapper {
		r := runtime.NewEquivalentResourceRegistry()
		r.RegisterKindFor(widgetsV1, "", widgetV1)
		r.RegisterKindFor(widgetsV2, "", widgetV2)
		return r
	}()
	noneConverter = admissionwebhook.ConverterFunc(func(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
		if from := obj.GroupVersionKind(); from.Group != to.Group || from.Kind != to.Kind {
			return nil, fmt.Errorf("cannot convert %v to %v", from, to)
		}
		out := obj.DeepCopy()
		out.SetAPIVersion(to.GroupVersion().String())
		return out, nil
	})
)

func widgetRequest() *admissionwebhook.Request {
	return &admissionwebhook.Request{Operation: admissionv1.Create, Kind: widgetV1, Resource: widgetsV1, Name: "w", Namespace: "default",
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "default"}}}}
}

func widgetRules(version string) func(*admissionregistrationv1.MutatingWebhook) {
	return func(w *admissionregistrationv1.MutatingWebhook) {
		w.Rules[0].APIGroups, w.Rules[0].APIVersions, w.Rules[0].Resources = []string{"example.com"}, []string{version}, []string{"widgets"}
	}
}

// A patch that changes the object's version or kind: the result is converted
// back to the request's kind, or the request fails with the converter's
// error, as a plain 500.
func TestAdmitConvertsThePatchedObjectBack(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/v2", admissionwebhooktest.Patch(`[{"op":"replace","path":"/apiVersion","value":"example.com/v2"}]`))
	srv.Handle("/group", admissionwebhooktest.Patch(`[{"op":"replace","path":"/apiVersion","value":"other.example.com/v1"}]`))
	srv.Handle("/configmap", admissionwebhooktest.Patch(`[{"op":"replace","path":"/kind","value":"ConfigMap"}]`))
	dispatch := func(w admissionmanifest.Webhook, r *admissionwebhook.Request) (admissionwebhook.Result, error) {
		d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{Converter: noneConverter})
		require.NoError(t, err)
		return d.Admit(context.Background(), r)
	}

	res, err := dispatch(mutating(srv, "v2.example.com", "/v2", widgetRules("v1")), widgetRequest())
	require.NoError(t, err)
	assert.Equal(t, "example.com/v1", res.Object.GetAPIVersion(), "converted back")

	_, err = dispatch(mutating(srv, "group.example.com", "/group", widgetRules("v1")), widgetRequest())
	var status *apierrors.StatusError
	require.ErrorAs(t, err, &status)
	assert.Equal(t, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: 500,
		Message: "cannot convert other.example.com/v1, Kind=Widget to example.com/v1, Kind=Widget"}, status.ErrStatus)

	// A pod patched into a ConfigMap: the ConfigMap's Go type, then no way
	// back to a Pod.
	_, err = dispatch(mutating(srv, "cm.example.com", "/configmap"), createPod())
	require.ErrorAs(t, err, &status)
	assert.Equal(t, "cannot convert /v1, Kind=ConfigMap to /v1, Kind=Pod", status.ErrStatus.Message)
}

// The match conditions of a webhook matched through an equivalent resource
// see the objects in the matched version.
func TestMatchConditionsSeeTheMatchedVersion(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/v2", admissionwebhooktest.Allow())
	conditions := func(w *admissionregistrationv1.ValidatingWebhook) {
		w.Rules[0].APIGroups, w.Rules[0].APIVersions, w.Rules[0].Resources = []string{"example.com"}, []string{"v2"}, []string{"widgets"}
		w.MatchPolicy = new(admissionregistrationv1.Equivalent)
		w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "v2", Expression: "object.apiVersion == 'example.com/v2'"}}
	}
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{validating(srv, "v2.example.com", "/v2", conditions)},
		admissionwebhook.Options{Match: admissionmanifest.MatchOptions{Equivalents: widgetEquiv}, Converter: noneConverter})
	require.NoError(t, err)
	_, trace, err := d.ExplainValidate(context.Background(), widgetRequest())
	require.NoError(t, err)
	require.Len(t, trace.Webhooks, 1)
	assert.True(t, trace.Webhooks[0].Called, trace.String())
	require.Len(t, srv.Requests(), 1)
	assert.Contains(t, string(srv.Requests()[0].Body), `"apiVersion":"example.com/v2"`)

	// A conversion that fails fails the request, as the conditions need it.
	failing := admissionwebhook.ConverterFunc(func(*unstructured.Unstructured, schema.GroupVersionKind) (*unstructured.Unstructured, error) {
		return nil, errors.New("no conversion")
	})
	d, err = admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{validating(srv, "v2.example.com", "/v2", conditions)},
		admissionwebhook.Options{Match: admissionmanifest.MatchOptions{Equivalents: widgetEquiv}, Converter: failing})
	require.NoError(t, err)
	_, err = d.Validate(context.Background(), widgetRequest())
	assert.EqualError(t, err, "Internal error occurred: no conversion")
}

// A CONNECT of pods/exec holds a PodExecOptions, which has no metadata: no
// object selector but an empty one matches it.
func TestObjectSelectorOnAKindWithoutMetadata(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/exec", admissionwebhooktest.Allow())
	exec := func(selector *metav1.LabelSelector) func(*admissionregistrationv1.ValidatingWebhook) {
		return func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules[0].Resources = []string{"pods/exec"}
			w.ObjectSelector = selector
		}
	}
	noApp := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	request := func() *admissionwebhook.Request {
		return &admissionwebhook.Request{Operation: admissionv1.Connect, Kind: schema.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"},
			Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, SubResource: "exec", Name: "p", Namespace: "default",
			Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "PodExecOptions", "command": []any{"sh"}}}}
	}
	for _, tt := range []struct {
		name     string
		selector *metav1.LabelSelector
		change   func(*admissionwebhook.Request)
		called   bool
	}{
		{"DoesNotExist", noApp, nil, false},
		{"empty", &metav1.LabelSelector{}, nil, true},
		{"a kind said to be without metadata", noApp, func(r *admissionwebhook.Request) {
			r.Kind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ShellOptions"}
			r.Object.SetGroupVersionKind(r.Kind)
			r.WithoutMetadata = true
		}, false},
		{"a custom kind has metadata", noApp, func(r *admissionwebhook.Request) {
			r.Kind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ShellOptions"}
			r.Object.SetGroupVersionKind(r.Kind)
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{validating(srv, "exec.example.com", "/exec", exec(tt.selector))}, admissionwebhook.Options{})
			require.NoError(t, err)
			r := request()
			if tt.change != nil {
				tt.change(r)
			}
			_, trace, err := d.ExplainValidate(context.Background(), r)
			require.NoError(t, err)
			assert.Equal(t, tt.called, trace.Webhooks[0].Called, trace.String())
		})
	}
}

// Static webhooks see admission configuration objects; API ones do not.
func TestStaticAndAPIWebhooks(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/any", admissionwebhooktest.Allow())
	everything := func(w *admissionregistrationv1.ValidatingWebhook) {
		w.Rules[0].APIGroups, w.Rules[0].APIVersions, w.Rules[0].Resources = []string{"*"}, []string{"*"}, []string{"*"}
	}
	static := validating(srv, "static.static.k8s.io", "/any", everything)
	static.Static = true
	api := validating(srv, "api.example.com", "/any", everything)
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{static, api}, admissionwebhook.Options{Match: admissionmanifest.MatchOptions{API: true}})
	require.NoError(t, err)
	gvr := admissionregistrationv1.SchemeGroupVersion.WithResource("validatingwebhookconfigurations")
	_, trace, err := d.ExplainValidate(context.Background(), &admissionwebhook.Request{Operation: admissionv1.Create, Kind: admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"),
		Resource: gvr, Name: "c", Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": "ValidatingWebhookConfiguration", "metadata": map[string]any{"name": "c"}}}})
	require.NoError(t, err)
	assert.True(t, trace.Webhooks[0].Called)
	assert.False(t, trace.Webhooks[1].Called)
	assert.Equal(t, admissionmanifest.ReasonAdmissionConfiguration, trace.Webhooks[1].Reason)
}

// Each webhook's failure is in the trace with the status kube-apiserver
// forms for it; those that failed open are in the Result.
func TestOutcomes(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/deny", admissionwebhooktest.Deny(422, "invalid"))
	srv.Handle("/down", admissionwebhooktest.Allow())
	srv.InjectAlways(admissionwebhooktest.Fault{Path: "/down", Status: 503})
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{
		validating(srv, "deny.example.com", "/deny"),
		validating(srv, "down.example.com", "/down"),
		validating(srv, "ignored.example.com", "/down", ignore),
	}, admissionwebhook.Options{})
	require.NoError(t, err)
	res, trace, err := d.ExplainValidate(context.Background(), createPod())
	require.Error(t, err)
	require.Len(t, trace.Webhooks, 3)
	assert.Equal(t, `admission webhook "deny.example.com" denied the request: invalid`, trace.Webhooks[0].Status.Error())
	assert.Equal(t, int32(422), trace.Webhooks[0].Status.ErrStatus.Code)
	assert.Equal(t, `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: the server is currently unable to handle the request`,
		trace.Webhooks[1].Status.Error())
	assert.Nil(t, trace.Webhooks[2].Status)
	assert.True(t, trace.Webhooks[2].FailedOpen)
	require.Len(t, res.FailedOpen, 1)
	assert.Equal(t, "ignored.example.com", res.FailedOpen[0].Webhook)
	assert.Equal(t, "config", res.FailedOpen[0].Configuration)
	assert.EqualError(t, res.FailedOpen[0].Err, trace.Webhooks[2].Err.Error())
	assert.Contains(t, []string{trace.Webhooks[0].Status.Error(), trace.Webhooks[1].Status.Error()}, err.Error(), "the request fails with one of them")

	m, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{mutating(srv, "ignored.example.com", "/down", ignoreMutating)}, admissionwebhook.Options{})
	require.NoError(t, err)
	res, err = m.Admit(context.Background(), createPod())
	require.NoError(t, err)
	require.Len(t, res.FailedOpen, 1)
	assert.Equal(t, "ignored.example.com", res.FailedOpen[0].Webhook)
}
