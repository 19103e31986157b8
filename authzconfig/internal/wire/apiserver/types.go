// Package apiserver holds the decoding form of kube-apiserver's internal
// version of AuthorizationConfiguration. kube-apiserver decodes a file whose
// apiVersion is apiserver.config.k8s.io/__internal straight into its internal
// type: field names without JSON tags (so "Type", "Webhook"), cache switches
// that are plain booleans, and no defaulting. The package and type names are
// part of the error texts.
package apiserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AuthorizationConfiguration is the decoding form of the internal version.
type AuthorizationConfiguration struct {
	metav1.TypeMeta
	Authorizers []AuthorizerConfiguration `json:"authorizers"`
}

// AuthorizerType is the internal type of an authorizer's type.
type AuthorizerType string

// AuthorizerConfiguration is the internal form of one authorizer.
type AuthorizerConfiguration struct {
	Type    AuthorizerType
	Name    string
	Webhook *WebhookConfiguration
}

// WebhookConfiguration is the internal form of a webhook's settings.
type WebhookConfiguration struct {
	AuthorizedTTL                            metav1.Duration
	CacheAuthorizedRequests                  bool
	UnauthorizedTTL                          metav1.Duration
	CacheUnauthorizedRequests                bool
	Timeout                                  metav1.Duration
	SubjectAccessReviewVersion               string
	MatchConditionSubjectAccessReviewVersion string
	FailurePolicy                            string
	ConnectionInfo                           WebhookConnectionInfo
	MatchConditions                          []WebhookMatchCondition
}

// WebhookConnectionInfo is the internal form of a webhook's connection.
type WebhookConnectionInfo struct {
	Type           string
	KubeConfigFile *string
}

// WebhookMatchCondition is the internal form of a match condition.
type WebhookMatchCondition struct {
	Expression string
}
