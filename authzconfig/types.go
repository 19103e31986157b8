package authzconfig

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The API group, versions and kind of the configuration file.
const (
	GroupName = "apiserver.config.k8s.io"
	Kind      = "AuthorizationConfiguration"

	VersionV1Alpha1 = "v1alpha1"
	VersionV1Beta1  = "v1beta1"
	VersionV1       = "v1"
)

// Authorizer types. kube-apiserver knows the six; a generic apiserver
// typically knows only Webhook (the caller chooses, see ValidateOptions).
const (
	TypeAlwaysAllow = "AlwaysAllow"
	TypeAlwaysDeny  = "AlwaysDeny"
	TypeABAC        = "ABAC"
	TypeWebhook     = "Webhook"
	TypeRBAC        = "RBAC"
	TypeNode        = "Node"
)

// Failure policies of a webhook authorizer: the decision when the webhook
// cannot be reached, answers with a malformed response, or a match condition
// fails to evaluate.
const (
	FailurePolicyNoOpinion = "NoOpinion"
	FailurePolicyDeny      = "Deny"
)

// Connection types of a webhook authorizer.
const (
	ConnectionTypeKubeConfigFile  = "KubeConfigFile"
	ConnectionTypeInClusterConfig = "InClusterConfig"
)

// SubjectAccessReview versions: a webhook may be sent v1 or v1beta1; match
// conditions always see v1.
const (
	SubjectAccessReviewVersionV1      = "v1"
	SubjectAccessReviewVersionV1Beta1 = "v1beta1"
)

// ConditionsReviewVersionV1Alpha1 is the one AuthorizationConditionsReview
// version of Kubernetes 1.38.
const ConditionsReviewVersionV1Alpha1 = "v1alpha1"

// Configuration is the in-memory form of an AuthorizationConfiguration of any
// of the three versions (they are field for field identical). The JSON names
// are those of the external versions.
type Configuration struct {
	// Authorizers is the ordered chain; the order is the evaluation order.
	Authorizers []AuthorizerConfiguration `json:"authorizers"`
}

// AuthorizerConfiguration is one authorizer of the chain.
type AuthorizerConfiguration struct {
	// Type is one of the Type* constants (or whatever the caller's server knows).
	Type string `json:"type"`
	// Name identifies the authorizer in metrics and reasons; a DNS-1123 subdomain.
	Name string `json:"name"`
	// Webhook is set when, and only when, Type is Webhook.
	Webhook *WebhookConfiguration `json:"webhook,omitempty"`
}

// WebhookConfiguration configures a webhook authorizer.
type WebhookConfiguration struct {
	// AuthorizedTTL is how long an allowed decision is cached. Decoding turns
	// zero (absent or an explicit 0s) into 5m, as kube-apiserver does.
	AuthorizedTTL metav1.Duration `json:"authorizedTTL"`
	// CacheAuthorizedRequests turns caching of allowed decisions off when
	// false. Nil means true, the default; decoding fills it in.
	CacheAuthorizedRequests *bool `json:"cacheAuthorizedRequests,omitempty"`
	// UnauthorizedTTL is how long a denied or no-opinion decision is cached.
	// Decoding turns zero into 30s.
	UnauthorizedTTL metav1.Duration `json:"unauthorizedTTL"`
	// CacheUnauthorizedRequests turns caching of denied and no-opinion
	// decisions off when false. Nil means true, the default; decoding fills it in.
	CacheUnauthorizedRequests *bool `json:"cacheUnauthorizedRequests,omitempty"`
	// Timeout bounds each webhook request; required, at most 30s.
	Timeout metav1.Duration `json:"timeout"`
	// SubjectAccessReviewVersion is the version sent to the webhook: v1 or v1beta1.
	SubjectAccessReviewVersion string `json:"subjectAccessReviewVersion"`
	// MatchConditionSubjectAccessReviewVersion is the version the match
	// conditions see; only v1, required when there are match conditions.
	MatchConditionSubjectAccessReviewVersion string `json:"matchConditionSubjectAccessReviewVersion"`
	// FailurePolicy is NoOpinion or Deny.
	FailurePolicy string `json:"failurePolicy"`
	// ConnectionInfo says how to reach the webhook.
	ConnectionInfo WebhookConnectionInfo `json:"connectionInfo"`
	// MatchConditions are CEL expressions over the SubjectAccessReview spec
	// (variable request); the webhook is called only if all are true.
	MatchConditions []WebhookMatchCondition `json:"matchConditions"`
	// ConditionsReview configures conditional authorization (Kubernetes
	// 1.38, v1 only, gate ConditionalAuthorization): how the webhook's
	// conditions are evaluated. Package authorizer's webhook offers
	// conditional decisions (AuthorizeConditionally) and evaluates them
	// there (EvaluateConditions) when the gate is on.
	ConditionsReview *ConditionsReviewConfiguration `json:"conditionsReview,omitempty"`
}

// ConditionsReviewConfiguration is a webhook's conditions review (1.38).
type ConditionsReviewConfiguration struct {
	// Version of AuthorizationConditionsReview: only v1alpha1.
	Version string `json:"version"`
	// KubeConfigContextName is the context of the webhook's kubeconfig file
	// to reach the conditions review endpoint; only with connection type
	// KubeConfigFile. Empty: the kubeconfig's default context.
	KubeConfigContextName string `json:"kubeConfigContextName,omitempty"`
}

// CachesAuthorized reports whether allowed decisions are cached (nil means yes).
func (w *WebhookConfiguration) CachesAuthorized() bool {
	return w.CacheAuthorizedRequests == nil || *w.CacheAuthorizedRequests
}

// CachesUnauthorized reports whether denied and no-opinion decisions are
// cached (nil means yes).
func (w *WebhookConfiguration) CachesUnauthorized() bool {
	return w.CacheUnauthorizedRequests == nil || *w.CacheUnauthorizedRequests
}

// WebhookConnectionInfo says how to reach a webhook.
type WebhookConnectionInfo struct {
	// Type is KubeConfigFile or InClusterConfig.
	Type string `json:"type"`
	// KubeConfigFile is the absolute path of a kubeconfig file naming the
	// webhook; required for KubeConfigFile, forbidden (even empty) for
	// InClusterConfig.
	KubeConfigFile *string `json:"kubeConfigFile"`
}

// WebhookMatchCondition is one CEL match condition.
type WebhookMatchCondition struct {
	// Expression is a CEL expression that must evaluate to a bool.
	Expression string `json:"expression"`
}

// DeepCopy returns a copy of the configuration that shares no memory with it.
func (c *Configuration) DeepCopy() *Configuration {
	if c == nil {
		return nil
	}
	out := &Configuration{}
	if c.Authorizers != nil {
		out.Authorizers = make([]AuthorizerConfiguration, len(c.Authorizers))
	}
	for i, a := range c.Authorizers {
		out.Authorizers[i] = a
		if a.Webhook == nil {
			continue
		}
		w := *a.Webhook
		w.CacheAuthorizedRequests = copyPtr(w.CacheAuthorizedRequests)
		w.CacheUnauthorizedRequests = copyPtr(w.CacheUnauthorizedRequests)
		w.ConnectionInfo.KubeConfigFile = copyPtr(w.ConnectionInfo.KubeConfigFile)
		if w.MatchConditions != nil {
			w.MatchConditions = append([]WebhookMatchCondition{}, w.MatchConditions...)
		}
		out.Authorizers[i].Webhook = &w
	}
	return out
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
