package apiserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// denyAll is a ValidatingAdmissionPolicy NAME denying every CREATE.
const denyAll = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: NAME}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE"], resources: ["*"]}
  validations:
  - {expression: "false", message: "NAME says no"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: NAME}
spec: {policyName: NAME, validationActions: [Deny]}
`

// TestReloadingAdmissionPluginComposesStaticAndAPI runs the plugin of a
// static manifests directory and API objects in k8s.io/apiserver's
// admission chain handler: the static policy denies first; a request on an
// admission configuration object meets only the static one; SetAPI swaps
// the API objects while the directory stays.
func TestReloadingAdmissionPluginComposesStaticAndAPI(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "static.yaml"), []byte(strings.ReplaceAll(denyAll, "NAME", "guard.static.k8s.io")), 0o600))
	api, err := admission.Decode([]byte(strings.ReplaceAll(denyAll, "NAME", "api")))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := NewReloadingAdmissionPlugin(ctx, admission.ReloaderOptions{
		Dirs: map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionPolicy: dir},
		API:  *api,
	})
	require.NoError(t, err)
	handler := kadmission.NewChainHandler(p)
	require.NoError(t, p.ValidateInitialization())
	o := kadmission.NewObjectInterfacesFromScheme(scheme.Scheme)
	alice := &user.DefaultInfo{Name: "alice"}

	deniedBy := func(attrs kadmission.Attributes) string {
		t.Helper()
		err := handler.Validate(context.Background(), attrs, o)
		var status *apierrors.StatusError
		require.ErrorAs(t, err, &status)
		return status.ErrStatus.Message
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
	configMap := kadmission.NewAttributesRecord(cm, nil, corev1.SchemeGroupVersion.WithKind("ConfigMap"), "ns", "c",
		corev1.SchemeGroupVersion.WithResource("configmaps"), "", kadmission.Create, &metav1.CreateOptions{}, false, alice)
	assert.Equal(t, `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'guard.static.k8s.io' with binding 'guard.static.k8s.io' denied request: guard.static.k8s.io says no`,
		deniedBy(configMap), "the static policy first")

	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "x", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
	gvr := admissionregistrationv1.SchemeGroupVersion.WithResource("validatingadmissionpolicybindings")
	bindingAttrs := kadmission.NewAttributesRecord(binding, nil, admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicyBinding"), "", "b",
		gvr, "", kadmission.Create, &metav1.CreateOptions{}, false, alice)
	assert.Contains(t, deniedBy(bindingAttrs), "'guard.static.k8s.io'", "only static policies see admission configuration objects")

	// Without the static directory's denial, the API policy decides: it
	// still never sees the binding.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "static.yaml"), []byte(strings.ReplaceAll(strings.ReplaceAll(denyAll, "NAME", "guard.static.k8s.io"), "[Deny]", "[Audit]")), 0o600))
	p.Reloader.Check()
	assert.Contains(t, deniedBy(configMap), "ValidatingAdmissionPolicy 'api'")
	require.NoError(t, handler.Validate(context.Background(), bindingAttrs, o))

	other, err := admission.Decode([]byte(strings.ReplaceAll(denyAll, "NAME", "other")))
	require.NoError(t, err)
	require.NoError(t, p.SetAPI(*other))
	assert.Contains(t, deniedBy(configMap), "ValidatingAdmissionPolicy 'other'")
	other.Static = &admission.Config{}
	assert.Error(t, p.SetAPI(*other))
	assert.Contains(t, deniedBy(configMap), "ValidatingAdmissionPolicy 'other'", "the chain in force stays")
}
