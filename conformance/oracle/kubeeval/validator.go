package kubeeval

import (
	"reflect"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
)

// newValidator is validating.NewValidator, which takes the composition
// environment's error from 1.36 on and no error in 1.35 (whose plugin
// panics when that environment cannot be built). It is called through
// reflection so that one file compiles against every version, and the
// oracle builds and vets with -modfile alone.
func newValidator(validations plugincel.ConditionEvaluator, matcher matchconditions.Matcher, annotations, messages plugincel.ConditionEvaluator, fp *admissionregistrationv1.FailurePolicyType, err error) validating.Validator {
	fn := reflect.ValueOf(validating.NewValidator)
	args := []reflect.Value{
		reflect.ValueOf(&validations).Elem(),
		reflect.ValueOf(&matcher).Elem(),
		reflect.ValueOf(&annotations).Elem(),
		reflect.ValueOf(&messages).Elem(),
		reflect.ValueOf(fp),
	}
	switch fn.Type().NumIn() {
	case 5: // 1.35
		if err != nil {
			panic(err)
		}
	case 6:
		args = append(args, reflect.ValueOf(&err).Elem())
	default:
		panic("validating.NewValidator: unknown signature " + fn.Type().String())
	}
	return fn.Call(args)[0].Interface().(validating.Validator)
}
