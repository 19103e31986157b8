package admissionmanifest

import (
	"errors"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// mutationValidator is package mutation's validator of
// MutatingAdmissionPolicies, built when first needed.
type mutationValidator struct {
	once sync.Once
	v    *mutation.Validator
	err  error
}

func (v *Validator) mutationValidator() (*mutation.Validator, error) {
	m := v.mutations
	m.once.Do(func() {
		m.v, m.err = mutation.NewValidator(mutation.ValidatorOptions{MatchConditions: v.compiler, Kube: v.opts.Kube})
	})
	return m.v, m.err
}

// ValidateMutatingAdmissionPolicy validates a MutatingAdmissionPolicy as
// kube-apiserver's REST API does, with package mutation's rules
// (mutation.Validator), on create when old is nil, else on update from old,
// and reserves the names of static manifests as for the other kinds. It
// returns the field errors, in kube-apiserver's order, and the API's
// warnings.
func (v *Validator) ValidateMutatingAdmissionPolicy(obj, old *admissionregistrationv1.MutatingAdmissionPolicy) (field.ErrorList, []string) {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}, nil
	}
	mv, err := v.mutationValidator()
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}, nil
	}
	return v.staticName(obj.Name, mv.ValidateMutatingAdmissionPolicy(obj, old), old != nil, old != nil && old.Generation == obj.Generation)
}

// ValidateMutatingAdmissionPolicyBinding validates a
// MutatingAdmissionPolicyBinding as kube-apiserver's REST API does (see
// ValidateMutatingAdmissionPolicy).
func (v *Validator) ValidateMutatingAdmissionPolicyBinding(obj, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) (field.ErrorList, []string) {
	if obj == nil {
		return field.ErrorList{field.InternalError(nil, errors.New("no object to validate"))}, nil
	}
	mv, err := v.mutationValidator()
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}, nil
	}
	return v.staticName(obj.Name, mv.ValidateMutatingAdmissionPolicyBinding(obj, old), old != nil, old != nil && old.Generation == obj.Generation)
}
