package rbac

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// FuzzDecode: Decode never panics; what it accepts indexes or is refused
// with an error, is decided on without panicking, and reads back the same
// once encoded.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(fixture))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"a"}}]}`))
	f.Add([]byte("apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBindingList\nitems:\n- metadata: {name: a, namespace: b}\n  roleRef: {kind: Role, name: r}\n  subjects: [{kind: ServiceAccount, name: s}]\n"))
	f.Add([]byte("---\n...\n---\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Decode(data)
		require.NotNil(t, objs)
		a, aerr := FromObjects(objs, Options{})
		if aerr != nil {
			return
		}
		for _, u := range []*authorizer.User{{Name: "jane", Groups: []string{"system:authenticated"}}, {Name: "system:serviceaccount:b:s"}} {
			_, _, _ = a.Authorize(context.Background(), &authorizer.Attributes{User: u, Verb: "get", ResourceRequest: true, Namespace: "b", Resource: "pods"})
			_, _ = a.RulesFor(u, "b")
		}
		if err != nil {
			return
		}
		// What was read encodes and reads back the same.
		var docs []string
		add := func(v any) {
			b, err := json.Marshal(v)
			require.NoError(t, err)
			docs = append(docs, string(b))
		}
		for _, x := range objs.Roles {
			add(x)
		}
		for _, x := range objs.RoleBindings {
			add(x)
		}
		for _, x := range objs.ClusterRoles {
			add(x)
		}
		for _, x := range objs.ClusterRoleBindings {
			add(x)
		}
		again, err := Decode([]byte(strings.Join(docs, "\n")))
		require.NoError(t, err)
		assert.Equal(t, objs.Len(), again.Len())
	})
}

// FuzzAuthorize builds a set of objects and a request from the fuzzer's
// bytes and strings and checks the index against a plain walk of every
// binding, as kube-apiserver does it.
func FuzzAuthorize(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, "jane", "devs", "pods", "/api")
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice over"), "system:serviceaccount:ns:sa", "g", "*/status", "/healthz*")
	f.Add([]byte{0, 0, 0, 0, 255, 255, 255, 255, 128, 64, 32, 16, 8, 4, 2, 1}, "", "", "", "")
	f.Fuzz(func(t *testing.T, data []byte, userName, group, resource, urlPath string) {
		g := &byteGen{data: data}
		users := []string{userName, "jane", "system:serviceaccount:ns:sa", "system:serviceaccount:ns2:sa"}
		groups := []string{group, "devs", "system:authenticated"}
		resources := []string{resource, "pods", "pods/log", "*/log", "*", "secrets"}
		urls := []string{urlPath, "/api", "/api/*", "*", "/healthz"}
		verbs := []string{"get", "list", "*", "delete"}
		namespaces := []string{"ns", "ns2", ""}
		names := []string{"a", "b", "c"}

		o := &Objects{}
		strs := func(from []string) []string {
			var out []string
			for range g.n(3) {
				out = append(out, g.pick(from))
			}
			return out
		}
		rules := func() []rbacv1.PolicyRule {
			var rs []rbacv1.PolicyRule
			for range g.n(3) {
				rs = append(rs, rbacv1.PolicyRule{Verbs: strs(verbs), APIGroups: strs([]string{"", "*", "apps"}), Resources: strs(resources), ResourceNames: strs([]string{"x", "y"}), NonResourceURLs: strs(urls)})
			}
			return rs
		}
		subjects := func() []rbacv1.Subject {
			var ss []rbacv1.Subject
			for range g.n(3) {
				switch g.n(3) {
				case 0:
					ss = append(ss, rbacv1.Subject{Kind: rbacv1.UserKind, Name: g.pick(users)})
				case 1:
					ss = append(ss, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: g.pick(groups)})
				default:
					ss = append(ss, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "sa", Namespace: g.pick(namespaces)})
				}
			}
			return ss
		}
		roleRef := func() rbacv1.RoleRef {
			return rbacv1.RoleRef{Kind: g.pick([]string{KindRole, KindClusterRole, "Other"}), Name: g.pick(names)}
		}
		for _, n := range names[:g.n(3)] {
			o.ClusterRoles = append(o.ClusterRoles, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: n}, Rules: rules()})
			o.Roles = append(o.Roles, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "ns"}, Rules: rules()})
		}
		for i := range g.n(6) {
			o.ClusterRoleBindings = append(o.ClusterRoleBindings, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint(5 - i)}, RoleRef: roleRef(), Subjects: subjects()})
			o.RoleBindings = append(o.RoleBindings, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint(5 - i), Namespace: g.pick(namespaces[:2])}, RoleRef: roleRef(), Subjects: subjects()})
		}
		o.RoleBindings = dedupRoleBindings(o.RoleBindings)
		a, err := FromObjects(o, Options{})
		require.NoError(t, err)
		for range 8 {
			attrs := &authorizer.Attributes{User: &authorizer.User{Name: g.pick(users), Groups: strs(groups)}, Verb: g.pick(verbs)}
			if g.n(2) == 0 {
				attrs.Path = g.pick(urls)
			} else {
				attrs.ResourceRequest = true
				attrs.Namespace = g.pick(namespaces)
				attrs.APIGroup = g.pick([]string{"", "apps"})
				r, sub, _ := strings.Cut(g.pick(resources), "/")
				attrs.Resource, attrs.Subresource = r, sub
				attrs.Name = g.pick([]string{"x", ""})
			}
			wantD, wantReason := referenceAuthorize(o, attrs)
			d, reason, err := a.Authorize(context.Background(), attrs)
			require.NoError(t, err)
			require.Equal(t, wantD, d, "%+v", attrs)
			require.Equal(t, wantReason, reason, "%+v", attrs)
		}
	})
}

