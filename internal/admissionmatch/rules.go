package admissionmatch

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// rule is one RuleWithOperations (or NamedRuleWithOperations), prepared:
// the operations as a bit set, wildcards as flags, resources split once.
type rule struct {
	scope    scope
	ops      opSet
	groups   stringSet
	versions stringSet
	// resources are the rule's resources split at the first "/".
	resources []resourcePattern
	// names are a policy rule's resourceNames; empty matches every name.
	names []string
}

type scope uint8

const (
	scopeAll        scope = iota // nil or "*"
	scopeNamespaced              // "Namespaced"
	scopeCluster                 // "Cluster"
	scopeNone                    // any other value: nothing
)

// opSet is a set of operations: the four known ones as bits, "*" as all,
// and any other string as itself.
type opSet struct {
	bits  opBits
	all   bool
	other []string
}

type opBits uint8

const (
	opCreate opBits = 1 << iota
	opUpdate
	opDelete
	opConnect
)

func opBit(op string) opBits {
	switch op {
	case string(admissionv1.Create):
		return opCreate
	case string(admissionv1.Update):
		return opUpdate
	case string(admissionv1.Delete):
		return opDelete
	case string(admissionv1.Connect):
		return opConnect
	}
	return 0
}

func (s *opSet) has(op admissionv1.Operation) bool {
	if s.all {
		return true
	}
	if b := opBit(string(op)); b != 0 {
		return s.bits&b != 0
	}
	for _, o := range s.other {
		if o == string(op) {
			return true
		}
	}
	return false
}

// stringSet matches a string exactly, or any string with "*".
type stringSet struct {
	all   bool
	items []string
}

func newStringSet(items []string) stringSet {
	s := stringSet{}
	for _, item := range items {
		if item == "*" {
			return stringSet{all: true}
		}
		s.items = append(s.items, item)
	}
	return s
}

func (s *stringSet) has(v string) bool {
	if s.all {
		return true
	}
	for _, item := range s.items {
		if item == v {
			return true
		}
	}
	return false
}

// resourcePattern is one entry of a rule's resources: "res", "res/sub",
// with "*" for any resource or any subresource.
type resourcePattern struct {
	res, sub       string
	anyRes, anySub bool
}

func newRule(r *admissionregistrationv1.RuleWithOperations, names []string) rule {
	c := rule{
		groups:   newStringSet(r.APIGroups),
		versions: newStringSet(r.APIVersions),
		names:    names,
	}
	switch {
	case r.Scope == nil || *r.Scope == admissionregistrationv1.AllScopes:
		c.scope = scopeAll
	case *r.Scope == admissionregistrationv1.NamespacedScope:
		c.scope = scopeNamespaced
	case *r.Scope == admissionregistrationv1.ClusterScope:
		c.scope = scopeCluster
	default:
		c.scope = scopeNone
	}
	for _, op := range r.Operations {
		if op == admissionregistrationv1.OperationAll {
			c.ops = opSet{all: true}
			break
		}
		if b := opBit(string(op)); b != 0 {
			c.ops.bits |= b
		} else {
			c.ops.other = append(c.ops.other, string(op))
		}
	}
	c.resources = make([]resourcePattern, len(r.Resources))
	for i, resSub := range r.Resources {
		res, sub, _ := strings.Cut(resSub, "/")
		c.resources[i] = resourcePattern{res: res, sub: sub, anyRes: res == "*", anySub: sub == "*"}
	}
	return c
}

// namespaceResource is the resource of Namespace objects, which the scopes
// treat as cluster-scoped (in this version only, as kube-apiserver does).
var namespaceResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// inScope reports whether the scope admits resource (the request's, or an
// equivalent one) in the request's namespace.
func (s scope) admits(resource *schema.GroupVersionResource, namespace string) bool {
	switch s {
	case scopeAll:
		return true
	case scopeNamespaced:
		return *resource != namespaceResource && namespace != ""
	case scopeCluster:
		return *resource == namespaceResource || namespace == ""
	}
	return false
}

