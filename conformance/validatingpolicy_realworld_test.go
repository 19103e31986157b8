package conformance

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/gatehouse-dev/gatehouse/internal/policyworld"
)

// realworldVerdictsFile holds kube-apiserver's verdicts on the published
// ValidatingAdmissionPolicies, which package validatingpolicy's tests pin;
// GATEHOUSE_UPDATE_VERDICTS=1 rewrites it from kube-apiserver's outcomes.
const realworldVerdictsFile = "../validatingpolicy/testdata/realworld-verdicts.json"

// TestValidatingPolicyRealWorldMatchesKubeAPIServer creates every object of
// the published ValidatingAdmissionPolicy files (the repository's copy) in
// one cluster holding all their valid policies, bindings, namespaces and
// ConfigMap params, through kube-apiserver's dispatcher and gatehouse's:
// the outcomes must be the same, and the pinned verdicts kube-apiserver's.
// Which policies and bindings are valid is decided by admissionmanifest's
// Validator, which conformance/kubernetes checks against kube-apiserver's
// REST validation.
func TestValidatingPolicyRealWorldMatchesKubeAPIServer(t *testing.T) {
	worlds, err := policyworld.LoadAll("../validatingpolicy/testdata/realworld")
	require.NoError(t, err)
	var all []*policyworld.Verdicts
	policies, objects, denied := 0, 0, 0
	for _, w := range worlds {
		t.Run(w.Name, func(t *testing.T) {
			want := kubeVerdicts(t, w)
			got, err := w.Validate(context.Background())
			require.NoError(t, err)
			require.Len(t, got.Outcomes, len(want.Outcomes))
			for i := range want.Outcomes {
				assert.Equal(t, want.Outcomes[i], got.Outcomes[i], want.Outcomes[i].Object)
				if want.Outcomes[i].Denied != "" {
					denied++
				}
			}
			all = append(all, want)
			policies += len(w.Policies)
			objects += len(want.Outcomes)
		})
	}
	require.NotZero(t, policies, "no published policies found")
	t.Logf("%d scenarios, %d policies accepted, %d objects created: %d denied", len(worlds), policies, objects, denied)
	if os.Getenv("GATEHOUSE_UPDATE_VERDICTS") != "" {
		require.NoError(t, policyworld.WriteVerdicts(realworldVerdictsFile, all))
		return
	}
	pinned, err := policyworld.ReadVerdicts(realworldVerdictsFile)
	require.NoError(t, err)
	assert.Equal(t, pinned, all, "the pinned verdicts are not kube-apiserver's: GATEHOUSE_UPDATE_VERDICTS=1 rewrites them")
}

// kubeVerdicts creates every object of a world through kube-apiserver's
// dispatcher.
func kubeVerdicts(t *testing.T, w *policyworld.World) *policyworld.Verdicts {
	var objects []runtime.Object
	for _, ns := range w.Namespaces() {
		objects = append(objects, ns)
	}
	for _, o := range w.ConfigMaps() {
		objects = append(objects, vapTyped(t, o))
	}
	kube := newKubeVAP(t, w.Policies, w.Bindings, w.Static, objects...)
	want := &policyworld.Verdicts{Scenario: w.Name, Invalid: w.Invalid}
	alice := &user.DefaultInfo{Name: policyworld.User.Username, UID: policyworld.User.UID, Groups: policyworld.User.Groups}
	for i := range w.Objects {
		o := &w.Objects[i]
		req := policyworld.Request(o)
		attrs := admission.NewAttributesRecord(vapTyped(t, o), nil, req.Kind, req.Namespace, req.Name, req.Resource, "", admission.Create, nil, false, alice)
		out := kube.validate(attrs)
		want.Outcomes = append(want.Outcomes, policyworld.NewOutcome(o, out.err, out.warnings, out.annotations))
	}
	return want
}

// vapTyped is an object as kube-apiserver's admission chain has it: its Go
// type for a built-in kind, else unstructured.
func vapTyped(t testing.TB, o *policyworld.Object) runtime.Object {
	t.Helper()
	typed, err := scheme.Scheme.New(o.Object.GroupVersionKind())
	if err != nil {
		return o.Object.DeepCopy()
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.DeepCopy().Object, typed); err != nil {
		t.Fatalf("%s: %v", policyworld.Name(o), err)
	}
	return typed
}
