package mutation

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
)

// policyError is one failure of a policy or binding on a request (the
// generic policy dispatcher's PolicyError).
type policyError struct {
	policy *compiledPolicy
	// binding is nil for an error of the policy itself.
	binding *compiledBinding
	err     error
	// reason is Invalid for evaluation and match-condition errors, empty
	// (the Forbidden of the final status) for configuration errors.
	reason metav1.StatusReason
}

func (e *policyError) message() string {
	if e.binding != nil {
		return fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", e.policy.name, e.binding.name, e.err.Error())
	}
	return fmt.Sprintf("policy %q denied request: %s", e.policy.name, e.err.Error())
}

// configPolicyError and configBindingError are the configuration errors of
// the generic dispatcher.
func configPolicyError(p *compiledPolicy, err error) *policyError {
	return &policyError{policy: p, err: fmt.Errorf("failed to configure policy: %w", err)}
}

func configBindingError(p *compiledPolicy, b *compiledBinding, err error) *policyError {
	return &policyError{policy: p, binding: b, err: fmt.Errorf("failed to configure binding: %w", err)}
}

// denial applies the failure policies to the errors of one request, in
// order, and returns kube-apiserver's 403 for those that fail it, or nil: a
// policy with failurePolicy Ignore drops its errors; nil or any other value
// fails. The status is admission.NewForbidden's (details name the request's
// resource and object) with the first error's message and reason (Forbidden
// for configuration errors, Invalid otherwise) and every message as a cause.
func denial(req *Request, errs []*policyError) *apierrors.StatusError {
	var status *apierrors.StatusError
	for _, e := range errs {
		if fp := e.policy.policy.Spec.FailurePolicy; fp != nil && *fp == admissionregistrationv1.Ignore {
			continue
		}
		msg := e.message()
		if status == nil {
			status = apierrors.NewForbidden(req.Resource.GroupResource(), admissionpolicy.ForbiddenName(req.Name, req.Object), nil)
			status.ErrStatus.Message = msg
			if e.reason != "" {
				status.ErrStatus.Reason = e.reason
			}
		}
		status.ErrStatus.Details.Causes = append(status.ErrStatus.Details.Causes, metav1.StatusCause{Message: msg})
	}
	return status
}
