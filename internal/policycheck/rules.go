package policycheck

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// checkRules reports the rules of matchResources (at path) that match no
// resource served: an API group, a version or a resource that no served
// resource has. Such a rule is accepted by kube-apiserver and matches
// nothing, silently: a warning.
func checkRules(kind, name string, mr *admissionregistrationv1.MatchResources, path *field.Path, served []Served, version kube.Version) []Finding {
	if mr == nil {
		return nil
	}
	var out []Finding
	for i, r := range mr.ResourceRules {
		out = append(out, checkRule(kind, name, r.RuleWithOperations.Rule, path.Child("resourceRules").Index(i), served, version)...)
	}
	for i, r := range mr.ExcludeResourceRules {
		out = append(out, checkRule(kind, name, r.RuleWithOperations.Rule, path.Child("excludeResourceRules").Index(i), served, version)...)
	}
	return out
}

func checkRule(kind, name string, r admissionregistrationv1.Rule, path *field.Path, served []Served, version kube.Version) []Finding {
	var out []Finding
	warn := func(p *field.Path, msg, fix string) {
		out = append(out, Finding{Severity: Warning, Rule: RuleUnknownResource, Kind: kind, Name: name, Field: p.String(), Message: msg, Fix: fix})
	}
	anyGroup := slices.Contains(r.APIGroups, "*")
	anyVersion := slices.Contains(r.APIVersions, "*")
	groupOK := func(g string) bool { return anyGroup || slices.Contains(r.APIGroups, g) }
	versionOK := func(v string) bool { return anyVersion || slices.Contains(r.APIVersions, v) }

	allGroups := uniq(served, func(s Served) string { return s.Group })
	for j, g := range r.APIGroups {
		if g == "*" || slices.Contains(allGroups, g) {
			continue
		}
		msg := fmt.Sprintf("no API group %q is served by Kubernetes %s or a CRD given: the rule never matches it", g, version)
		fix := ""
		if n, ok := nearest(g, allGroups); ok {
			fix = fmt.Sprintf("did you mean %q?", n)
			if n == "" {
				fix = `did you mean "" (the core group)?`
			}
		}
		warn(path.Child("apiGroups").Index(j), msg, fix)
	}
	inGroups := func(s Served) bool { return groupOK(s.Group) }
	for j, v := range r.APIVersions {
		if v == "*" {
			continue
		}
		if slices.ContainsFunc(served, func(s Served) bool { return inGroups(s) && s.Version == v }) {
			continue
		}
		versions := uniq(filter(served, inGroups), func(s Served) string { return s.Version })
		if len(versions) == 0 {
			continue // the groups are reported
		}
		msg := fmt.Sprintf("no resource of the rule's API groups is served in version %q (served: %s)", v, strings.Join(versions, ", "))
		fix := ""
		if n, ok := nearest(v, versions); ok {
			fix = fmt.Sprintf("did you mean %q?", n)
		}
		warn(path.Child("apiVersions").Index(j), msg, fix)
	}
	for j, res := range r.Resources {
		resource, sub, hasSub := strings.Cut(res, "/")
		if resource == "*" && (!hasSub || sub == "*") {
			continue
		}
		matches := func(s Served) bool {
			if !groupOK(s.Group) || !versionOK(s.Version) {
				return false
			}
			if resource != "*" && s.Resource != resource {
				return false
			}
			if !hasSub {
				return s.Subresource == ""
			}
			return sub == "*" || s.Subresource == sub
		}
		if slices.ContainsFunc(served, matches) {
			continue
		}
		inScope := filter(served, func(s Served) bool { return groupOK(s.Group) && versionOK(s.Version) })
		if len(inScope) == 0 {
			continue // the groups or versions are reported
		}
		names := uniq(inScope, func(s Served) string {
			if s.Subresource == "" {
				return s.Resource
			}
			return s.Resource + "/" + s.Subresource
		})
		msg := fmt.Sprintf("no resource %q is served in the rule's API groups and versions by Kubernetes %s or a CRD given: the rule never matches it", res, version)
		fix := ""
		if n, ok := nearest(res, names); ok {
			fix = fmt.Sprintf("did you mean %q?", n)
		}
		if elsewhere := filter(served, func(s Served) bool {
			return s.Resource == resource && (!hasSub && s.Subresource == "" || hasSub && (sub == "*" || s.Subresource == sub))
		}); len(elsewhere) > 0 && fix == "" {
			gvs := uniq(elsewhere, func(s Served) string { return schema.GroupVersion{Group: s.Group, Version: s.Version}.String() })
			fix = fmt.Sprintf("%q is served in %s", res, strings.Join(quoteGV(gvs), ", "))
		}
		warn(path.Child("resources").Index(j), msg, fix)
	}
	return out
}

// quoteGV names group versions, the core group as "v1 (core group)".
func quoteGV(gvs []string) []string {
	out := make([]string, len(gvs))
	for i, gv := range gvs {
		if !strings.Contains(gv, "/") {
			gv += ` (group "")`
		}
		out[i] = gv
	}
	return out
}

// matchedKinds returns the kinds of the objects that the resource rules of
// mr match without a wildcard resource, at most maxKinds, sorted.
func matchedKinds(mr *admissionregistrationv1.MatchResources, served []Served) []schema.GroupVersionKind {
	if mr == nil {
		return nil
	}
	seen := map[schema.GroupVersionKind]bool{}
	var out []schema.GroupVersionKind
	for _, nr := range mr.ResourceRules {
		r := nr.RuleWithOperations.Rule
		anyGroup := slices.Contains(r.APIGroups, "*")
		anyVersion := slices.Contains(r.APIVersions, "*")
		for _, res := range r.Resources {
			resource, sub, hasSub := strings.Cut(res, "/")
			if resource == "*" || sub == "*" {
				continue
			}
			for _, s := range served {
				if s.Resource != resource || s.Subresource != sub && hasSub || !hasSub && s.Subresource != "" {
					continue
				}
				if !(anyGroup || slices.Contains(r.APIGroups, s.Group)) || !(anyVersion || slices.Contains(r.APIVersions, s.Version)) {
					continue
				}
				gvk := schema.GroupVersionKind{Group: s.KindGroup, Version: s.KindVersion, Kind: s.Kind}
				if !seen[gvk] {
					seen[gvk] = true
					out = append(out, gvk)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionKind) int {
		return strings.Compare(a.String(), b.String())
	})
	if len(out) > maxKinds {
		out = out[:maxKinds]
	}
	return out
}

// maxKinds bounds the kinds a policy's expressions are checked against.
const maxKinds = 16

func uniq[T any](in []T, key func(T) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range in {
		k := key(x)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func filter[T any](in []T, keep func(T) bool) []T {
	var out []T
	for _, x := range in {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}
