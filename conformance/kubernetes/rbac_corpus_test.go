package kubernetes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	kuberbac "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
)

// The vocabulary of the generated corpus: small, so that rules, subjects and
// requests meet often.
var (
	corpusNamespaces = []string{"ns1", "ns2", "ns3"}
	corpusVerbs      = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	corpusGroups     = []string{"", "apps", "batch"}
	corpusResources  = []string{"pods", "deployments", "secrets", "configmaps", "nodes"}
	corpusSubs       = []string{"", "", "status", "log", "scale"}
	corpusNames      = []string{"", "", "a", "b", "c"}
	corpusPaths      = []string{"/healthz", "/healthz/ready", "/api", "/api/v1", "/apis", "/apis/apps", "/metrics", "/", "/version", ""}
	corpusRuleURLs   = []string{"/healthz", "/healthz/*", "/api*", "/apis/*", "/metrics", "*", "/", "/ver**", "/version"}
	corpusRuleRes    = []string{"pods", "pods/status", "pods/log", "*/status", "*/scale", "*", "deployments", "deployments/scale", "secrets", "configmaps", "nodes", "*/log"}
	corpusUsers      = []*authorizer.User{
		{Name: "alice", Groups: []string{"g1"}},
		{Name: "bob", Groups: []string{"g2", "system:authenticated"}},
		{Name: "carol"},
		{Name: "system:serviceaccount:ns1:sa1", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"}},
		{Name: "system:serviceaccount:ns2:sa1", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns2", "system:authenticated"}},
		{Name: "system:serviceaccount:ns1:sa2", Groups: []string{"system:serviceaccounts", "system:authenticated"}},
		{Name: "g1", Groups: []string{"alice", "g2"}},
		{Name: "", Groups: []string{"g1"}},
		{Name: "system:serviceaccount:ns3:sa1", Groups: []string{"g1", "g2", "system:authenticated"}},
	}
)

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

func pickSome(r *rand.Rand, from []string, max int) []string {
	n := r.IntN(max + 1)
	if n == 0 && r.IntN(4) > 0 {
		n = 1
	}
	var out []string
	for range n {
		out = append(out, pick(r, from))
	}
	return out
}

func genRule(r *rand.Rand) rbacv1.PolicyRule {
	var p rbacv1.PolicyRule
	p.Verbs = orAll(r, pickSome(r, corpusVerbs, 4))
	if r.IntN(4) == 0 {
		p.NonResourceURLs = pickSome(r, corpusRuleURLs, 2)
		if r.IntN(10) > 0 {
			return p
		}
	}
	p.APIGroups = orAll(r, pickSome(r, corpusGroups, 2))
	p.Resources = orAll(r, pickSome(r, corpusRuleRes, 4))
	if r.IntN(5) == 0 {
		p.ResourceNames = pickSome(r, []string{"a", "b"}, 2)
	}
	return p
}

// orAll is "*" (alone or among others) one time in four, else list.
func orAll(r *rand.Rand, list []string) []string {
	switch r.IntN(8) {
	case 0:
		return []string{"*"}
	case 1:
		return append(list, "*")
	}
	return list
}

func genRules(r *rand.Rand) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	for range r.IntN(5) {
		rules = append(rules, genRule(r))
	}
	return rules
}

func genSubject(r *rand.Rand) rbacv1.Subject {
	group := pick(r, []string{"", rbacv1.GroupName})
	switch r.IntN(10) {
	case 0, 1, 2:
		return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: group, Name: pick(r, []string{"alice", "bob", "carol", "g1", "", "system:serviceaccount:ns1:sa1"})}
	case 3, 4, 5:
		return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: group, Name: pick(r, []string{"g1", "g2", "system:authenticated", "system:serviceaccounts:ns1", "alice"})}
	case 6, 7, 8:
		return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: pick(r, []string{"", "", "ns1", "ns2", "ns3"}), Name: pick(r, []string{"sa1", "sa2", ""})}
	default:
		return rbacv1.Subject{Kind: pick(r, []string{"user", "Unknown", ""}), Name: pick(r, []string{"alice", "g1"})}
	}
}

