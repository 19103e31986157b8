package authzconfig

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fastDecode decodes a configuration in the plain subset of YAML (see
// blockyaml.go) whose fields are all known and well typed. It answers only
// when it is sure to give exactly what the exact decoder gives; otherwise
// ok is false and the caller decodes exactly, which also words any error.
func fastDecode(data []byte) (cfg *Configuration, ok bool) {
	root, ok := parseBlockYAML(data)
	if !ok || len(root.keys) > 3 {
		return nil, false
	}
	apiVersion, kind := root.value("apiVersion"), root.value("kind")
	if apiVersion == nil || kind == nil || !isYAMLString(kind, "AuthorizationConfiguration") {
		return nil, false
	}
	switch {
	case isYAMLString(apiVersion, GroupName+"/"+VersionV1),
		isYAMLString(apiVersion, GroupName+"/"+VersionV1Beta1),
		isYAMLString(apiVersion, GroupName+"/"+VersionV1Alpha1):
	default:
		return nil, false
	}
	cfg = &Configuration{}
	for i, key := range root.keys {
		switch key {
		case "apiVersion", "kind":
		case "authorizers":
			list := root.values[i]
			if list.kind != yamlSequence {
				return nil, false
			}
			cfg.Authorizers = make([]AuthorizerConfiguration, len(list.items))
			for j, item := range list.items {
				if !fastAuthorizer(item, &cfg.Authorizers[j]) {
					return nil, false
				}
			}
		default:
			return nil, false
		}
	}
	return cfg, true
}

func fastAuthorizer(n *yamlNode, a *AuthorizerConfiguration) bool {
	for i, key := range n.keys {
		v := n.values[i]
		ok := false
		switch key {
		case "type":
			a.Type, ok = yamlString(v)
		case "name":
			a.Name, ok = yamlString(v)
		case "webhook":
			a.Webhook = &WebhookConfiguration{}
			ok = fastWebhook(v, a.Webhook)
		}
		if !ok {
			return false
		}
	}
	return true
}

func fastWebhook(n *yamlNode, w *WebhookConfiguration) bool {
	if n.kind != yamlMapping {
		return false
	}
	for i, key := range n.keys {
		v := n.values[i]
		ok := false
		switch key {
		case "authorizedTTL":
			w.AuthorizedTTL, ok = yamlDuration(v)
		case "unauthorizedTTL":
			w.UnauthorizedTTL, ok = yamlDuration(v)
		case "timeout":
			w.Timeout, ok = yamlDuration(v)
		case "cacheAuthorizedRequests":
			w.CacheAuthorizedRequests, ok = yamlBool(v)
		case "cacheUnauthorizedRequests":
			w.CacheUnauthorizedRequests, ok = yamlBool(v)
		case "subjectAccessReviewVersion":
			w.SubjectAccessReviewVersion, ok = yamlString(v)
		case "matchConditionSubjectAccessReviewVersion":
			w.MatchConditionSubjectAccessReviewVersion, ok = yamlString(v)
		case "failurePolicy":
			w.FailurePolicy, ok = yamlString(v)
		case "connectionInfo":
			ok = fastConnectionInfo(v, &w.ConnectionInfo)
		case "matchConditions":
			w.MatchConditions, ok = fastMatchConditions(v)
		}
		if !ok {
			return false
		}
	}
	setWebhookDefaults(w)
	return true
}

func fastConnectionInfo(n *yamlNode, c *WebhookConnectionInfo) bool {
	if n.kind != yamlMapping {
		return false
	}
	for i, key := range n.keys {
		v := n.values[i]
		ok := false
		switch key {
		case "type":
			c.Type, ok = yamlString(v)
		case "kubeConfigFile":
			var file string
			file, ok = yamlString(v)
			c.KubeConfigFile = &file
		}
		if !ok {
			return false
		}
	}
	return true
}

func fastMatchConditions(n *yamlNode) ([]WebhookMatchCondition, bool) {
	if n.kind != yamlSequence {
		return nil, false
	}
	conditions := make([]WebhookMatchCondition, len(n.items))
	for i, item := range n.items {
		for j, key := range item.keys {
			if key != "expression" {
				return nil, false
			}
			var ok bool
			if conditions[i].Expression, ok = yamlString(item.values[j]); !ok {
				return nil, false
			}
		}
	}
	return conditions, true
}

// yamlString returns a scalar that YAML 1.1, as kube-apiserver's YAML
// parser resolves it, certainly reads as a string: quoted, or plain and
// starting with a letter, '/', '_' or '(' without being one of the words
// that read as booleans or null.
func yamlString(n *yamlNode) (string, bool) {
	if n.kind != yamlScalar {
		return "", false
	}
	if n.quoted {
		return n.scalar, true
	}
	s := n.scalar
	switch c := s[0]; {
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		if isYAMLKeyword(s) {
			return "", false
		}
	case c == '/' || c == '_' || c == '(':
	default:
		return "", false
	}
	return s, true
}

func isYAMLString(n *yamlNode, want string) bool {
	s, ok := yamlString(n)
	return ok && s == want
}

// isYAMLKeyword reports the plain words that YAML 1.1 reads as booleans or
// null.
func isYAMLKeyword(s string) bool {
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "true", "false", "on", "off", "null":
		return true
	}
	return false
}

// yamlBool returns a plain true or false.
func yamlBool(n *yamlNode) (*bool, bool) {
	if n.kind != yamlScalar || n.quoted {
		return nil, false
	}
	switch n.scalar {
	case "true":
		return newBool(true), true
	case "false":
		return newBool(false), true
	}
	return nil, false
}

// yamlDuration returns a duration, written as Go writes durations. A plain
// duration always has a unit, so YAML reads it as a string, never as a
// number or a timestamp; a plain number without a unit is not a duration
// here.
func yamlDuration(n *yamlNode) (metav1.Duration, bool) {
	if n.kind != yamlScalar {
		return metav1.Duration{}, false
	}
	s := n.scalar
	if !n.quoted && !strings.ContainsAny(s, "nsuµmh") {
		return metav1.Duration{}, false
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return metav1.Duration{}, false
	}
	return metav1.Duration{Duration: d}, true
}

func newBool(b bool) *bool { return &b }
