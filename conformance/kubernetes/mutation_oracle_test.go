package kubernetes

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	admvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// The oracle of MutatingAdmissionPolicy validation is kube-apiserver's path
// for a v1 object sent to the REST API, as for the other admission kinds
// (admission_oracle_test.go): the scheme's defaults, conversion to the
// internal type, then pkg/apis/admissionregistration/validation's
// ValidateMutatingAdmissionPolicy(+Update) and
// ValidateMutatingAdmissionPolicyBinding(+Update). The strategy's static
// names and authorization checks are not package mutation's.

var (
	mvValidatorOnce sync.Once
	mvValidator     *mutation.Validator
	mvValidatorErr  error
)

func mvGatehouseValidator(t testing.TB) *mutation.Validator {
	t.Helper()
	mvValidatorOnce.Do(func() { mvValidator, mvValidatorErr = mutation.NewValidator(mutation.ValidatorOptions{}) })
	require.NoError(t, mvValidatorErr)
	return mvValidator
}

// mvOracle validates obj (old nil: create) as kube-apiserver 1.37.2 does.
func mvOracle(t testing.TB, obj, old runtime.Object) field.ErrorList {
	t.Helper()
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		in := &admissionregistration.MutatingAdmissionPolicy{}
		admOracleInternal(t, o, in)
		if old == nil {
			return admvalidation.ValidateMutatingAdmissionPolicy(in)
		}
		oldIn := &admissionregistration.MutatingAdmissionPolicy{}
		admOracleInternal(t, old, oldIn)
		return admvalidation.ValidateMutatingAdmissionPolicyUpdate(in, oldIn)
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		in := &admissionregistration.MutatingAdmissionPolicyBinding{}
		admOracleInternal(t, o, in)
		if old == nil {
			return admvalidation.ValidateMutatingAdmissionPolicyBinding(in)
		}
		oldIn := &admissionregistration.MutatingAdmissionPolicyBinding{}
		admOracleInternal(t, old, oldIn)
		return admvalidation.ValidateMutatingAdmissionPolicyBindingUpdate(in, oldIn)
	}
	t.Fatalf("no oracle for %T", obj)
	return nil
}

// mvGatehouse validates obj as gatehouse does: the defaults on a copy, then
// the Validator.
func mvGatehouse(t testing.TB, obj, old runtime.Object) field.ErrorList {
	t.Helper()
	def := func(o runtime.Object) runtime.Object {
		o = o.DeepCopyObject()
		switch x := o.(type) {
		case *admissionregistrationv1.MutatingAdmissionPolicy:
			mutation.SetDefaultsPolicy(x)
		case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
			mutation.SetDefaultsBinding(x)
		}
		return o
	}
	obj = def(obj)
	if old != nil {
		old = def(old)
	}
	return mvGatehouseValidator(t).Validate(obj, old)
}
