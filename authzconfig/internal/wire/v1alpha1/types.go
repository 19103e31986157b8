// Package v1alpha1 holds the decoding form of apiserver.config.k8s.io/v1alpha1
// AuthorizationConfiguration. Its package and type names are part of
// kube-apiserver's decoding error texts ("of type []v1.AuthorizerConfiguration"),
// which is why each version has a package of its own.
package v1alpha1

import (
	"time"

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

// SetDefaults applies the version's defaults, as decoding in kube-apiserver
// does: zero TTLs (absent or explicit) become 5m and 30s, and absent cache
// switches become true.
func SetDefaults(c *AuthorizationConfiguration) {
	for i := range c.Authorizers {
		w := c.Authorizers[i].Webhook
		if w == nil {
			continue
		}
		if w.AuthorizedTTL.Duration == 0 {
			w.AuthorizedTTL.Duration = 5 * time.Minute
		}
		if w.CacheAuthorizedRequests == nil {
			w.CacheAuthorizedRequests = newTrue()
		}
		if w.UnauthorizedTTL.Duration == 0 {
			w.UnauthorizedTTL.Duration = 30 * time.Second
		}
		if w.CacheUnauthorizedRequests == nil {
			w.CacheUnauthorizedRequests = newTrue()
		}
	}
}

func newTrue() *bool {
	t := true
	return &t
}