func genSubjects(r *rand.Rand) []rbacv1.Subject {
	var s []rbacv1.Subject
	for range r.IntN(5) {
		s = append(s, genSubject(r))
	}
	return s
}

func genRoleRef(r *rand.Rand, namespaced bool) rbacv1.RoleRef {
	var kind string
	switch n := r.IntN(20); {
	case n == 0:
		kind = "Foo"
	case namespaced && n < 12, !namespaced && n < 2:
		kind = "Role"
	default:
		kind = "ClusterRole"
	}
	name := fmt.Sprintf("c%d", r.IntN(7))
	if kind == "Role" {
		name = fmt.Sprintf("r%d", r.IntN(5))
	}
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}
}

// genWorld returns a random set of RBAC objects, in random order. Some
// bindings refer to roles that do not exist.
func genWorld(r *rand.Rand) *rbac.Objects {
	o := &rbac.Objects{}
	for i := range 6 {
		if r.IntN(6) == 0 {
			continue // c6, and some others, are missing
		}
		o.ClusterRoles = append(o.ClusterRoles, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i)}, Rules: genRules(r)})
	}
	for _, ns := range corpusNamespaces[:2] {
		for i := range 4 {
			if r.IntN(5) == 0 {
				continue
			}
			o.Roles = append(o.Roles, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("r%d", i)}, Rules: genRules(r)})
		}
	}
	for i := range r.IntN(10) {
		o.ClusterRoleBindings = append(o.ClusterRoleBindings, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("crb%d", i)}, RoleRef: genRoleRef(r, false), Subjects: genSubjects(r)})
	}
	for _, ns := range corpusNamespaces {
		for i := range r.IntN(6) {
			o.RoleBindings = append(o.RoleBindings, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("rb%d", i)}, RoleRef: genRoleRef(r, true), Subjects: genSubjects(r)})
		}
	}
	r.Shuffle(len(o.ClusterRoleBindings), func(i, j int) {
		o.ClusterRoleBindings[i], o.ClusterRoleBindings[j] = o.ClusterRoleBindings[j], o.ClusterRoleBindings[i]
	})
	r.Shuffle(len(o.RoleBindings), func(i, j int) { o.RoleBindings[i], o.RoleBindings[j] = o.RoleBindings[j], o.RoleBindings[i] })
	return o
}

// genRequest returns a random request of a user of the corpus.
func genRequest(r *rand.Rand) *authorizer.Attributes {
	a := &authorizer.Attributes{User: pick(r, corpusUsers)}
	if r.IntN(4) == 0 {
		a.Verb = pick(r, []string{"get", "post", "put", "delete"})
		a.Path = pick(r, corpusPaths)
		return a
	}
	a.ResourceRequest = true
	a.Verb = pick(r, corpusVerbs)
	a.Namespace = pick(r, append([]string{"", "ns4"}, corpusNamespaces...))
	a.APIGroup = pick(r, corpusGroups)
	a.APIVersion = "v1"
	a.Resource = pick(r, corpusResources)
	a.Subresource = pick(r, corpusSubs)
	a.Name = pick(r, corpusNames)
	return a
}

// kubeAttributes is the request as kube-apiserver's authorizers see it.
func kubeAttributes(a *authorizer.Attributes) kauthorizer.AttributesRecord {
	return kauthorizer.AttributesRecord{
		User:            kubeUser(a.User),
		Verb:            a.Verb,
		Namespace:       a.Namespace,
		APIGroup:        a.APIGroup,
		APIVersion:      a.APIVersion,
		Resource:        a.Resource,
		Subresource:     a.Subresource,
		Name:            a.Name,
		ResourceRequest: a.ResourceRequest,
		Path:            a.Path,
	}
}

