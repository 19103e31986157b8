package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// rule is a PolicyRule prepared for matching. It matches exactly what
// kube-apiserver's RuleAllows matches.
type rule struct {
	src *rbacv1.PolicyRule

	anyVerb, anyGroup, anyResource, anyURL bool
	verbs, groups, resources, names        []string
	urls                                   []string
	// urlPrefixes are the rule's URLs ending in "*", with every trailing "*"
	// removed: kube-apiserver matches a path that starts with one.
	urlPrefixes []string
}

func newRule(src *rbacv1.PolicyRule) rule {
	r := rule{src: src, verbs: src.Verbs, groups: src.APIGroups, resources: src.Resources, names: src.ResourceNames, urls: src.NonResourceURLs}
	r.anyVerb = has(src.Verbs, rbacv1.VerbAll)
	r.anyGroup = has(src.APIGroups, rbacv1.APIGroupAll)
	r.anyResource = has(src.Resources, rbacv1.ResourceAll)
	r.anyURL = has(src.NonResourceURLs, rbacv1.NonResourceAll)
	for _, u := range src.NonResourceURLs {
		if strings.HasSuffix(u, "*") {
			r.urlPrefixes = append(r.urlPrefixes, strings.TrimRight(u, "*"))
		}
	}
	return r
}

func has(set []string, s string) bool {
	for _, e := range set {
		if e == s {
			return true
		}
	}
	return false
}

// allows reports whether the rule allows the request.
func (r *rule) allows(a *authorizer.Attributes) bool {
	if !r.anyVerb && !has(r.verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return r.allowsPath(a.Path)
	}
	return (r.anyGroup || has(r.groups, a.APIGroup)) &&
		r.allowsResource(a.Resource, a.Subresource) &&
		(len(r.names) == 0 || has(r.names, a.Name))
}

// allowsResource matches "resource" or "resource/subresource" exactly,
// "*", and "*/subresource" when the request has that subresource.
func (r *rule) allowsResource(resource, subresource string) bool {
	if r.anyResource {
		return true
	}
	for _, rr := range r.resources {
		if subresource == "" {
			if rr == resource {
				return true
			}
			continue
		}
		if len(rr) == len(resource)+1+len(subresource) && rr[len(resource)] == '/' &&
			rr[:len(resource)] == resource && rr[len(resource)+1:] == subresource {
			return true
		}
		if len(rr) == len(subresource)+2 && rr[0] == '*' && rr[1] == '/' && rr[2:] == subresource {
			return true
		}
	}
	return false
}

// allowsPath matches "*", the path exactly, or a prefix ending in "*".
func (r *rule) allowsPath(path string) bool {
	if r.anyURL || has(r.urls, path) {
		return true
	}
	for _, p := range r.urlPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}