func dedupRoleBindings(in []*rbacv1.RoleBinding) []*rbacv1.RoleBinding {
	seen := map[string]bool{}
	var out []*rbacv1.RoleBinding
	for _, b := range in {
		if k := b.Namespace + "/" + b.Name; !seen[k] {
			seen[k] = true
			out = append(out, b)
		}
	}
	return out
}

// byteGen draws choices from the fuzzer's bytes, then zeros.
type byteGen struct {
	data []byte
	i    int
}

func (g *byteGen) n(max int) int {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return int(g.data[g.i-1]) % (max + 1)
}

func (g *byteGen) pick(from []string) string { return from[g.n(len(from)-1)] }

// referenceAuthorize is kube-apiserver's algorithm written plainly: every
// binding, in name order, with no index.
func referenceAuthorize(o *Objects, a *authorizer.Attributes) (authorizer.Decision, string) {
	var errs []error
	try := func(kind, ns, name string, ref rbacv1.RoleRef, subjects []rbacv1.Subject) (string, bool) {
		idx := -1
		for i, s := range subjects {
			if referenceApplies(a.User, s, ns) {
				idx = i
				break
			}
		}
		if idx < 0 {
			return "", false
		}
		var rules []rbacv1.PolicyRule
		switch ref.Kind {
		case KindRole:
			found := false
			for _, r := range o.Roles {
				if ns != "" && r.Namespace == ns && r.Name == ref.Name {
					rules, found = r.Rules, true
				}
			}
			if !found {
				errs = append(errs, apierrors.NewNotFound(rbacv1.Resource("role"), ref.Name))
				return "", false
			}
		case KindClusterRole:
			found := false
			for _, r := range o.ClusterRoles {
				if r.Name == ref.Name {
					rules, found = r.Rules, true
				}
			}
			if !found {
				errs = append(errs, apierrors.NewNotFound(rbacv1.Resource("clusterrole"), ref.Name))
				return "", false
			}
		default:
			errs = append(errs, fmt.Errorf("unsupported role reference kind: %q", ref.Kind))
			return "", false
		}
		for i := range rules {
			if referenceRuleAllows(a, &rules[i]) {
				s := subjects[idx]
				subject := fmt.Sprintf("%s %q", s.Kind, s.Name)
				if s.Kind == rbacv1.ServiceAccountKind {
					sns := s.Namespace
					if sns == "" {
						sns = ns
					}
					subject = fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+sns)
				}
				bname := name
				if kind == KindRoleBinding {
					bname += "/" + ns
				}
				return fmt.Sprintf("RBAC: allowed by %s %q of %s %q to %s", kind, bname, ref.Kind, ref.Name, subject), true
			}
		}
		return "", false
	}
	crbs := append([]*rbacv1.ClusterRoleBinding(nil), o.ClusterRoleBindings...)
	sort.Slice(crbs, func(i, j int) bool { return crbs[i].Name < crbs[j].Name })
	for _, b := range crbs {
		if reason, ok := try(KindClusterRoleBinding, "", b.Name, b.RoleRef, b.Subjects); ok {
			return authorizer.DecisionAllow, reason
		}
	}
	if a.Namespace != "" {
		var rbs []*rbacv1.RoleBinding
		for _, b := range o.RoleBindings {
			if b.Namespace == a.Namespace {
				rbs = append(rbs, b)
			}
		}
		sort.Slice(rbs, func(i, j int) bool { return rbs[i].Name < rbs[j].Name })
		for _, b := range rbs {
			if reason, ok := try(KindRoleBinding, b.Namespace, b.Name, b.RoleRef, b.Subjects); ok {
				return authorizer.DecisionAllow, reason
			}
		}
	}
	if len(errs) > 0 {
		return authorizer.DecisionNoOpinion, "RBAC: " + utilerrors.NewAggregate(errs).Error()
	}
	return authorizer.DecisionNoOpinion, ""
}

func referenceApplies(u *authorizer.User, s rbacv1.Subject, ns string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return u.Name == s.Name
	case rbacv1.GroupKind:
		for _, g := range u.Groups {
			if g == s.Name {
				return true
			}
		}
	case rbacv1.ServiceAccountKind:
		if s.Namespace != "" {
			ns = s.Namespace
		}
		return ns != "" && u.Name == "system:serviceaccount:"+ns+":"+s.Name
	}
	return false
}

func referenceRuleAllows(a *authorizer.Attributes, r *rbacv1.PolicyRule) bool {
	in := func(list []string, s string, star bool) bool {
		for _, e := range list {
			if e == s || star && e == "*" {
				return true
			}
		}
		return false
	}
	if !in(r.Verbs, a.Verb, true) {
		return false
	}
	if !a.ResourceRequest {
		for _, u := range r.NonResourceURLs {
			if u == "*" || u == a.Path || strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimRight(u, "*")) {
				return true
			}
		}
		return false
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	resourceOK := false
	for _, rr := range r.Resources {
		if rr == "*" || rr == combined || a.Subresource != "" && rr == "*/"+a.Subresource {
			resourceOK = true
		}
	}
	return in(r.APIGroups, a.APIGroup, true) && resourceOK && (len(r.ResourceNames) == 0 || in(r.ResourceNames, a.Name, false))
}
