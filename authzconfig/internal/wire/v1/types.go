// Package v1 holds the decoding form of apiserver.config.k8s.io/v1
// AuthorizationConfiguration. Its package and type names are part of
// kube-apiserver's decoding error texts ("of type []v1.AuthorizerConfiguration"),
// which is why each version has a package of its own.
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
	// ConditionsReview is 1.38's (conditional authorization); before 138
	// decodes the versions that do not know it.
	ConditionsReview *ConditionsReviewConfiguration `json:"conditionsReview,omitempty"`
}

// ConditionsReviewConfiguration is the decoding form of a webhook's
// conditions review (1.38).
type ConditionsReviewConfiguration struct {
	Version               string `json:"version"`
	KubeConfigContextName string `json:"kubeConfigContextName,omitempty"`
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
