package rbac

import (
	"context"
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// benchObjects is n ClusterRoleBindings of one user each to one of 100
// ClusterRoles, and one binding of the group system:authenticated.
func benchObjects(n int) *Objects {
	o := &Objects{}
	for i := range 100 {
		o.ClusterRoles = append(o.ClusterRoles, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("role-%d", i)},
			Rules: []rbacv1.PolicyRule{
				{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"configmaps", "services"}},
				{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}},
			}})
	}
	o.ClusterRoleBindings = append(o.ClusterRoleBindings, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "discovery"},
		RoleRef: rbacv1.RoleRef{Kind: KindClusterRole, Name: "role-0"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: "system:authenticated"}}})
	for i := range n - 1 {
		o.ClusterRoleBindings = append(o.ClusterRoleBindings, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("binding-%05d", i)},
			RoleRef:  rbacv1.RoleRef{Kind: KindClusterRole, Name: fmt.Sprintf("role-%d", i%100)},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: fmt.Sprintf("user-%d", i)}}})
	}
	return o
}

func BenchmarkAuthorize(b *testing.B) {
	for _, n := range []int{10, 10000} {
		a, err := FromObjects(benchObjects(n), Options{})
		if err != nil {
			b.Fatal(err)
		}
		attrs := &authorizer.Attributes{User: &authorizer.User{Name: fmt.Sprintf("user-%d", n/2), Groups: []string{"system:authenticated"}},
			Verb: "list", ResourceRequest: true, Namespace: "default", Resource: "pods"}
		b.Run(fmt.Sprintf("bindings=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = a.Authorize(context.Background(), attrs)
			}
		})
	}
}

// BenchmarkUpdate is the cost of indexing, paid at each Sync or Update.
func BenchmarkUpdate(b *testing.B) {
	for _, n := range []int{10, 10000} {
		objs := benchObjects(n)
		a, err := FromObjects(objs, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("bindings=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := a.Update(objs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
