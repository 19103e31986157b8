package rbac

import (
	"errors"
	"fmt"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The kinds of bindings and roles, as they appear in reasons and RoleRefs.
const (
	KindClusterRoleBinding = "ClusterRoleBinding"
	KindRoleBinding        = "RoleBinding"
	KindClusterRole        = "ClusterRole"
	KindRole               = "Role"
)

// serviceAccountPrefix starts the user name of a service account:
// system:serviceaccount:<namespace>:<name>.
const serviceAccountPrefix = "system:serviceaccount:"

var errMissingLister = errors.New("rbac: every lister of Listers must be set")

// role is a Role or ClusterRole with its rules prepared.
type role struct {
	ref   ObjectRef
	rules []rule
}

// binding is a RoleBinding or ClusterRoleBinding with its role resolved.
type binding struct {
	ref      ObjectRef
	roleRef  rbacv1.RoleRef
	subjects []rbacv1.Subject
	// role is the role the binding refers to, nil when err says why not.
	role *role
	err  error
	// reasons holds, per subject, kube-apiserver's reason for a request that
	// the binding allows through that subject.
	reasons []string
}

// hit is a subject of a binding that applies to a user or group: the
// binding's position in its bindingSet and the subject's in the binding.
type hit struct {
	pos, subject int32
}

// bindingSet is the ClusterRoleBindings, or the RoleBindings of one
// namespace, in the order kube-apiserver is given them (by name, here),
// indexed by the user names and groups their subjects apply to.
type bindingSet struct {
	bindings []*binding
	byUser   map[string][]hit
	byGroup  map[string][]hit
}

// snapshot is everything one decision reads. It is immutable: updates build
// a new one.
type snapshot struct {
	objects      *Objects
	clusterRoles map[string]*role
	roles        map[string]map[string]*role
	cluster      bindingSet
	namespaced   map[string]*bindingSet
	// aggregationErrors are the ClusterRoles whose aggregationRule could not
	// be evaluated.
	aggregationErrors []error
}

// build indexes objs.
func build(objs *Objects, opts Options) (*snapshot, error) {
	if objs == nil {
		objs = &Objects{}
	}
	if err := checkDuplicates(objs); err != nil {
		return nil, err
	}
	s := &snapshot{
		clusterRoles: make(map[string]*role, len(objs.ClusterRoles)),
		roles:        map[string]map[string]*role{},
		namespaced:   map[string]*bindingSet{},
	}
	clusterRoles := objs.ClusterRoles
	if !opts.SkipAggregation {
		clusterRoles, s.aggregationErrors = aggregate(objs.ClusterRoles)
	}
	s.objects = &Objects{Roles: objs.Roles, RoleBindings: objs.RoleBindings, ClusterRoles: clusterRoles, ClusterRoleBindings: objs.ClusterRoleBindings}
	for _, cr := range clusterRoles {
		if cr == nil {
			continue
		}
		s.clusterRoles[cr.Name] = newRole(ObjectRef{Kind: KindClusterRole, Name: cr.Name}, cr.Rules)
	}
	for _, r := range objs.Roles {
		if r == nil {
			continue
		}
		ns := s.roles[r.Namespace]
		if ns == nil {
			ns = map[string]*role{}
			s.roles[r.Namespace] = ns
		}
		ns[r.Name] = newRole(ObjectRef{Kind: KindRole, Namespace: r.Namespace, Name: r.Name}, r.Rules)
	}

	crbs := make([]*rbacv1.ClusterRoleBinding, 0, len(objs.ClusterRoleBindings))
	for _, b := range objs.ClusterRoleBindings {
		if b != nil {
			crbs = append(crbs, b)
		}
	}
	sort.SliceStable(crbs, func(i, j int) bool { return crbs[i].Name < crbs[j].Name })
	for _, b := range crbs {
		s.cluster.add(s.newBinding(ObjectRef{Kind: KindClusterRoleBinding, Name: b.Name}, b.RoleRef, b.Subjects))
	}

	rbs := make([]*rbacv1.RoleBinding, 0, len(objs.RoleBindings))
	for _, b := range objs.RoleBindings {
		if b != nil {
			rbs = append(rbs, b)
		}
	}
	sort.SliceStable(rbs, func(i, j int) bool {
		if rbs[i].Namespace != rbs[j].Namespace {
			return rbs[i].Namespace < rbs[j].Namespace
		}
		return rbs[i].Name < rbs[j].Name
	})
	for _, b := range rbs {
		set := s.namespaced[b.Namespace]
		if set == nil {
			set = &bindingSet{}
			s.namespaced[b.Namespace] = set
		}
		set.add(s.newBinding(ObjectRef{Kind: KindRoleBinding, Namespace: b.Namespace, Name: b.Name}, b.RoleRef, b.Subjects))
	}
	return s, nil
}

func newRole(ref ObjectRef, rules []rbacv1.PolicyRule) *role {
	r := &role{ref: ref, rules: make([]rule, len(rules))}
	for i := range rules {
		r.rules[i] = newRule(&rules[i])
	}
	return r
}

// newBinding resolves the role of a binding as kube-apiserver's
// GetRoleReferenceRules does through its listers.
func (s *snapshot) newBinding(ref ObjectRef, roleRef rbacv1.RoleRef, subjects []rbacv1.Subject) *binding {
	b := &binding{ref: ref, roleRef: roleRef, subjects: subjects, reasons: make([]string, len(subjects))}
	switch roleRef.Kind {
	case KindRole:
		// A ClusterRoleBinding looks its Role up in namespace "", where
		// none is ever found.
		if r := s.roles[ref.Namespace][roleRef.Name]; r != nil && ref.Namespace != "" {
			b.role = r
		} else {
			b.err = apierrors.NewNotFound(rbacv1.Resource("role"), roleRef.Name)
		}
	case KindClusterRole:
		if r := s.clusterRoles[roleRef.Name]; r != nil {
			b.role = r
		} else {
			b.err = apierrors.NewNotFound(rbacv1.Resource("clusterrole"), roleRef.Name)
		}
	default:
		b.err = fmt.Errorf("unsupported role reference kind: %q", roleRef.Kind)
	}
	for i := range subjects {
		b.reasons[i] = "RBAC: allowed by " + describeBinding(b, &subjects[i])
	}
	return b
}

// describeBinding is kube-apiserver's description of a binding and the
// subject through which it applies.
func describeBinding(b *binding, s *rbacv1.Subject) string {
	name := b.ref.Name
	if b.ref.Kind == KindRoleBinding {
		name += "/" + b.ref.Namespace
	}
	return fmt.Sprintf("%s %q of %s %q to %s", b.ref.Kind, name, b.roleRef.Kind, b.roleRef.Name, describeSubject(s, b.ref.Namespace))
}

func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// add appends b to the set and indexes its subjects: a User by its name, a
// ServiceAccount by its user name (its namespace defaulting to the
// binding's; none for a ClusterRoleBinding), a Group by its name. Other
// kinds never apply.
func (set *bindingSet) add(b *binding) {
	pos := int32(len(set.bindings))
	set.bindings = append(set.bindings, b)
	if set.byUser == nil {
		set.byUser, set.byGroup = map[string][]hit{}, map[string][]hit{}
	}
	for i, s := range b.subjects {
		h := hit{pos: pos, subject: int32(i)}
		switch s.Kind {
		case rbacv1.UserKind:
			set.byUser[s.Name] = appendHit(set.byUser[s.Name], h)
		case rbacv1.ServiceAccountKind:
			ns := s.Namespace
			if ns == "" {
				ns = b.ref.Namespace
			}
			if ns == "" {
				continue
			}
			u := serviceAccountPrefix + ns + ":" + s.Name
			set.byUser[u] = appendHit(set.byUser[u], h)
		case rbacv1.GroupKind:
			set.byGroup[s.Name] = appendHit(set.byGroup[s.Name], h)
		}
	}
}

// appendHit appends h unless the list already has a subject of the same
// binding: the first subject that applies is the one kube-apiserver names.
func appendHit(hits []hit, h hit) []hit {
	if n := len(hits); n > 0 && hits[n-1].pos == h.pos {
		return hits
	}
	return append(hits, h)
}

// checkDuplicates reports objects of one kind with the same name (and
// namespace): a cluster has one of each.
func checkDuplicates(o *Objects) error {
	var errs []error
	seen := map[ObjectRef]bool{}
	check := func(ref ObjectRef) {
		if seen[ref] {
			errs = append(errs, fmt.Errorf("duplicate %s", ref))
		}
		seen[ref] = true
	}
	for _, r := range o.Roles {
		if r != nil {
			check(ObjectRef{Kind: KindRole, Namespace: r.Namespace, Name: r.Name})
		}
	}
	for _, r := range o.ClusterRoles {
		if r != nil {
			check(ObjectRef{Kind: KindClusterRole, Name: r.Name})
		}
	}
	for _, r := range o.RoleBindings {
		if r != nil {
			check(ObjectRef{Kind: KindRoleBinding, Namespace: r.Namespace, Name: r.Name})
		}
	}
	for _, r := range o.ClusterRoleBindings {
		if r != nil {
			check(ObjectRef{Kind: KindClusterRoleBinding, Name: r.Name})
		}
	}
	return errors.Join(errs...)
}

// ObjectRef names a Role, ClusterRole, RoleBinding or ClusterRoleBinding.
type ObjectRef struct {
	Kind      string
	Namespace string // "" for ClusterRoles and ClusterRoleBindings
	Name      string
}

// String renders the reference as kube-apiserver names bindings in its
// reasons: Kind "name" or Kind "name/namespace".
func (r ObjectRef) String() string {
	if r.Namespace != "" {
		return fmt.Sprintf("%s %q", r.Kind, r.Name+"/"+r.Namespace)
	}
	return fmt.Sprintf("%s %q", r.Kind, r.Name)
}
