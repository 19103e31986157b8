package rbac

import (
	"testing"

	"github.com/stretchr/testify/assert"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

func res(verb, group, resource, sub, name string) *authorizer.Attributes {
	return &authorizer.Attributes{Verb: verb, ResourceRequest: true, APIGroup: group, Resource: resource, Subresource: sub, Name: name}
}

func path(verb, p string) *authorizer.Attributes {
	return &authorizer.Attributes{Verb: verb, Path: p}
}

func TestRuleAllows(t *testing.T) {
	pods := rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		req  *authorizer.Attributes
		want bool
	}{
		{"verb, group, resource", pods, res("get", "", "pods", "", ""), true},
		{"other verb", pods, res("delete", "", "pods", "", ""), false},
		{"other group", pods, res("get", "apps", "pods", "", ""), false},
		{"other resource", pods, res("get", "", "secrets", "", ""), false},
		{"a subresource is not the resource", pods, res("get", "", "pods", "log", ""), false},
		{"any name", pods, res("get", "", "pods", "", "web"), true},
		{"verb *", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"pods"}}, res("escalate", "", "pods", "", ""), true},
		{"group *", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"pods"}}, res("get", "example.com", "pods", "", ""), true},
		{"resource * covers subresources", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*"}}, res("get", "", "pods", "exec", ""), true},
		{"resource/subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "pods", "log", ""), true},
		{"resource/subresource is not the resource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "pods", "", ""), false},
		{"*/subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, res("get", "", "nodes", "status", ""), true},
		{"*/subresource, other subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, res("get", "", "nodes", "proxy", ""), false},
		{"*/subresource, no subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, res("get", "", "status", "", ""), false},
		{"*/subresource, longer suffix", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/xstatus"}}, res("get", "", "pods", "status", ""), false},
		{"pods/* is not a wildcard", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/*"}}, res("get", "", "pods", "log", ""), false},
		{"resource with a slash and no subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"a/b"}}, res("get", "", "a/b", "", ""), true},
		{"resource name listed", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"web"}}, res("get", "", "pods", "", "web"), true},
		{"resource name not listed", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"web"}}, res("get", "", "pods", "", "db"), false},
		{"resource names and a list without name", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"web"}}, res("list", "", "pods", "", ""), false},
		{"no verbs", rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}}, res("get", "", "pods", "", ""), false},
		{"resource rule, non-resource request", pods, path("get", "/api"), false},
		{"URL exact", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, path("get", "/healthz"), true},
		{"URL exact, longer path", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, path("get", "/healthz/ready"), false},
		{"URL prefix", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz/*"}}, path("get", "/healthz/ready"), true},
		{"URL prefix needs its slash", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz/*"}}, path("get", "/healthz"), false},
		{"URL prefix without slash", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/api*"}}, path("get", "/apis/apps"), true},
		{"URL prefix, several stars", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/ver**"}}, path("get", "/version"), true},
		{"URL *", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, path("get", "/anything"), true},
		{"URL, other verb", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, path("post", "/anything"), false},
		{"URL rule, resource request", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, res("get", "", "pods", "", ""), false},
		{"a star inside is literal", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/a*b"}}, path("get", "/axb"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRule(&tt.rule)
			assert.Equal(t, tt.want, r.allows(tt.req))
		})
	}
}
