package admissionwebhook_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

func ifNeeded(w *admissionregistrationv1.MutatingWebhook) {
	p := admissionregistrationv1.IfNeededReinvocationPolicy
	w.ReinvocationPolicy = &p
}

func TestAdmitReinvocation(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	// a adds a label once; b adds another once; c changes nothing.
	srv.Handle("/a", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/labels/a","value":"1"}]`))
	srv.Handle("/b", admissionwebhooktest.Patch(`[{"op":"add","path":"/metadata/labels/b","value":"1"}]`))
	tests := []struct {
		name  string
		hooks []admissionmanifest.Webhook
		// between changes the object between the passes, as another
		// plugin would.
		between bool
		// the paths called in the second pass.
		second []string
		// whether the first pass asks for a reinvocation.
		asks bool
	}{
		{name: "reinvoked after a later change", hooks: []admissionmanifest.Webhook{
			mutating(srv, "a.example.com", "/a", ifNeeded), mutating(srv, "b.example.com", "/b"),
		}, asks: true, second: []string{"/a"}},
		{name: "never reinvoked for its own change", hooks: []admissionmanifest.Webhook{
			mutating(srv, "b.example.com", "/b"), mutating(srv, "a.example.com", "/a", ifNeeded),
		}, asks: true},
		{name: "policy Never", hooks: []admissionmanifest.Webhook{
			mutating(srv, "a.example.com", "/a"), mutating(srv, "b.example.com", "/b"),
		}, asks: true},
		{name: "reinvoked after another plugin's change", hooks: []admissionmanifest.Webhook{
			mutating(srv, "c.example.com", "/c", ifNeeded),
		}, between: true, second: []string{"/c"}},
		{name: "not reinvoked without change", hooks: []admissionmanifest.Webhook{
			mutating(srv, "c.example.com", "/c", ifNeeded),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := admissionwebhook.NewDispatcher(tt.hooks, admissionwebhook.Options{})
			require.NoError(t, err)
			flags := &mutation.ReinvocationContext{}
			req := createPod()
			req.Reinvocation = &admissionwebhook.Reinvocation{Flags: flags}
			res, err := d.Admit(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, tt.asks, flags.ShouldReinvoke())
			flags.SetIsReinvoke()
			req.Object = res.Object
			if tt.between {
				req.Object = req.Object.DeepCopy()
				req.Object.SetLabels(map[string]string{"changed": "yes"})
			}
			srv.ResetRequests()
			res, err = d.Admit(context.Background(), req)
			require.NoError(t, err)
			var paths []string
			for _, r := range srv.Requests() {
				paths = append(paths, r.Path)
			}
			assert.Equal(t, tt.second, paths)
			for k := range res.AuditAnnotations {
				assert.Contains(t, k, "round_1_index_")
			}
			assert.Len(t, res.AuditAnnotations, len(tt.second))
		})
	}
}