func kubeUser(u *authorizer.User) *user.DefaultInfo {
	return &user.DefaultInfo{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

// informerListers puts the objects in client-go indexers, as informers
// would, and returns client-go's listers over them.
type informerListers struct {
	roles               rbaclisters.RoleLister
	roleBindings        rbaclisters.RoleBindingLister
	clusterRoles        rbaclisters.ClusterRoleLister
	clusterRoleBindings rbaclisters.ClusterRoleBindingLister
}

func newInformerListers(o *rbac.Objects) informerListers {
	index := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	ri, rbi, cri, crbi := index(), index(), index(), index()
	for _, x := range o.Roles {
		must(ri.Add(x))
	}
	for _, x := range o.RoleBindings {
		must(rbi.Add(x))
	}
	for _, x := range o.ClusterRoles {
		must(cri.Add(x))
	}
	for _, x := range o.ClusterRoleBindings {
		must(crbi.Add(x))
	}
	return informerListers{
		roles:               rbaclisters.NewRoleLister(ri),
		roleBindings:        rbaclisters.NewRoleBindingLister(rbi),
		clusterRoles:        rbaclisters.NewClusterRoleLister(cri),
		clusterRoleBindings: rbaclisters.NewClusterRoleBindingLister(crbi),
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// gatehouse is the listers as gatehouse takes them: client-go's listers
// satisfy gatehouse's interfaces as they are.
func (l informerListers) gatehouse() rbac.Listers {
	return rbac.Listers{Roles: l.roles, RoleBindings: l.roleBindings, ClusterRoles: l.clusterRoles, ClusterRoleBindings: l.clusterRoleBindings}
}

// kubeAPIServer is kube-apiserver's RBAC authorizer as kube-apiserver
// builds it: its lister adapters over client-go's listers.
func (l informerListers) kubeAPIServer() *kuberbac.RBACAuthorizer {
	return kuberbac.New(
		&kuberbac.RoleGetter{Lister: l.roles},
		&kuberbac.RoleBindingLister{Lister: l.roleBindings},
		&kuberbac.ClusterRoleGetter{Lister: l.clusterRoles},
		&kuberbac.ClusterRoleBindingLister{Lister: l.clusterRoleBindings},
	)
}

// kubeAPIServerOrdered is kubeAPIServer with the bindings listed in name
// order. An informer's lister lists them in the order of a Go map, so
// which of several allowing bindings kube-apiserver names, and the order of
// its errors, change from one request to the next; gatehouse asks them in
// name order, and so does this oracle. Roles are looked up by kube-apiserver's
// own adapters, so errors are the lister's.
func (l informerListers) kubeAPIServerOrdered() *kuberbac.RBACAuthorizer {
	return kuberbac.New(&kuberbac.RoleGetter{Lister: l.roles}, sortedRoleBindings{l.roleBindings},
		&kuberbac.ClusterRoleGetter{Lister: l.clusterRoles}, sortedClusterRoleBindings{l.clusterRoleBindings})
}

// subjectLocator is kube-apiserver's who-can (the subject locator behind
// SubjectAccessReview's "who can" tooling) with bindings in name order.
func (l informerListers) subjectLocator() *kuberbac.SubjectAccessEvaluator {
	return kuberbac.NewSubjectAccessEvaluator(&kuberbac.RoleGetter{Lister: l.roles}, sortedRoleBindings{l.roleBindings},
		&kuberbac.ClusterRoleGetter{Lister: l.clusterRoles}, sortedClusterRoleBindings{l.clusterRoleBindings}, "")
}

type sortedRoleBindings struct{ l rbaclisters.RoleBindingLister }

func (s sortedRoleBindings) ListRoleBindings(_ context.Context, namespace string) ([]*rbacv1.RoleBinding, error) {
	list, err := s.l.RoleBindings(namespace).List(labels.Everything())
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list, err
}

type sortedClusterRoleBindings struct {
	l rbaclisters.ClusterRoleBindingLister
}

func (s sortedClusterRoleBindings) ListClusterRoleBindings(context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	list, err := s.l.List(labels.Everything())
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list, err
}
