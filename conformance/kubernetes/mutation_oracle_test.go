package kubernetes

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/conformance/kubernetes/oracle/restvalidation"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// The oracle of MutatingAdmissionPolicy validation is kube-apiserver's path
// for a v1 object sent to the REST API, as for the other admission kinds
// (admission_oracle_test.go): the scheme's defaults, conversion to the
// internal type, then pkg/apis/admissionregistration/validation's
// ValidateMutatingAdmissionPolicy(+Update) and
// ValidateMutatingAdmissionPolicyBinding(+Update) (restvalidation). The
// strategy's static names and authorization checks are not package
// mutation's.

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

// mvOracle validates obj (old nil: create) as kube-apiserver 1.37.2 does,
// without the strategy's reservation of static names.
func mvOracle(t testing.TB, obj, old runtime.Object) field.ErrorList {
	t.Helper()
	gates := restvalidation.DefaultGates()
	gates.ManifestBasedAdmissionControlConfig = false
	errs, _, err := restvalidation.Validate(obj, old, gates)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// mvGatehouse validates obj as gatehouse does: the defaults on a copy, then
// the Validator.
func mvGatehouse(t testing.TB, obj, old runtime.Object) field.ErrorList {
	t.Helper()
	return mvGatehouseWith(mvGatehouseValidator(t), obj, old)
}

// mvGatehouseWith is mvGatehouse with the Validator v.
func mvGatehouseWith(v *mutation.Validator, obj, old runtime.Object) field.ErrorList {
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
	return v.Validate(obj, old)
}
