package kubernetes

import (
	"context"
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
)

// benchObjects is a cluster with n ClusterRoleBindings, each binding one
// user to one of 100 ClusterRoles, plus the bindings every authenticated
// user has (discovery, basic-user), and one namespace's RoleBindings.
func benchObjects(n int) *rbac.Objects {
	o := &rbac.Objects{}
	for i := range 100 {
		o.ClusterRoles = append(o.ClusterRoles, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("role-%d", i)},
			Rules: []rbacv1.PolicyRule{
				{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"configmaps", "services"}},
				{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"apps"}, Resources: []string{"deployments", "deployments/scale"}},
				{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}},
			},
		})
	}
	o.ClusterRoles = append(o.ClusterRoles,
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:discovery"},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/readyz", "/version", "/version/"}}}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:basic-user"},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}}}},
	)
	authenticated := []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:authenticated"}}
	o.ClusterRoleBindings = append(o.ClusterRoleBindings,
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "system:discovery"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:discovery"}, Subjects: authenticated},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "system:basic-user"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:basic-user"}, Subjects: authenticated},
	)
	for i := range n - 2 {
		o.ClusterRoleBindings = append(o.ClusterRoleBindings, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("binding-%05d", i)},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: fmt.Sprintf("role-%d", i%100)},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: fmt.Sprintf("user-%d", i)}},
		})
	}
	for i := range 20 {
		o.RoleBindings = append(o.RoleBindings, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("rb-%d", i)},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: fmt.Sprintf("role-%d", i)},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: fmt.Sprintf("sa-%d", i)}},
		})
	}
	return o
}

// BenchmarkRBACAuthorize decides one request with 10 and 10,000
// ClusterRoleBindings: kube-apiserver's authorizer over informer listers, as
// kube-apiserver runs it, against gatehouse's index. "allowed" is a user
// allowed by its own binding; "denied" is a user no binding allows, which
// every authorizer must look at all bindings to find.
func BenchmarkRBACAuthorize(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 10000} {
		objs := benchObjects(n)
		listers := newInformerListers(objs)
		kube := listers.kubeAPIServer()
		gh, err := rbac.FromObjects(objs, rbac.Options{SkipAggregation: true})
		if err != nil {
			b.Fatal(err)
		}
		groups := []string{"system:authenticated"}
		for _, c := range []struct {
			name string
			a    *authorizer.Attributes
			want authorizer.Decision
		}{
			{"allowed", &authorizer.Attributes{User: &authorizer.User{Name: fmt.Sprintf("user-%d", (n-2)/2), Groups: groups},
				Verb: "list", ResourceRequest: true, Namespace: "default", APIVersion: "v1", Resource: "pods"}, authorizer.DecisionAllow},
			{"denied", &authorizer.Attributes{User: &authorizer.User{Name: "nobody", Groups: groups},
				Verb: "delete", ResourceRequest: true, Namespace: "default", APIVersion: "v1", Resource: "pods", Name: "web"}, authorizer.DecisionNoOpinion},
		} {
			ka := kubeAttributes(c.a)
			b.Run(fmt.Sprintf("bindings=%d/case=%s/impl=kube-apiserver", n, c.name), func(b *testing.B) {
				if d, _, _ := kube.Authorize(ctx, ka); int(d) != int(c.want) {
					b.Fatalf("decision %v", d)
				}
				b.ReportAllocs()
				for b.Loop() {
					_, _, _ = kube.Authorize(ctx, ka)
				}
			})
			b.Run(fmt.Sprintf("bindings=%d/case=%s/impl=gatehouse", n, c.name), func(b *testing.B) {
				if d, _, _ := gh.Authorize(ctx, c.a); d != c.want {
					b.Fatalf("decision %v", d)
				}
				b.ReportAllocs()
				for b.Loop() {
					_, _, _ = gh.Authorize(ctx, c.a)
				}
			})
		}
	}
}
