package admissionwebhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

func TestAdmit(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	tests := []struct {
		name    string
		patch   string
		fault   *admissionwebhooktest.Fault
		webhook func(*admissionregistrationv1.MutatingWebhook)
		request func(*admissionwebhook.Request)
		// labels of the final object; nil when refused.
		labels map[string]string
		// code and message of the error; 0 when admitted.
		code        int32
		message     string
		mutated     bool
		patched     bool
		annotations map[string]string
	}{
		{name: "no patch", labels: map[string]string{"app": "web"}},
		{name: "empty patch", patch: `[]`, labels: map[string]string{"app": "web"}},
		{name: "a label added", patch: `[{"op":"add","path":"/metadata/labels/team","value":"a"}]`,
			labels: map[string]string{"app": "web", "team": "a"}, mutated: true, patched: true},
		{name: "a patch that changes nothing", patch: `[{"op":"replace","path":"/metadata/labels/app","value":"web"}]`,
			labels: map[string]string{"app": "web"}, patched: true},
		{name: "an unknown field is dropped", patch: `[{"op":"add","path":"/spec/unknown","value":1}]`,
			labels: map[string]string{"app": "web"}, patched: true},
		{name: "a failed test", patch: `[{"op":"test","path":"/metadata/name","value":"q"}]`,
			code: 500, message: "Internal error occurred: testing value /metadata/name failed: test failed"},
		{name: "a patch that does not apply", patch: `[{"op":"remove","path":"/spec/nothing"}]`,
			code: 500, message: "Internal error occurred: error in remove for path: '/spec/nothing': Unable to remove nonexistent key: nothing: missing value"},
		{name: "a result of the wrong type", patch: `[{"op":"replace","path":"/spec/containers","value":"x"}]`,
			code: 500, message: "Internal error occurred: json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"},
		{name: "an undecodable patch", fault: &admissionwebhooktest.Fault{Body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"0b7a6c61-0000-4000-8000-000000000001","allowed":true,"patchType":"JSONPatch","patch":"eyJ9"}}`)},
			code: 500, message: `Internal error occurred: failed calling webhook "m.example.com": received undecodable patch in webhook response: unexpected end of JSON input`},
		{name: "an undecodable patch fails open", webhook: ignoreMutating,
			fault:       &admissionwebhooktest.Fault{Body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"0b7a6c61-0000-4000-8000-000000000001","allowed":true,"patchType":"JSONPatch","patch":"eyJ9"}}`)},
			labels:      map[string]string{"app": "web"},
			annotations: map[string]string{"failed-open.mutation.webhook.admission.k8s.io/round_0_index_0": "m.example.com"}},
		{name: "a patch without object", patch: `[{"op":"add","path":"/x","value":1}]`, request: func(r *admissionwebhook.Request) {
			r.Operation = admissionv1.Delete
			r.OldObject, r.Object = r.Object, nil
		}, code: 500, message: `Internal error occurred: admission webhook "m.example.com" attempted to modify the object, which is not supported for this operation`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/" + t.Name()
			if tt.patch != "" {
				srv.Handle(path, admissionwebhooktest.Patch(tt.patch))
			}
			if tt.fault != nil {
				f := *tt.fault
				f.Path = path
				srv.Inject(f)
			}
			var mods []func(*admissionregistrationv1.MutatingWebhook)
			if tt.webhook != nil {
				mods = append(mods, tt.webhook)
			}
			d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{mutating(srv, "m.example.com", path, mods...)},
				admissionwebhook.Options{UID: fixedUID})
			require.NoError(t, err)
			req := createPod()
			if tt.request != nil {
				tt.request(req)
			}
			res, err := d.Admit(context.Background(), req)
			if tt.code != 0 {
				var status *apierrors.StatusError
				require.ErrorAs(t, err, &status)
				assert.Equal(t, tt.code, status.ErrStatus.Code)
				assert.Equal(t, tt.message, status.ErrStatus.Message)
				assert.Nil(t, res.Object)
			} else {
				require.NoError(t, err)
				if tt.labels != nil {
					assert.Equal(t, tt.labels, res.Object.GetLabels())
				}
			}
			mutation := fmt.Sprintf(`{"configuration":"config","webhook":"m.example.com","mutated":%t}`, tt.mutated)
			want := map[string]string{"mutation.webhook.admission.k8s.io/round_0_index_0": mutation}
			for k, v := range tt.annotations {
				want[k] = v
			}
			assert.Equal(t, want, res.AuditAnnotations)
			if tt.patched {
				var p any
				require.NoError(t, json.Unmarshal([]byte(tt.patch), &p))
				v, _ := json.Marshal(map[string]any{"configuration": "config", "webhook": "m.example.com", "patch": p, "patchType": "JSONPatch"})
				assert.JSONEq(t, string(v), res.PatchAnnotations["patch.webhook.admission.k8s.io/round_0_index_0"])
			} else {
				assert.Empty(t, res.PatchAnnotations)
			}
		})
	}
}

