package authzconfig

import (
	"github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/apiserver"
	wirev1 "github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/v1"
	"github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/v1alpha1"
	"github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/v1beta1"
)

// The three external versions are field for field identical, but their Go
// types differ (their names are part of the error texts), so each has its
// own conversion.

func fromV1(in *wirev1.AuthorizationConfiguration) *Configuration {
	out := &Configuration{}
	if in.Authorizers != nil {
		out.Authorizers = make([]AuthorizerConfiguration, len(in.Authorizers))
	}
	for i, a := range in.Authorizers {
		o := &out.Authorizers[i]
		o.Type, o.Name = a.Type, a.Name
		if w := a.Webhook; w != nil {
			o.Webhook = &WebhookConfiguration{
				AuthorizedTTL:                            w.AuthorizedTTL,
				CacheAuthorizedRequests:                  w.CacheAuthorizedRequests,
				UnauthorizedTTL:                          w.UnauthorizedTTL,
				CacheUnauthorizedRequests:                w.CacheUnauthorizedRequests,
				Timeout:                                  w.Timeout,
				SubjectAccessReviewVersion:               w.SubjectAccessReviewVersion,
				MatchConditionSubjectAccessReviewVersion: w.MatchConditionSubjectAccessReviewVersion,
				FailurePolicy:                            w.FailurePolicy,
				ConnectionInfo: WebhookConnectionInfo{
					Type:           w.ConnectionInfo.Type,
					KubeConfigFile: w.ConnectionInfo.KubeConfigFile,
				},
			}
			if w.MatchConditions != nil {
				o.Webhook.MatchConditions = make([]WebhookMatchCondition, len(w.MatchConditions))
				for j, c := range w.MatchConditions {
					o.Webhook.MatchConditions[j].Expression = c.Expression
				}
			}
			if r := w.ConditionsReview; r != nil {
				o.Webhook.ConditionsReview = &ConditionsReviewConfiguration{Version: r.Version, KubeConfigContextName: r.KubeConfigContextName}
			}
		}
	}
	return out
}
func fromV1Beta1(in *v1beta1.AuthorizationConfiguration) *Configuration {
	out := &Configuration{}
	if in.Authorizers != nil {
		out.Authorizers = make([]AuthorizerConfiguration, len(in.Authorizers))
	}
	for i, a := range in.Authorizers {
		o := &out.Authorizers[i]
		o.Type, o.Name = a.Type, a.Name
		if w := a.Webhook; w != nil {
			o.Webhook = &WebhookConfiguration{
				AuthorizedTTL:                            w.AuthorizedTTL,
				CacheAuthorizedRequests:                  w.CacheAuthorizedRequests,
				UnauthorizedTTL:                          w.UnauthorizedTTL,
				CacheUnauthorizedRequests:                w.CacheUnauthorizedRequests,
				Timeout:                                  w.Timeout,
				SubjectAccessReviewVersion:               w.SubjectAccessReviewVersion,
				MatchConditionSubjectAccessReviewVersion: w.MatchConditionSubjectAccessReviewVersion,
				FailurePolicy:                            w.FailurePolicy,
				ConnectionInfo: WebhookConnectionInfo{
					Type:           w.ConnectionInfo.Type,
					KubeConfigFile: w.ConnectionInfo.KubeConfigFile,
				},
			}
			if w.MatchConditions != nil {
				o.Webhook.MatchConditions = make([]WebhookMatchCondition, len(w.MatchConditions))
				for j, c := range w.MatchConditions {
					o.Webhook.MatchConditions[j].Expression = c.Expression
				}
			}
		}
	}
	return out
}
func fromV1Alpha1(in *v1alpha1.AuthorizationConfiguration) *Configuration {
	out := &Configuration{}
	if in.Authorizers != nil {
		out.Authorizers = make([]AuthorizerConfiguration, len(in.Authorizers))
	}
	for i, a := range in.Authorizers {
		o := &out.Authorizers[i]
		o.Type, o.Name = a.Type, a.Name
		if w := a.Webhook; w != nil {
			o.Webhook = &WebhookConfiguration{
				AuthorizedTTL:                            w.AuthorizedTTL,
				CacheAuthorizedRequests:                  w.CacheAuthorizedRequests,
				UnauthorizedTTL:                          w.UnauthorizedTTL,
				CacheUnauthorizedRequests:                w.CacheUnauthorizedRequests,
				Timeout:                                  w.Timeout,
				SubjectAccessReviewVersion:               w.SubjectAccessReviewVersion,
				MatchConditionSubjectAccessReviewVersion: w.MatchConditionSubjectAccessReviewVersion,
				FailurePolicy:                            w.FailurePolicy,
				ConnectionInfo: WebhookConnectionInfo{
					Type:           w.ConnectionInfo.Type,
					KubeConfigFile: w.ConnectionInfo.KubeConfigFile,
				},
			}
			if w.MatchConditions != nil {
				o.Webhook.MatchConditions = make([]WebhookMatchCondition, len(w.MatchConditions))
				for j, c := range w.MatchConditions {
					o.Webhook.MatchConditions[j].Expression = c.Expression
				}
			}
		}
	}
	return out
}

func fromInternal(in *apiserver.AuthorizationConfiguration) *Configuration {
	out := &Configuration{}
	if in.Authorizers != nil {
		out.Authorizers = make([]AuthorizerConfiguration, len(in.Authorizers))
	}
	for i, a := range in.Authorizers {
		o := &out.Authorizers[i]
		o.Type, o.Name = string(a.Type), a.Name
		if w := a.Webhook; w != nil {
			cacheAuthorized, cacheUnauthorized := w.CacheAuthorizedRequests, w.CacheUnauthorizedRequests
			o.Webhook = &WebhookConfiguration{
				AuthorizedTTL:                            w.AuthorizedTTL,
				CacheAuthorizedRequests:                  &cacheAuthorized,
				UnauthorizedTTL:                          w.UnauthorizedTTL,
				CacheUnauthorizedRequests:                &cacheUnauthorized,
				Timeout:                                  w.Timeout,
				SubjectAccessReviewVersion:               w.SubjectAccessReviewVersion,
				MatchConditionSubjectAccessReviewVersion: w.MatchConditionSubjectAccessReviewVersion,
				FailurePolicy:                            w.FailurePolicy,
				ConnectionInfo: WebhookConnectionInfo{
					Type:           w.ConnectionInfo.Type,
					KubeConfigFile: w.ConnectionInfo.KubeConfigFile,
				},
			}
			if w.MatchConditions != nil {
				o.Webhook.MatchConditions = make([]WebhookMatchCondition, len(w.MatchConditions))
				for j, c := range w.MatchConditions {
					o.Webhook.MatchConditions[j].Expression = c.Expression
				}
			}
		}
	}
	return out
}
