package apiserver

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

const admissionPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: add-team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  matchConditions:
  - {name: no-team, expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"}
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'unknown'}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: add-team}
spec: {policyName: add-team}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-unknown-team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  validations:
  - {expression: "object.metadata.labels.team != 'unknown'", message: "team unknown"}
  auditAnnotations:
  - {key: team, valueExpression: "string(object.metadata.labels.team)"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-unknown-team}
spec: {policyName: no-unknown-team, validationActions: [Warn]}
`

type recordedWarnings struct {
	mu   sync.Mutex
	list []string
}

func (r *recordedWarnings) AddWarning(_, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, text)
}

// recordingAttributes records the annotations the attributes accept.
type recordingAttributes struct {
	kadmission.Attributes
	annotations map[string]string
}

func (a *recordingAttributes) AddAnnotation(key, value string) error {
	if err := a.Attributes.AddAnnotation(key, value); err != nil {
		return err
	}
	if a.annotations == nil {
		a.annotations = map[string]string{}
	}
	a.annotations[key] = value
	return nil
}

func testChain(t *testing.T) *admission.Chain {
	t.Helper()
	cfg, err := admission.Decode([]byte(admissionPolicies))
	require.NoError(t, err)
	c, err := admission.New(*cfg, admission.Options{})
	require.NoError(t, err)
	return c
}

// TestAdmissionPlugin runs the plugin in k8s.io/apiserver's admission chain
// (its chain handler, the reinvoker's second pass, then validation) on a
// typed Pod: the object is mutated in place, the reinvocation is asked for
// and runs, and the warnings and annotations reach the request, as the
// gatehouse chain gives them.
func TestAdmissionPlugin(t *testing.T) {
	chain := testChain(t)
	plugin := NewAdmissionPlugin(chain)
	require.NoError(t, plugin.ValidateInitialization())
	handler := kadmission.NewChainHandler(plugin)
	o := kadmission.NewObjectInterfacesFromScheme(scheme.Scheme)

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	attrs := &recordingAttributes{Attributes: kadmission.NewAttributesRecord(pod, nil, gvk, "ns", "p", corev1.SchemeGroupVersion.WithResource("pods"), "", kadmission.Create, &metav1.CreateOptions{}, false, &user.DefaultInfo{Name: "alice"})}
	warnings := &recordedWarnings{}
	ctx := warning.WithWarningRecorder(context.Background(), warnings)

	require.NoError(t, handler.Admit(ctx, attrs, o))
	rc := attrs.GetReinvocationContext()
	require.True(t, rc.ShouldReinvoke(), "the IfNeeded policy changed the object")
	rc.SetIsReinvoke()
	require.NoError(t, handler.Admit(ctx, attrs, o))
	require.NoError(t, handler.Validate(ctx, attrs, o))
	assert.Equal(t, "unknown", pod.Labels["team"], "the request's own object is mutated")

	// The same request through the gatehouse chain.
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	want, err := chain.Admit(context.Background(), &admission.Request{Operation: admissionv1.Create, Kind: gvk, Resource: corev1.SchemeGroupVersion.WithResource("pods"),
		Name: "p", Namespace: "ns", Object: u})
	require.NoError(t, err)
	assert.Equal(t, want.Warnings, warnings.list)
	assert.Equal(t, []string{"Validation failed for ValidatingAdmissionPolicy 'no-unknown-team' with binding 'no-unknown-team': team unknown"}, warnings.list)
	assert.Equal(t, want.AuditAnnotations, attrs.annotations)
	assert.Equal(t, "unknown", attrs.annotations["no-unknown-team/team"])
}

// TestAdmissionPluginDenies returns the chain's status unchanged.
func TestAdmissionPluginDenies(t *testing.T) {
	v, err := validatingpolicy.Decode([]byte(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deny}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  validations:
  - {expression: "false", message: "no", reason: Forbidden}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deny}
spec: {policyName: deny, validationActions: [Deny]}
`))
	require.NoError(t, err)
	chain, err := admission.New(admission.Config{ValidatingPolicies: v.Policies, ValidatingPolicyBindings: v.Bindings}, admission.Options{})
	require.NoError(t, err)
	plugin := NewAdmissionPlugin(chain)
	o := kadmission.NewObjectInterfacesFromScheme(scheme.Scheme)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
	attrs := kadmission.NewAttributesRecord(nil, cm, corev1.SchemeGroupVersion.WithKind("ConfigMap"), "ns", "c", corev1.SchemeGroupVersion.WithResource("configmaps"), "", kadmission.Delete, nil, false, &user.DefaultInfo{Name: "alice"})
	err = plugin.Validate(context.Background(), attrs, o)
	var status *apierrors.StatusError
	require.ErrorAs(t, err, &status)
	assert.Equal(t, int32(403), status.ErrStatus.Code)
	assert.Equal(t, `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'deny' with binding 'deny' denied request: no`, status.ErrStatus.Message)

	assert.Error(t, NewAdmissionPlugin(nil).ValidateInitialization())
}
