package rbac

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

var userU = authorizer.User{Name: "u"}

func TestWhoCan(t *testing.T) {
	a := newFixture(t)
	grants, err := a.WhoCan(&authorizer.Attributes{Verb: "get", ResourceRequest: true, Namespace: "team-a", Resource: "pods"})
	assert.EqualError(t, err, `[clusterrole.rbac.authorization.k8s.io "deleted" not found, role.rbac.authorization.k8s.io "secret-reader" not found, role.rbac.authorization.k8s.io "missing" not found, unsupported role reference kind: "Policy"]`)
	var names []string
	for _, g := range grants {
		names = append(names, g.Binding.String())
	}
	assert.Equal(t, []string{`ClusterRoleBinding "a-jane"`, `ClusterRoleBinding "b-readers"`, `ClusterRoleBinding "sa-without-namespace"`, `RoleBinding "readers/team-a"`}, names)
	assert.Equal(t, 0, grants[0].RuleIndex)

	subjects, _ := a.AllowedSubjects(&authorizer.Attributes{Verb: "get", ResourceRequest: true, Namespace: "team-a", Resource: "pods"})
	assert.Equal(t, []rbacv1.Subject{
		{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:masters"},
		{Kind: "User", APIGroup: rbacv1.GroupName, Name: "jane"},
		{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "readers"},
		{Kind: "ServiceAccount", Name: "builder"},
		{Kind: "user", Name: "tom"},
		{Kind: "User", Name: "tom"},
	}, subjects)
}

func TestSubjectRulesReview(t *testing.T) {
	a := newFixture(t)
	builder := &authorizer.User{Name: "system:serviceaccount:team-a:builder", Groups: []string{"system:authenticated"}}
	st := a.SubjectRulesReview(builder, "team-a")
	assert.Equal(t, authorizationv1.SubjectRulesReviewStatus{
		ResourceRules: []authorizationv1.ResourceRule{
			{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"db"}},
		},
		NonResourceRules: []authorizationv1.NonResourceRule{
			{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*", "/healthz"}},
		},
		EvaluationError: `[clusterrole.rbac.authorization.k8s.io "deleted" not found, role.rbac.authorization.k8s.io "missing" not found, unsupported role reference kind: "Policy"]`,
	}, st)

	rules, err := a.RulesFor(&authorizer.User{Name: "nobody"}, "team-a")
	require.NoError(t, err)
	assert.Empty(t, rules)
	_, err = a.RulesFor(nil, "")
	assert.Error(t, err)
}
