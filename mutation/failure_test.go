package mutation

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestDenial(t *testing.T) {
	fail := &compiledPolicy{name: "f", policy: newPolicy("f", nil)}
	ign := &compiledPolicy{name: "i", policy: newPolicy("i", nil, ignore)}
	unset := &compiledPolicy{name: "u", policy: newPolicy("u", nil, func(p *admissionregistrationv1.MutatingAdmissionPolicy) { p.Spec.FailurePolicy = nil })}
	b := &compiledBinding{name: "b"}
	req := &Request{Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Name: "d"}

	assert.Nil(t, denial(req, nil))
	assert.Nil(t, denial(req, []*policyError{{policy: ign, binding: b, err: errors.New("x"), reason: metav1.StatusReasonInvalid}}), "Ignore drops errors")

	st := denial(req, []*policyError{
		{policy: ign, binding: b, err: errors.New("ignored")},
		configPolicyError(fail, errors.New("no constraints")),
		{policy: unset, binding: b, err: errors.New("boom"), reason: metav1.StatusReasonInvalid},
	})
	require.NotNil(t, st)
	assert.Equal(t, metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    403,
		Reason:  metav1.StatusReasonForbidden,
		Message: `policy "f" denied request: failed to configure policy: no constraints`,
		Details: &metav1.StatusDetails{Group: "apps", Kind: "deployments", Name: "d", Causes: []metav1.StatusCause{
			{Message: `policy "f" denied request: failed to configure policy: no constraints`},
			{Message: "policy 'u' with binding 'b' denied request: boom"},
		}},
	}, st.ErrStatus)

	st = denial(req, []*policyError{{policy: fail, binding: b, err: errors.New("bad"), reason: metav1.StatusReasonInvalid}, configBindingError(fail, b, errors.New("params"))})
	assert.Equal(t, metav1.StatusReasonInvalid, st.ErrStatus.Reason, "the first error's reason")
	assert.Equal(t, "policy 'f' with binding 'b' denied request: failed to configure binding: params", st.ErrStatus.Details.Causes[1].Message)
}
