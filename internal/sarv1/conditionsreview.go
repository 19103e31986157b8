package v1

import (
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The AuthorizationConditionsReview of authorization.k8s.io/v1alpha1
// (k8s.io/api v0.38), which kube-apiserver 1.38 posts to a webhook
// authorizer's conditions review endpoint to evaluate a conditional
// decision against the admission data. The decision reuses v1's shape.

// ConditionsReviewAPIVersion and ConditionsReviewKind name the review.
const (
	ConditionsReviewAPIVersion = "authorization.k8s.io/v1alpha1"
	ConditionsReviewKind       = "AuthorizationConditionsReview"
)

// AuthorizationConditionsReview is a request (sent) or a response (read).
type AuthorizationConditionsReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Request  *AuthorizationConditionsRequest  `json:"request,omitempty"`
	Response *AuthorizationConditionsResponse `json:"response,omitempty"`
}

// AuthorizationConditionsRequest is the decision to evaluate and the data.
type AuthorizationConditionsRequest struct {
	Decision         ConditionsAwareDecision       `json:"decision"`
	AdmissionRequest *admissionv1.AdmissionRequest `json:"admissionRequest,omitempty"`
}

// AuthorizationConditionsResponse is the webhook's evaluation: the
// request's admissionRequest.uid, and an unconditional decision.
type AuthorizationConditionsResponse struct {
	UID      types.UID               `json:"uid"`
	Decision ConditionsAwareDecision `json:"decision"`
}
