package rbac

import (
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// RulesFor returns the rules that apply to user in namespace ("" for the
// cluster-wide ones only), as kube-apiserver's RBAC rule resolver returns
// them: the rules of the roles of the ClusterRoleBindings, then of the
// RoleBindings of the namespace, that apply to the user, in order, with
// the errors of roles that could not be found. The rules are shared: do
// not modify them.
func (a *Authorizer) RulesFor(user *authorizer.User, namespace string) ([]rbacv1.PolicyRule, error) {
	if user == nil {
		return nil, errNoUser
	}
	var (
		rules []rbacv1.PolicyRule
		errs  []error
	)
	a.snap.Load().visit(user, namespace, func(b *binding, _ int32) bool {
		if b.role == nil {
			errs = append(errs, b.err)
			return true
		}
		for i := range b.role.rules {
			rules = append(rules, *b.role.rules[i].src)
		}
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// SubjectRulesReview answers what kubectl auth can-i --list asks of
// kube-apiserver (a SelfSubjectRulesReview) for user in namespace, with
// RBAC's part of the answer: RulesFor split as kube-apiserver's RBAC
// authorizer splits it, a rule with resources giving a resource rule and a
// rule with non-resource URLs a non-resource rule, and the errors in
// EvaluationError. Incomplete is false, as RBAC says.
func (a *Authorizer) SubjectRulesReview(user *authorizer.User, namespace string) authorizationv1.SubjectRulesReviewStatus {
	rules, err := a.RulesFor(user, namespace)
	st := authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    []authorizationv1.ResourceRule{},
		NonResourceRules: []authorizationv1.NonResourceRule{},
	}
	for _, r := range rules {
		if len(r.Resources) > 0 {
			st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
		}
		if len(r.NonResourceURLs) > 0 {
			st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

// Grant is a binding whose role allows a request: who-can's answer.
type Grant struct {
	Binding ObjectRef
	RoleRef rbacv1.RoleRef
	// Rule is the role's first rule that allows the request, RuleIndex its
	// index in the role's rules.
	Rule      rbacv1.PolicyRule
	RuleIndex int
	// Subjects are the binding's subjects, as written.
	Subjects []rbacv1.Subject
}

// WhoCan returns the bindings whose roles allow the request whoever makes
// it (attrs.User is not read): the ClusterRoleBindings, then the
// RoleBindings of the request's namespace, in the order Authorize asks
// them. The error aggregates the roles that could not be found, of every
// binding asked, as kube-apiserver's subject locator reports them. Members
// of system:masters may do anything and are not listed: see
// AllowedSubjects.
func (a *Authorizer) WhoCan(attrs *authorizer.Attributes) ([]Grant, error) {
	if attrs == nil {
		return nil, nil
	}
	s := a.snap.Load()
	var (
		grants []Grant
		errs   []error
		memo   = map[*role]int{}
	)
	scan := func(set *bindingSet) {
		for _, b := range set.bindings {
			if b.role == nil {
				errs = append(errs, b.err)
				continue
			}
			i, ok := memo[b.role]
			if !ok {
				i = -1
				for j := range b.role.rules {
					if b.role.rules[j].allows(attrs) {
						i = j
						break
					}
				}
				memo[b.role] = i
			}
			if i >= 0 {
				grants = append(grants, Grant{Binding: b.ref, RoleRef: b.roleRef, Rule: *b.role.rules[i].src, RuleIndex: i, Subjects: b.subjects})
			}
		}
	}
	scan(&s.cluster)
	if attrs.Namespace != "" {
		if set := s.namespaced[attrs.Namespace]; set != nil {
			scan(set)
		}
	}
	return grants, utilerrors.NewAggregate(errs)
}

// AllowedSubjects returns the subjects that may make the request, as
// kube-apiserver's RBAC subject locator does (with no superuser): the group
// system:masters first, then the subjects of the bindings WhoCan returns, in
// order, each once.
func (a *Authorizer) AllowedSubjects(attrs *authorizer.Attributes) ([]rbacv1.Subject, error) {
	grants, err := a.WhoCan(attrs)
	subjects := []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: authorizer.SystemPrivilegedGroup}}
	seen := map[rbacv1.Subject]bool{subjects[0]: true}
	for _, g := range grants {
		for _, s := range g.Subjects {
			if !seen[s] {
				seen[s] = true
				subjects = append(subjects, s)
			}
		}
	}
	return subjects, err
}