// Mutating webhooks are called in order, each on the previous one's
// result, matched against it; the index of the annotations counts every
// webhook of the dispatcher.
func TestAdmitChain(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/first", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/labels/stage","value":"one"}]`))
	srv.Handle("/third", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		return admissionwebhooktest.Answer{Allowed: true, Warnings: []string{"saw " + string(r.Object.Raw)[:20]},
			Patch: []byte(`[{"op":"replace","path":"/metadata/labels/stage","value":"three"}]`)}
	})
	selectStageOne := func(w *admissionregistrationv1.MutatingWebhook) {
		w.ObjectSelector.MatchLabels = map[string]string{"stage": "one"}
	}
	noStage := func(w *admissionregistrationv1.MutatingWebhook) {
		w.ObjectSelector.MatchLabels = map[string]string{"stage": "none"}
	}
	sink := metrics.NewMemory()
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{
		mutating(srv, "first.example.com", "/first"),
		mutating(srv, "second.example.com", "/second", noStage),
		mutating(srv, "third.example.com", "/third", selectStageOne),
	}, admissionwebhook.Options{Metrics: sink})
	require.NoError(t, err)
	res, err := d.Admit(context.Background(), createPod())
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"app": "web", "stage": "three"}, res.Object.GetLabels())
	assert.Equal(t, []string{`saw {"kind":"Pod","apiVe`}, res.Warnings)
	assert.Contains(t, res.AuditAnnotations, "mutation.webhook.admission.k8s.io/round_0_index_0")
	assert.NotContains(t, res.AuditAnnotations, "mutation.webhook.admission.k8s.io/round_0_index_1")
	assert.Contains(t, res.PatchAnnotations, "patch.webhook.admission.k8s.io/round_0_index_2")
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "one", labelOf(t, reqs[1].Request.Object.Raw, "stage"))
	assert.Equal(t, 1.0, sink.Value(metrics.AdmissionWebhookRequests, "third.example.com", "admit", "CREATE", "200", "false"))
}

func labelOf(t *testing.T, raw []byte, key string) string {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, u.UnmarshalJSON(raw))
	return u.GetLabels()[key]
}

// A custom resource is sent and patched as unstructured content.
func TestAdmitCustomResource(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{Plain: true})
	srv.Handle("/cr", admissionwebhooktest.Patch(`[{"op":"add","path":"/spec/size","value":3}]`))
	w := mutating(srv, "m.example.com", "/cr", func(w *admissionregistrationv1.MutatingWebhook) {
		w.Rules[0].APIGroups = []string{"example.com"}
		w.Rules[0].Resources = []string{"widgets"}
	})
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{})
	require.NoError(t, err)
	req := &admissionwebhook.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
		Resource:  schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		Name:      "w", Namespace: "default",
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "default"}, "spec": map[string]any{"color": "red"}}},
	}
	res, err := d.Admit(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"color": "red", "size": int64(3)}, res.Object.Object["spec"])
	assert.JSONEq(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"color":"red"}}`,
		string(srv.Requests()[0].Request.Object.Raw))
}

// A Defaulter changes a copy of a patched custom resource: the maps the
// patch left alone are shared with the request's object, which stays as
// it was.
func TestDefaulterChangesACopy(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{Plain: true})
	srv.Handle("/cr", admissionwebhooktest.Patch(`[{"op":"add","path":"/spec/size","value":3}]`))
	w := mutating(srv, "m.example.com", "/cr", func(w *admissionregistrationv1.MutatingWebhook) {
		w.Rules[0].APIGroups = []string{"example.com"}
		w.Rules[0].Resources = []string{"widgets"}
	})
	defaulter := func(u *unstructured.Unstructured) {
		u.Object["metadata"].(map[string]any)["labels"] = map[string]any{"defaulted": "true"}
	}
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{Defaulter: defaulter})
	require.NoError(t, err)
	object := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default"}, "spec": map[string]any{"color": "red"}}
	before := fmt.Sprintf("%#v", object)
	res, err := d.Admit(context.Background(), &admissionwebhook.Request{
		Operation: admissionv1.Create,
		Kind:      schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
		Resource:  schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		Name:      "w", Namespace: "default", Object: &unstructured.Unstructured{Object: object},
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"defaulted": "true"}, res.Object.GetLabels())
	assert.Equal(t, before, fmt.Sprintf("%#v", object), "the request's object is not modified")
}
