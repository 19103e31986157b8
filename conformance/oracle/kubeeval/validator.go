//go:build !k8s135

package kubeeval

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
)

// newValidator is validating.NewValidator, which takes the composition
// environment's error from 1.36 on.
func newValidator(validations plugincel.ConditionEvaluator, matcher matchconditions.Matcher, annotations, messages plugincel.ConditionEvaluator, fp *admissionregistrationv1.FailurePolicyType, err error) validating.Validator {
	return validating.NewValidator(validations, matcher, annotations, messages, fp, err)
}
