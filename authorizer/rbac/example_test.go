package rbac_test

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

const manifests = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: view
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {rbac.example.com/aggregate-to-view: "true"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: pod-viewer
  labels: {rbac.example.com/aggregate-to-view: "true"}
rules:
- apiGroups: [""]
  resources: [pods, pods/log]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: developers-view
  namespace: dev
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
subjects:
- kind: Group
  apiGroup: rbac.authorization.k8s.io
  name: developers
- kind: ServiceAccount
  name: ci
`

func newAuthorizer() *rbac.Authorizer {
	objs, err := rbac.Decode([]byte(manifests))
	if err != nil {
		panic(err)
	}
	az, err := rbac.FromObjects(objs, rbac.Options{})
	if err != nil {
		panic(err)
	}
	return az
}

func ExampleFromObjects() {
	az := newAuthorizer()
	jane := &authorizer.User{Name: "jane", Groups: []string{"developers", "system:authenticated"}}
	for _, a := range []*authorizer.Attributes{
		{User: jane, Verb: "get", ResourceRequest: true, Namespace: "dev", APIVersion: "v1", Resource: "pods", Subresource: "log", Name: "web"},
		{User: jane, Verb: "delete", ResourceRequest: true, Namespace: "dev", APIVersion: "v1", Resource: "pods", Name: "web"},
		{User: jane, Verb: "get", ResourceRequest: true, Namespace: "prod", APIVersion: "v1", Resource: "pods", Name: "web"},
	} {
		d, reason, _ := az.Authorize(context.Background(), a)
		fmt.Printf("%s %s in %s: %s %q\n", a.User.Name, a.Verb, a.Namespace, d, reason)
	}
	// Output:
	// jane get in dev: Allow "RBAC: allowed by RoleBinding \"developers-view/dev\" of ClusterRole \"view\" to Group \"developers\""
	// jane delete in dev: NoOpinion ""
	// jane get in prod: NoOpinion ""
}

func ExampleAuthorizer_Explain() {
	az := newAuthorizer()
	ci := &authorizer.User{Name: "system:serviceaccount:dev:ci", Groups: []string{"system:serviceaccounts"}}
	fmt.Println(az.Explain(context.Background(), &authorizer.Attributes{
		User: ci, Verb: "list", ResourceRequest: true, Namespace: "dev", APIVersion: "v1", Resource: "pods",
	}))
	// Output:
	// Allow "RBAC: allowed by RoleBinding \"developers-view/dev\" of ClusterRole \"view\" to ServiceAccount \"ci/dev\""
	//   RoleBinding "developers-view/dev" (subject ServiceAccount "ci/dev") → ClusterRole "view": allowed by rules[0] {apiGroups=[""] resources=["pods" "pods/log"] verbs=["get" "list" "watch"]}
}

func ExampleAuthorizer_WhoCan() {
	az := newAuthorizer()
	grants, err := az.WhoCan(&authorizer.Attributes{Verb: "watch", ResourceRequest: true, Namespace: "dev", APIVersion: "v1", Resource: "pods"})
	if err != nil {
		panic(err)
	}
	for _, g := range grants {
		fmt.Println(g.Binding, "→", g.RoleRef.Kind, g.RoleRef.Name)
		for _, s := range g.Subjects {
			fmt.Println("  ", s.Kind, s.Name)
		}
	}
	// Output:
	// RoleBinding "developers-view/dev" → ClusterRole view
	//    Group developers
	//    ServiceAccount ci
}

func ExampleAuthorizer_SubjectRulesReview() {
	az := newAuthorizer()
	st := az.SubjectRulesReview(&authorizer.User{Name: "jane", Groups: []string{"developers"}}, "dev")
	for _, r := range st.ResourceRules {
		fmt.Println(r.Verbs, r.APIGroups, r.Resources, r.ResourceNames)
	}
	// Output:
	// [get list watch] [] [pods pods/log] []
}

func ExampleAggregate() {
	objs, err := rbac.Decode([]byte(manifests))
	if err != nil {
		panic(err)
	}
	aggregated, err := rbac.Aggregate(objs.ClusterRoles)
	if err != nil {
		panic(err)
	}
	for _, cr := range aggregated {
		fmt.Println(cr.Name, len(cr.Rules), "rule(s)")
	}
	// Output:
	// view 1 rule(s)
	// pod-viewer 1 rule(s)
}

// static is a lister over a fixed list; in a server, pass the listers of
// client-go's informers (see Listers).
type static[T any] []T

func (s static[T]) List(labels.Selector) ([]T, error) { return s, nil }

func ExampleNew() {
	listers := rbac.Listers{
		Roles:        static[*rbacv1.Role]{},
		RoleBindings: static[*rbacv1.RoleBinding]{},
		ClusterRoles: static[*rbacv1.ClusterRole]{{
			ObjectMeta: metav1.ObjectMeta{Name: "health"},
			Rules:      []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz"}}},
		}},
		ClusterRoleBindings: static[*rbacv1.ClusterRoleBinding]{{
			ObjectMeta: metav1.ObjectMeta{Name: "health"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "health"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:unauthenticated"}},
		}},
	}
	az, err := rbac.New(listers, rbac.Options{})
	if err != nil {
		panic(err)
	}
	// After the informers report changes: az.Sync().
	d, reason, _ := az.Authorize(context.Background(), &authorizer.Attributes{
		User: &authorizer.User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}, Verb: "get", Path: "/readyz",
	})
	fmt.Println(d, reason)
	// Output:
	// Allow RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "health" to Group "system:unauthenticated"
}

// The RBAC authorizer in the chain of an AuthorizationConfiguration:
// authorizer.New takes it for the entries of type RBAC.
func Example_chain() {
	cfg, err := authzconfig.Decode([]byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: RBAC
  name: rbac
- type: AlwaysDeny
  name: alwaysdeny
`))
	if err != nil {
		panic(err)
	}
	chain, err := authorizer.New(cfg, authorizer.Options{
		Authorizers: map[string]authorizer.Authorizer{authzconfig.TypeRBAC: newAuthorizer()},
	})
	if err != nil {
		panic(err)
	}
	jane := &authorizer.User{Name: "jane", Groups: []string{"developers"}}
	for _, verb := range []string{"list", "delete"} {
		fmt.Println(authorizer.Explain(context.Background(), chain, &authorizer.Attributes{
			User: jane, Verb: verb, ResourceRequest: true, Namespace: "dev", APIVersion: "v1", Resource: "pods",
		}))
	}
	// Output:
	// Allow "RBAC: allowed by RoleBinding \"developers-view/dev\" of ClusterRole \"view\" to Group \"developers\""
	//   system-privileged-group.authorizer.kubernetes.io: NoOpinion
	//   rbac (RBAC): Allow "RBAC: allowed by RoleBinding \"developers-view/dev\" of ClusterRole \"view\" to Group \"developers\""
	//     RoleBinding "developers-view/dev" (subject Group "developers") → ClusterRole "view": allowed by rules[0] {apiGroups=[""] resources=["pods" "pods/log"] verbs=["get" "list" "watch"]}
	// NoOpinion "alwaysdeny: Everything is forbidden."
	//   system-privileged-group.authorizer.kubernetes.io: NoOpinion
	//   rbac (RBAC): NoOpinion
	//     RoleBinding "developers-view/dev" (subject Group "developers") → ClusterRole "view": no rule matches
	//   alwaysdeny (AlwaysDeny): NoOpinion "Everything is forbidden."
}
