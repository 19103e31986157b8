package rbac

import (
	"context"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// Explanation tells how the authorizer decided a request.
type Explanation struct {
	// Decision, Reason and Err are what Authorize returns.
	Decision authorizer.Decision
	Reason   string
	Err      error

	// Binding, Subject, Role, Rule and RuleIndex say what allowed the
	// request: the binding, its subject that applies to the user, the role
	// it refers to, and the role's first rule that matches (its index in
	// the role's rules). They are zero unless Decision is Allow.
	Binding   ObjectRef
	Subject   rbacv1.Subject
	Role      ObjectRef
	Rule      rbacv1.PolicyRule
	RuleIndex int

	// Applied lists the bindings that apply to the user, in the order they
	// were asked, up to the one that allowed.
	Applied []AppliedBinding
}

// AppliedBinding is a binding that applies to the user of a request.
type AppliedBinding struct {
	Binding ObjectRef
	// Subject is the binding's first subject that applies to the user.
	Subject rbacv1.Subject
	RoleRef rbacv1.RoleRef
	// Err is set when the role could not be found.
	Err error
	// Allowed is true for the binding that allowed the request.
	Allowed bool
}

// Explain decides as Authorize does and tells how.
func (a *Authorizer) Explain(_ context.Context, attrs *authorizer.Attributes) *Explanation {
	e := &Explanation{Decision: authorizer.DecisionNoOpinion, RuleIndex: -1}
	if attrs == nil || attrs.User == nil {
		e.Err = errNoUser
		return e
	}
	var errs []error
	a.snap.Load().visit(attrs.User, attrs.Namespace, func(b *binding, subject int32) bool {
		ab := AppliedBinding{Binding: b.ref, Subject: b.subjects[subject], RoleRef: b.roleRef, Err: b.err}
		if b.role == nil {
			errs = append(errs, b.err)
			e.Applied = append(e.Applied, ab)
			return true
		}
		for i := range b.role.rules {
			if b.role.rules[i].allows(attrs) {
				ab.Allowed = true
				e.Applied = append(e.Applied, ab)
				e.Decision, e.Reason = authorizer.DecisionAllow, b.reasons[subject]
				e.Binding, e.Subject, e.Role = b.ref, b.subjects[subject], b.role.ref
				e.Rule, e.RuleIndex = *b.role.rules[i].src, i
				return false
			}
		}
		e.Applied = append(e.Applied, ab)
		return true
	})
	if e.Decision != authorizer.DecisionAllow && len(errs) > 0 {
		e.Reason = "RBAC: " + utilerrors.NewAggregate(errs).Error()
	}
	return e
}

// AuthorizeExplained decides as Authorize does and returns the lines of
// Explanation.Details: authorizer.Explain shows them in its trace.
func (a *Authorizer) AuthorizeExplained(ctx context.Context, attrs *authorizer.Attributes) (authorizer.Decision, string, []string, error) {
	e := a.Explain(ctx, attrs)
	return e.Decision, e.Reason, e.Details(), e.Err
}

// Details describes the explanation in lines: each binding that applied,
// and for the one that allowed, the role and the rule.
func (e *Explanation) Details() []string {
	if len(e.Applied) == 0 {
		if e.Err != nil {
			return nil
		}
		return []string{"no binding applies to the user"}
	}
	lines := make([]string, 0, len(e.Applied)+1)
	for _, ab := range e.Applied {
		line := fmt.Sprintf("%s (subject %s) → %s %q", ab.Binding, describeSubject(&ab.Subject, ab.Binding.Namespace), ab.RoleRef.Kind, ab.RoleRef.Name)
		switch {
		case ab.Err != nil:
			line += ": " + ab.Err.Error()
		case ab.Allowed:
			line += fmt.Sprintf(": allowed by rules[%d] %s", e.RuleIndex, RuleString(&e.Rule))
		default:
			line += ": no rule matches"
		}
		lines = append(lines, line)
	}
	return lines
}

// String renders the explanation: the decision and reason, then the
// details, one a line.
func (e *Explanation) String() string {
	var b strings.Builder
	b.WriteString(e.Decision.String())
	if e.Reason != "" {
		fmt.Fprintf(&b, " %q", e.Reason)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, " error: %v", e.Err)
	}
	for _, l := range e.Details() {
		b.WriteString("\n  ")
		b.WriteString(l)
	}
	return b.String()
}

// RuleString renders a rule in one line, the fields it sets in the order of
// kubectl describe: apiGroups, resources, resourceNames, nonResourceURLs,
// verbs.
func RuleString(r *rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s=%q", name, v))
		}
	}
	add("apiGroups", r.APIGroups)
	add("resources", r.Resources)
	add("resourceNames", r.ResourceNames)
	add("nonResourceURLs", r.NonResourceURLs)
	add("verbs", r.Verbs)
	return "{" + strings.Join(parts, " ") + "}"
}

// visit calls fn with each binding that applies to u in a request in
// namespace, in kube-apiserver's order, and the index of its first subject
// that applies, until fn returns false.
func (s *snapshot) visit(u *authorizer.User, namespace string, fn func(b *binding, subject int32) bool) {
	if !s.cluster.visit(u, fn) {
		return
	}
	if namespace != "" {
		if set := s.namespaced[namespace]; set != nil {
			set.visit(u, fn)
		}
	}
}

func (set *bindingSet) visit(u *authorizer.User, fn func(b *binding, subject int32) bool) bool {
	var buf [16]hit
	last := int32(-1)
	for _, h := range set.applicable(u, buf[:0]) {
		if h.pos == last {
			continue
		}
		last = h.pos
		if !fn(set.bindings[h.pos], h.subject) {
			return false
		}
	}
	return true
}
