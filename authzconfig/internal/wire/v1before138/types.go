// Package v1 (v1before138) holds the decoding form of
// apiserver.config.k8s.io/v1 AuthorizationConfiguration as Kubernetes 1.37
// and before know it: without a webhook's conditionsReview. Only its errors
// are used (a file naming conditionsReview fails to decode there); the
// package name is v1 because kube-apiserver's texts name it.
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AuthorizationConfiguration is the decoding form of the file.
type AuthorizationConfiguration struct {
	metav1.TypeMeta `json:""`
	Authorizers     []AuthorizerConfiguration `json:"authorizers"`
}

// AuthorizerConfiguration is the decoding form of one authorizer.
type AuthorizerConfiguration struct {
	Type    string                `json:"type"`
	Name    string                `json:"name"`
	Webhook *WebhookConfiguration `json:"webhook,omitempty"`
}

// WebhookConfiguration is the decoding form of a webhook's settings.
type WebhookConfiguration struct {
	AuthorizedTTL                            metav1.Duration         `json:"authorizedTTL"`
	CacheAuthorizedRequests                  *bool                   `json:"cacheAuthorizedRequests,omitempty"`
	UnauthorizedTTL                          metav1.Duration         `json:"unauthorizedTTL"`
	CacheUnauthorizedRequests                *bool                   `json:"cacheUnauthorizedRequests,omitempty"`
	Timeout                                  metav1.Duration         `json:"timeout"`
	SubjectAccessReviewVersion               string                  `json:"subjectAccessReviewVersion"`
	MatchConditionSubjectAccessReviewVersion string                  `json:"matchConditionSubjectAccessReviewVersion"`
	FailurePolicy                            string                  `json:"failurePolicy"`
	ConnectionInfo                           WebhookConnectionInfo   `json:"connectionInfo"`
	MatchConditions                          []WebhookMatchCondition `json:"matchConditions"`
}

// WebhookConnectionInfo is the decoding form of a webhook's connection.
type WebhookConnectionInfo struct {
	Type           string  `json:"type"`
	KubeConfigFile *string `json:"kubeConfigFile"`
}

// WebhookMatchCondition is the decoding form of a match condition.
type WebhookMatchCondition struct {
	Expression string `json:"expression"`
}
