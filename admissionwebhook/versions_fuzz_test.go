package admissionwebhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// FuzzAdmitKeepsTheRequestKind: whatever apiVersion and kind a webhook's
// patch gives the object (or takes away), the admitted object is in the
// request's version (converted back, as kube-apiserver converts it) and,
// for a built-in kind, of the request's kind (a custom resource keeps the
// kind a patch gave it, as kube-apiserver's CRD converter does), or the
// request fails with a status; nothing panics.
func FuzzAdmitKeepsTheRequestKind(f *testing.F) {
	for _, seed := range []struct {
		apiVersion, kind string
		remove, custom   bool
	}{
		{"v1", "ConfigMap", false, false},
		{"v1", "Pod", false, false},
		{"", "", true, false},
		{"apps/v1", "Deployment", false, false},
		{"example.com/v2", "Widget", false, true},
		{"other.example.com/v1", "Widget", false, true},
		{"example.com/v1", "Gadget", false, true},
		{"a/b/c", "", false, true},
		{"v1", "PodExecOptions", false, false},
	} {
		f.Add(seed.apiVersion, seed.kind, seed.remove, seed.custom)
	}
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	f.Fuzz(func(t *testing.T, apiVersion, kind string, remove, custom bool) {
		var ops []map[string]any
		switch {
		case remove:
			ops = []map[string]any{{"op": "remove", "path": "/kind"}, {"op": "remove", "path": "/apiVersion"}}
		default:
			ops = []map[string]any{{"op": "replace", "path": "/apiVersion", "value": apiVersion}, {"op": "replace", "path": "/kind", "value": kind}}
		}
		patch, err := json.Marshal(ops)
		if err != nil {
			t.Skip()
		}
		srv.Handle("/fuzz", admissionwebhooktest.Patch(string(patch)))
		hook := mutating(srv, "fuzz.example.com", "/fuzz")
		req := createPod()
		if custom {
			hook = mutating(srv, "fuzz.example.com", "/fuzz", widgetRules("v1"))
			req = widgetRequest()
		}
		d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{hook}, admissionwebhook.Options{Converter: noneConverter})
		if err != nil {
			t.Fatal(err)
		}
		res, err := d.Admit(context.Background(), req)
		if err != nil {
			var status *apierrors.StatusError
			if !errors.As(err, &status) || status != err {
				t.Fatalf("not a status: %T %v", err, err)
			}
			return
		}
		got := res.Object.GroupVersionKind()
		if got.GroupVersion() != req.Kind.GroupVersion() || (!custom && got.Kind != req.Kind.Kind) {
			t.Fatalf("admitted a %v for a request of %v", got, req.Kind)
		}
	})
}
