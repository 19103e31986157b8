package mutation

import (
	"strings"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// The error_type label values of the mutating admission policy metrics.
const (
	errorTypeNone        = "no_error"
	errorTypeCompile     = "compile_error"
	errorTypeInvalid     = "invalid_error"
	errorTypeOutOfBudget = "out_of_budget"
)

// errorType classifies a mutation's error as kube-apiserver's mutating
// dispatcher does, by the message's prefix.
func errorType(err error) string {
	if err == nil {
		return errorTypeNone
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "compilation"):
		return errorTypeCompile
	case strings.HasPrefix(msg, "validation failed due to running out of cost budget"):
		return errorTypeOutOfBudget
	}
	return errorTypeInvalid
}

// observeMutation records one mutation: kube-apiserver's
// apiserver_mutating_admission_policy_check_total and
// apiserver_mutating_admission_policy_check_duration_seconds, labelled by
// policy, binding and error type.
func observeMutation(sink metrics.Sink, policy, binding, errType string, seconds float64) {
	if sink == nil {
		return
	}
	sink.Add(metrics.MutatingAdmissionPolicyChecks, 1, policy, binding, errType)
	sink.Observe(metrics.MutatingAdmissionPolicyCheckDuration, seconds, policy, binding, errType)
}
