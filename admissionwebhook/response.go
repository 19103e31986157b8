package admissionwebhook

import (
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// response is what kube-apiserver takes from a webhook's AdmissionReview.
type response struct {
	auditAnnotations map[string]string
	allowed          bool
	patch            []byte
	patchType        admissionv1.PatchType
	result           *metav1.Status
	warnings         []string
}

// verifyResponse checks an answer as kube-apiserver's request package
// does: in v1, a response with the request's uid, of kind
// admission.k8s.io/v1 AdmissionReview, and patch and patchType together (a
// mutating webhook) or neither (a validating one); in v1beta1 only a
// response, its patch (mutating webhooks only) taken as a JSON patch.
func verifyResponse(uid types.UID, mutating bool, review runtime.Object) (*response, error) {
	switch r := review.(type) {
	case *admissionv1.AdmissionReview:
		if r.Response == nil {
			return nil, fmt.Errorf("webhook response was absent")
		}
		if r.Response.UID != uid {
			return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.Response.UID)
		}
		v1GVK := admissionv1.SchemeGroupVersion.WithKind("AdmissionReview")
		if r.GroupVersionKind() != v1GVK {
			return nil, fmt.Errorf("expected webhook response of %v, got %v", v1GVK.String(), r.GroupVersionKind().String())
		}
		var patch []byte
		var patchType admissionv1.PatchType
		if mutating {
			if len(r.Response.Patch) > 0 && r.Response.PatchType == nil {
				return nil, fmt.Errorf("webhook returned response.patch but not response.patchType")
			}
			if len(r.Response.Patch) == 0 && r.Response.PatchType != nil {
				return nil, fmt.Errorf("webhook returned response.patchType but not response.patch")
			}
			patch = r.Response.Patch
			if r.Response.PatchType != nil {
				patchType = *r.Response.PatchType
				if len(patchType) == 0 {
					return nil, fmt.Errorf("webhook returned invalid response.patchType of %q", patchType)
				}
			}
		} else {
			if len(r.Response.Patch) > 0 {
				return nil, fmt.Errorf("validating webhook may not return response.patch")
			}
			if r.Response.PatchType != nil {
				return nil, fmt.Errorf("validating webhook may not return response.patchType")
			}
		}
		return &response{
			auditAnnotations: r.Response.AuditAnnotations,
			allowed:          r.Response.Allowed,
			patch:            patch,
			patchType:        patchType,
			result:           r.Response.Result,
			warnings:         r.Response.Warnings,
		}, nil
	case *admissionv1beta1.AdmissionReview:
		if r.Response == nil {
			return nil, fmt.Errorf("webhook response was absent")
		}
		// v1beta1 answers are not checked for their uid or kind.
		var patch []byte
		var patchType admissionv1.PatchType
		if mutating {
			patch = r.Response.Patch
			if len(patch) > 0 {
				patchType = admissionv1.PatchTypeJSONPatch
			}
		}
		return &response{
			auditAnnotations: r.Response.AuditAnnotations,
			allowed:          r.Response.Allowed,
			patch:            patch,
			patchType:        patchType,
			result:           r.Response.Result,
			warnings:         r.Response.Warnings,
		}, nil
	}
	return nil, fmt.Errorf("unexpected response type %T", review)
}

// callError is a failure to call a webhook (kube-apiserver's
// ErrCallingWebhook): the only failure that failurePolicy Ignore lets
// through. status is what it counts as in the metrics.
type callError struct {
	webhook string
	reason  error
	status  *apierrors.StatusError
}

func (e *callError) Error() string {
	if e.reason != nil {
		return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.reason)
	}
	return fmt.Sprintf("failed calling webhook %q; no further details available", e.webhook)
}

func (e *callError) Unwrap() error { return e.reason }

// rejection is a webhook's refusal (kube-apiserver's ErrWebhookRejection).
type rejection struct{ status *apierrors.StatusError }

func (e *rejection) Error() string { return e.status.Error() }

// rejectionStatus is the error of a webhook that did not allow a request:
// its status, with a code of at least 400, status Failure and a message
// that names the webhook.
func rejectionStatus(webhook string, result *metav1.Status) *apierrors.StatusError {
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", webhook)
	var s metav1.Status
	if result != nil {
		s = *result
	} else {
		s = metav1.Status{Status: metav1.StatusFailure}
	}
	if s.Code < http.StatusBadRequest {
		s.Code = http.StatusBadRequest
	}
	if s.Status == "" || s.Status == metav1.StatusSuccess {
		s.Status = metav1.StatusFailure
	}
	switch {
	case len(s.Message) > 0:
		s.Message = fmt.Sprintf("%s: %s", deniedBy, s.Message)
	case len(s.Reason) > 0:
		s.Message = fmt.Sprintf("%s: %s", deniedBy, s.Reason)
	default:
		s.Message = fmt.Sprintf("%s without explanation", deniedBy)
	}
	return &apierrors.StatusError{ErrStatus: s}
}

// dryRunUnsupported is the error of a dry-run request to a webhook with side
// effects.
func dryRunUnsupported(webhook string) *apierrors.StatusError {
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", webhook))
}
