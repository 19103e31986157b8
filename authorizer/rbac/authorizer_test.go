package rbac

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

const fixture = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: pod-reader}
rules:
- {verbs: [get, list], apiGroups: [""], resources: [pods, pods/log]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: discovery}
rules:
- {verbs: [get], nonResourceURLs: [/api, /api/*, /healthz]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: secret-reader, namespace: team-a}
rules:
- {verbs: [get], apiGroups: [""], resources: [secrets], resourceNames: [db]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b-readers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pod-reader}
subjects:
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: readers}
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: jane}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: a-jane}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pod-reader}
subjects:
- {kind: User, apiGroup: rbac.authorization.k8s.io, name: jane}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: discovery}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: discovery}
subjects:
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: system:authenticated}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: gone}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: deleted}
subjects:
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: system:authenticated}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: sa-without-namespace}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pod-reader}
subjects:
- {kind: ServiceAccount, name: builder}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: role-in-cluster-binding}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: secret-reader}
subjects:
- {kind: User, name: sam}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: builder, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: secret-reader}
subjects:
- {kind: ServiceAccount, name: builder}
- {kind: ServiceAccount, name: deployer, namespace: ci}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pod-reader}
subjects:
- {kind: user, name: tom}
- {kind: User, name: tom}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: broken, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: missing}
subjects:
- {kind: Group, name: system:authenticated}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: weird, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Policy, name: x}
subjects:
- {kind: Group, name: system:authenticated}
`

func newFixture(t testing.TB) *Authorizer {
	t.Helper()
	objs, err := Decode([]byte(fixture))
	require.NoError(t, err)
	a, err := FromObjects(objs, Options{})
	require.NoError(t, err)
	return a
}

func TestAuthorize(t *testing.T) {
	a := newFixture(t)
	jane := &authorizer.User{Name: "jane", Groups: []string{"readers", "system:authenticated"}}
	reader := &authorizer.User{Name: "rita", Groups: []string{"readers"}}
	builder := &authorizer.User{Name: "system:serviceaccount:team-a:builder", Groups: []string{"system:authenticated"}}
	deployer := &authorizer.User{Name: "system:serviceaccount:ci:deployer"}
	tom := &authorizer.User{Name: "tom"}
	sam := &authorizer.User{Name: "sam"}
	inNs := func(u *authorizer.User, verb, ns, resource, sub, name string) *authorizer.Attributes {
		return &authorizer.Attributes{User: u, Verb: verb, ResourceRequest: true, Namespace: ns, Resource: resource, Subresource: sub, Name: name}
	}
	const missing = `RBAC: clusterrole.rbac.authorization.k8s.io "deleted" not found`
	tests := []struct {
		name       string
		attrs      *authorizer.Attributes
		want       authorizer.Decision
		wantReason string
	}{
		{"the first binding by name allows, through its first subject that applies",
			inNs(jane, "list", "default", "pods", "", ""), authorizer.DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "a-jane" of ClusterRole "pod-reader" to User "jane"`},
		{"a group", inNs(reader, "get", "default", "pods", "log", "web"), authorizer.DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "b-readers" of ClusterRole "pod-reader" to Group "readers"`},
		{"a non-resource URL", &authorizer.Attributes{User: jane, Verb: "get", Path: "/api/v1"}, authorizer.DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "discovery" of ClusterRole "discovery" to Group "system:authenticated"`},
		{"no rule allows; a binding applied whose role is missing",
			inNs(jane, "delete", "", "pods", "", "web"), authorizer.DecisionNoOpinion, missing},
		{"a service account without namespace, in a RoleBinding: the binding's",
			inNs(builder, "get", "team-a", "secrets", "", "db"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "builder/team-a" of Role "secret-reader" to ServiceAccount "builder/team-a"`},
		{"a service account of another namespace", inNs(deployer, "get", "team-a", "secrets", "", "db"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "builder/team-a" of Role "secret-reader" to ServiceAccount "deployer/ci"`},
		{"a resource name not listed", inNs(builder, "get", "team-a", "secrets", "", "other"), authorizer.DecisionNoOpinion,
			`RBAC: [clusterrole.rbac.authorization.k8s.io "deleted" not found, role.rbac.authorization.k8s.io "missing" not found, unsupported role reference kind: "Policy"]`},
		{"a service account without namespace never applies in a ClusterRoleBinding",
			inNs(&authorizer.User{Name: "system:serviceaccount::builder"}, "get", "default", "pods", "", ""), authorizer.DecisionNoOpinion, ""},
		{"a kind in the wrong case never applies; the next subject does",
			inNs(tom, "get", "team-a", "pods", "", ""), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "readers/team-a" of ClusterRole "pod-reader" to User "tom"`},
		{"RoleBindings apply in their namespace only", inNs(tom, "get", "team-b", "pods", "", ""), authorizer.DecisionNoOpinion, ""},
		{"RoleBindings do not apply cluster-wide", inNs(tom, "get", "", "pods", "", ""), authorizer.DecisionNoOpinion, ""},
		{"a ClusterRoleBinding to a Role finds no role",
			inNs(sam, "get", "team-a", "secrets", "", "db"), authorizer.DecisionNoOpinion, `RBAC: role.rbac.authorization.k8s.io "secret-reader" not found`},
		{"nobody", inNs(&authorizer.User{Name: "x"}, "get", "default", "pods", "", ""), authorizer.DecisionNoOpinion, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), tt.attrs)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d)
			assert.Equal(t, tt.wantReason, reason)
			e := a.Explain(context.Background(), tt.attrs)
			assert.Equal(t, tt.want, e.Decision)
			assert.Equal(t, tt.wantReason, e.Reason)
		})
	}
}

func TestAuthorizeNoUser(t *testing.T) {
	a := newFixture(t)
	for _, attrs := range []*authorizer.Attributes{nil, {Verb: "get", Path: "/"}} {
		d, reason, err := a.Authorize(context.Background(), attrs)
		assert.Equal(t, authorizer.DecisionNoOpinion, d)
		assert.Empty(t, reason)
		assert.EqualError(t, err, "no user on request.")
	}
}

func TestMissingRoleErrorsAreNotFound(t *testing.T) {
	a := newFixture(t)
	e := a.Explain(context.Background(), &authorizer.Attributes{User: &authorizer.User{Name: "sam"}, Verb: "get", ResourceRequest: true, Namespace: "team-a", Resource: "secrets"})
	require.Len(t, e.Applied, 1)
	assert.True(t, apierrors.IsNotFound(e.Applied[0].Err))
}

func TestExplain(t *testing.T) {
	a := newFixture(t)
	attrs := &authorizer.Attributes{User: &authorizer.User{Name: "jane", Groups: []string{"system:authenticated"}}, Verb: "get", ResourceRequest: true, Namespace: "team-a", Resource: "pods", Subresource: "log"}
	e := a.Explain(context.Background(), attrs)
	assert.Equal(t, authorizer.DecisionAllow, e.Decision)
	assert.Equal(t, ObjectRef{Kind: KindClusterRoleBinding, Name: "a-jane"}, e.Binding)
	assert.Equal(t, ObjectRef{Kind: KindClusterRole, Name: "pod-reader"}, e.Role)
	assert.Equal(t, "jane", e.Subject.Name)
	assert.Equal(t, 0, e.RuleIndex)
	assert.Equal(t, []string{"pods", "pods/log"}, e.Rule.Resources)
	assert.Equal(t, `Allow "RBAC: allowed by ClusterRoleBinding \"a-jane\" of ClusterRole \"pod-reader\" to User \"jane\""
  ClusterRoleBinding "a-jane" (subject User "jane") → ClusterRole "pod-reader": allowed by rules[0] {apiGroups=[""] resources=["pods" "pods/log"] verbs=["get" "list"]}`, e.String())

	attrs.Verb = "delete"
	e = a.Explain(context.Background(), attrs)
	assert.Equal(t, authorizer.DecisionNoOpinion, e.Decision)
	assert.Equal(t, []string{
		`ClusterRoleBinding "a-jane" (subject User "jane") → ClusterRole "pod-reader": no rule matches`,
		`ClusterRoleBinding "b-readers" (subject User "jane") → ClusterRole "pod-reader": no rule matches`,
		`ClusterRoleBinding "discovery" (subject Group "system:authenticated") → ClusterRole "discovery": no rule matches`,
		`ClusterRoleBinding "gone" (subject Group "system:authenticated") → ClusterRole "deleted": clusterrole.rbac.authorization.k8s.io "deleted" not found`,
		`RoleBinding "broken/team-a" (subject Group "system:authenticated") → Role "missing": role.rbac.authorization.k8s.io "missing" not found`,
		`RoleBinding "weird/team-a" (subject Group "system:authenticated") → Policy "x": unsupported role reference kind: "Policy"`,
	}, e.Details())
}

func TestExplainInChain(t *testing.T) {
	chain, err := authorizer.NewChain(authorizer.Named{Name: "rbac", Authorizer: newFixture(t)})
	require.NoError(t, err)
	trace := authorizer.Explain(context.Background(), chain, &authorizer.Attributes{User: &authorizer.User{Name: "rita", Groups: []string{"readers"}}, Verb: "list", ResourceRequest: true, Resource: "pods"})
	assert.Equal(t, `Allow "RBAC: allowed by ClusterRoleBinding \"b-readers\" of ClusterRole \"pod-reader\" to Group \"readers\""
  rbac: Allow "RBAC: allowed by ClusterRoleBinding \"b-readers\" of ClusterRole \"pod-reader\" to Group \"readers\""
    ClusterRoleBinding "b-readers" (subject Group "readers") → ClusterRole "pod-reader": allowed by rules[0] {apiGroups=[""] resources=["pods" "pods/log"] verbs=["get" "list"]}`, trace.String())
}

func TestUpdate(t *testing.T) {
	a := newFixture(t)
	attrs := &authorizer.Attributes{User: &authorizer.User{Name: "rita", Groups: []string{"readers"}}, Verb: "list", ResourceRequest: true, Resource: "pods"}
	d, _, _ := a.Authorize(context.Background(), attrs)
	require.Equal(t, authorizer.DecisionAllow, d)

	objs := a.Objects()
	objs.ClusterRoleBindings = nil
	require.NoError(t, a.Update(objs))
	d, _, _ = a.Authorize(context.Background(), attrs)
	assert.Equal(t, authorizer.DecisionNoOpinion, d)

	// A bad update keeps the previous objects.
	objs.ClusterRoles = append(objs.ClusterRoles, objs.ClusterRoles[0])
	assert.EqualError(t, a.Update(objs), `duplicate ClusterRole "pod-reader"`)
	assert.Len(t, a.Objects().ClusterRoleBindings, 0)
	assert.EqualError(t, a.Sync(), "rbac: Sync needs an authorizer built by New; use Update")
}