// matchesIgnoringScope reports whether the rule matches the request's
// operation and subresource and the given resource's group, version and
// resource.
func (c *rule) matchesIgnoringScope(r *Request, resource *schema.GroupVersionResource) bool {
	if !c.ops.has(r.Operation) || !c.groups.has(resource.Group) || !c.versions.has(resource.Version) {
		return false
	}
	for i := range c.resources {
		p := &c.resources[i]
		if (p.anyRes || p.res == resource.Resource) && (p.anySub || p.sub == r.Subresource) {
			return true
		}
	}
	return false
}

// matches is kube-apiserver's rules.Matcher: scope, operation, group,
// version and resource.
func (c *rule) matches(r *Request, resource *schema.GroupVersionResource) bool {
	return c.scope.admits(resource, r.Namespace) && c.matchesIgnoringScope(r, resource)
}

func (c *rule) matchesName(name string) bool {
	if len(c.names) == 0 {
		return true
	}
	for _, n := range c.names {
		if n == name {
			return true
		}
	}
	return false
}

// ruleSet is the rules of one webhook, or the resourceRules or the
// excludeResourceRules of one policy.
type ruleSet struct {
	rules []rule
	// equivalent: match equivalent resources when no rule matches the
	// request's own.
	equivalent bool
	// webhook: an unknown kind is an internal error (the webhook
	// dispatcher's), rather than a plain error (the policy matcher's).
	webhook bool
}

// ruleMatch is the outcome of a ruleSet: small, so that the many hooks
// that do not match cost little; the matched resource and kind are written
// to the Result only on a match.
type ruleMatch struct {
	matched    bool
	equivalent bool // matched through an equivalent resource
	rule       int  // index of the rule that matched, or -1
	err        error
}

// match is kube-apiserver's pass over the rules: the request's own resource
// against every rule first, then, for matchPolicy Equivalent, each rule
// against each equivalent resource. On a match it sets out's Resource and
// Kind.
func (s *ruleSet) match(r *Request, out *Result) ruleMatch {
	for i := range s.rules {
		c := &s.rules[i]
		if c.matches(r, &r.Resource) && c.matchesName(r.Name) {
			out.Resource, out.Kind = r.Resource, r.Kind
			return ruleMatch{matched: true, rule: i}
		}
	}
	if !s.equivalent || len(s.rules) == 0 {
		return ruleMatch{rule: -1}
	}
	equivalents := r.equivalentResources()
	for i := range s.rules {
		c := &s.rules[i]
		for j := range equivalents {
			equivalent := &equivalents[j]
			if *equivalent == r.Resource || !c.matches(r, equivalent) {
				continue
			}
			kind := r.Equivalents.KindFor(*equivalent, r.Subresource)
			if kind.Empty() {
				err := fmt.Errorf("unable to convert to %v: unknown kind", *equivalent)
				if s.webhook {
					err = apierrors.NewInternalError(err)
				}
				return ruleMatch{err: err, rule: i, equivalent: true}
			}
			if c.matchesName(r.Name) {
				out.Resource, out.Kind = *equivalent, kind
				return ruleMatch{matched: true, rule: i, equivalent: true}
			}
		}
	}
	return ruleMatch{rule: -1}
}

// whyNot tells, for Explain, why no rule matched: a rule that matched but for
// its scope, or but for the name.
func (s *ruleSet) whyNot(r *Request) Reason {
	names, scopes := false, false
	check := func(c *rule, resource *schema.GroupVersionResource) {
		if c.matchesIgnoringScope(r, resource) {
			if !c.scope.admits(resource, r.Namespace) {
				scopes = true
			} else if !c.matchesName(r.Name) {
				names = true
			}
		}
	}
	for i := range s.rules {
		check(&s.rules[i], &r.Resource)
		if s.equivalent {
			for _, e := range r.equivalentResources() {
				if e != r.Resource {
					check(&s.rules[i], &e)
				}
			}
		}
	}
	switch {
	case names:
		return ReasonResourceNames
	case scopes:
		return ReasonScope
	}
	return ReasonRules
}
