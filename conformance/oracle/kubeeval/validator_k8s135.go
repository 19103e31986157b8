//go:build k8s135

package kubeeval

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
)

// newValidator is validating.NewValidator, which in 1.35 takes no error:
// its plugin panics when the composition environment cannot be built.
func newValidator(validations plugincel.ConditionEvaluator, matcher matchconditions.Matcher, annotations, messages plugincel.ConditionEvaluator, fp *admissionregistrationv1.FailurePolicyType, err error) validating.Validator {
	if err != nil {
		panic(err)
	}
	return validating.NewValidator(validations, matcher, annotations, messages, fp)
}
