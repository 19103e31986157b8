package authzconfig

import (
	"fmt"
	"time"

	yamlv2 "go.yaml.in/yaml/v2"
)

// Encode writes the configuration as a YAML AuthorizationConfiguration of
// the given version (v1alpha1, v1beta1 or v1), ready for
// --authorization-config. Keys come in a fixed, readable order (apiVersion,
// kind, authorizers; type and name first). Zero durations, empty strings and
// nil fields are left out; nil lists are left out and empty ones written as
// [], so that decoding the output gives back the configuration Decode gave
// (a zero TTL, which only kube-apiserver's internal version can hold, comes
// back defaulted).
func Encode(cfg *Configuration, version string) ([]byte, error) {
	switch version {
	case VersionV1, VersionV1Beta1, VersionV1Alpha1:
	default:
		return nil, fmt.Errorf("cannot encode AuthorizationConfiguration version %q: want %s, %s or %s",
			version, VersionV1Alpha1, VersionV1Beta1, VersionV1)
	}
	doc := yamlv2.MapSlice{
		{Key: "apiVersion", Value: GroupName + "/" + version},
		{Key: "kind", Value: Kind},
	}
	if cfg.Authorizers != nil {
		authorizers := make([]yamlv2.MapSlice, len(cfg.Authorizers))
		for i := range cfg.Authorizers {
			authorizers[i] = encodeAuthorizer(&cfg.Authorizers[i], version)
		}
		doc = append(doc, yamlv2.MapItem{Key: "authorizers", Value: authorizers})
	}
	return yamlv2.Marshal(doc)
}

// mapBuilder collects the keys of one YAML mapping, leaving out zero values.
type mapBuilder struct{ m yamlv2.MapSlice }

func (b *mapBuilder) string(key, value string) {
	if value != "" {
		b.m = append(b.m, yamlv2.MapItem{Key: key, Value: value})
	}
}

func (b *mapBuilder) duration(key string, value time.Duration) {
	if value != 0 {
		b.m = append(b.m, yamlv2.MapItem{Key: key, Value: value.String()})
	}
}

func (b *mapBuilder) value(key string, value any) {
	b.m = append(b.m, yamlv2.MapItem{Key: key, Value: value})
}

func encodeAuthorizer(a *AuthorizerConfiguration, version string) yamlv2.MapSlice {
	var b mapBuilder
	b.string("type", a.Type)
	b.string("name", a.Name)
	if w := a.Webhook; w != nil {
		var wb mapBuilder
		wb.duration("authorizedTTL", w.AuthorizedTTL.Duration)
		if w.CacheAuthorizedRequests != nil {
			wb.value("cacheAuthorizedRequests", *w.CacheAuthorizedRequests)
		}
		wb.duration("unauthorizedTTL", w.UnauthorizedTTL.Duration)
		if w.CacheUnauthorizedRequests != nil {
			wb.value("cacheUnauthorizedRequests", *w.CacheUnauthorizedRequests)
		}
		wb.duration("timeout", w.Timeout.Duration)
		wb.string("subjectAccessReviewVersion", w.SubjectAccessReviewVersion)
		wb.string("matchConditionSubjectAccessReviewVersion", w.MatchConditionSubjectAccessReviewVersion)
		wb.string("failurePolicy", w.FailurePolicy)
		var cb mapBuilder
		cb.string("type", w.ConnectionInfo.Type)
		if w.ConnectionInfo.KubeConfigFile != nil {
			// An empty path is kept: for InClusterConfig, present and
			// absent differ.
			cb.value("kubeConfigFile", *w.ConnectionInfo.KubeConfigFile)
		}
		if cb.m != nil {
			wb.value("connectionInfo", cb.m)
		}
		if w.MatchConditions != nil {
			conditions := make([]yamlv2.MapSlice, len(w.MatchConditions))
			for i, c := range w.MatchConditions {
				conditions[i] = yamlv2.MapSlice{{Key: "expression", Value: c.Expression}}
			}
			wb.value("matchConditions", conditions)
		}
		if r := w.ConditionsReview; r != nil && version == VersionV1 {
			// v1alpha1 and v1beta1 have no such field: converting to them
			// drops it, as kube-apiserver's conversion does.
			var rb mapBuilder
			rb.string("version", r.Version)
			rb.string("kubeConfigContextName", r.KubeConfigContextName)
			if rb.m == nil {
				rb.m = yamlv2.MapSlice{}
			}
			wb.value("conditionsReview", rb.m)
		}
		if wb.m == nil {
			wb.m = yamlv2.MapSlice{}
		}
		b.value("webhook", wb.m)
	}
	if b.m == nil {
		b.m = yamlv2.MapSlice{}
	}
	return b.m
}
