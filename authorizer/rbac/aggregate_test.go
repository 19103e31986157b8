package rbac

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func clusterRole(name string, labels map[string]string, agg []metav1.LabelSelector, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
	if agg != nil {
		cr.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: agg}
	}
	return cr
}

func verbRule(verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: []string{""}, Resources: []string{"pods"}}
}

func TestAggregate(t *testing.T) {
	sel := func(k, v string) metav1.LabelSelector {
		return metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
	}
	tests := []struct {
		name    string
		in      []*rbacv1.ClusterRole
		want    map[string][]rbacv1.PolicyRule
		wantErr string
	}{
		{name: "rules of the selected roles in name order, own rules replaced",
			in: []*rbacv1.ClusterRole{
				clusterRole("view", nil, []metav1.LabelSelector{sel("view", "true")}, verbRule("own")),
				clusterRole("z-extra", map[string]string{"view": "true"}, nil, verbRule("watch")),
				clusterRole("a-base", map[string]string{"view": "true"}, nil, verbRule("get"), verbRule("list")),
				clusterRole("other", map[string]string{"view": "false"}, nil, verbRule("delete")),
			},
			want: map[string][]rbacv1.PolicyRule{"view": {verbRule("get"), verbRule("list"), verbRule("watch")}}},
		{name: "a rule comes once; an empty list equals none",
			in: []*rbacv1.ClusterRole{
				clusterRole("agg", nil, []metav1.LabelSelector{sel("a", "1"), sel("b", "1")}),
				clusterRole("one", map[string]string{"a": "1", "b": "1"}, nil, verbRule("get"), rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}, Resources: []string{}}),
				clusterRole("two", map[string]string{"b": "1"}, nil, verbRule("get"), rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}}),
			},
			want: map[string][]rbacv1.PolicyRule{"agg": {verbRule("get"), {Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}, Resources: []string{}}}}},
		{name: "a role does not select itself; when nothing is selected, its own rules stay",
			in:   []*rbacv1.ClusterRole{clusterRole("self", map[string]string{"a": "1"}, []metav1.LabelSelector{sel("a", "1")}, verbRule("get"))},
			want: map[string][]rbacv1.PolicyRule{}},
		{name: "an empty selector selects every other role",
			in: []*rbacv1.ClusterRole{
				clusterRole("all", nil, []metav1.LabelSelector{{}}),
				clusterRole("x", nil, nil, verbRule("get")),
			},
			want: map[string][]rbacv1.PolicyRule{"all": {verbRule("get")}}},
		{name: "an aggregationRule without selectors keeps the role's rules",
			in:   []*rbacv1.ClusterRole{clusterRole("none", nil, []metav1.LabelSelector{}, verbRule("get"))},
			want: map[string][]rbacv1.PolicyRule{}},
		{name: "aggregated roles of aggregated roles, whatever their names",
			in: []*rbacv1.ClusterRole{
				clusterRole("a-admin", nil, []metav1.LabelSelector{sel("edit", "true")}),
				clusterRole("b-edit", map[string]string{"edit": "true"}, []metav1.LabelSelector{sel("view", "true")}),
				clusterRole("c-view", map[string]string{"view": "true"}, nil, verbRule("get")),
			},
			want: map[string][]rbacv1.PolicyRule{"a-admin": {verbRule("get")}, "b-edit": {verbRule("get")}}},
		{name: "matchExpressions",
			in: []*rbacv1.ClusterRole{
				clusterRole("agg", nil, []metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}}}),
				clusterRole("a", map[string]string{"tier": "a"}, nil, verbRule("get")),
				clusterRole("c", map[string]string{"tier": "c"}, nil, verbRule("list")),
			},
			want: map[string][]rbacv1.PolicyRule{"agg": {verbRule("get")}}},
		{name: "an invalid selector leaves the role as it is",
			in: []*rbacv1.ClusterRole{
				clusterRole("bad", nil, []metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}}, verbRule("own")),
				clusterRole("a", map[string]string{"tier": "a"}, nil, verbRule("get")),
			},
			want:    map[string][]rbacv1.PolicyRule{},
			wantErr: `ClusterRole "bad": aggregationRule.clusterRoleSelectors[0]: "Near" is not a valid label selector operator`},
		{name: "roles that select each other settle",
			in: []*rbacv1.ClusterRole{
				clusterRole("a", map[string]string{"x": "1"}, []metav1.LabelSelector{sel("x", "1")}, verbRule("a")),
				clusterRole("b", map[string]string{"x": "1"}, []metav1.LabelSelector{sel("x", "1")}, verbRule("b")),
			},
			want: map[string][]rbacv1.PolicyRule{"a": {verbRule("b")}, "b": {verbRule("b")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := make([]rbacv1.ClusterRole, len(tt.in))
			for i, cr := range tt.in {
				before[i] = *cr.DeepCopy()
			}
			out, err := Aggregate(tt.in)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Len(t, out, len(tt.in))
			for i, cr := range out {
				assert.Equal(t, before[i], *tt.in[i], "the input is not modified")
				if want, ok := tt.want[cr.Name]; ok {
					assert.Equal(t, want, cr.Rules, cr.Name)
				} else {
					assert.Same(t, tt.in[i], cr, cr.Name)
				}
			}
		})
	}
}

func TestAuthorizerAggregates(t *testing.T) {
	objs := &Objects{
		ClusterRoles: []*rbacv1.ClusterRole{
			clusterRole("view", nil, []metav1.LabelSelector{{MatchLabels: map[string]string{"view": "true"}}}),
			clusterRole("pods", map[string]string{"view": "true"}, nil, verbRule("get")),
		},
		ClusterRoleBindings: []*rbacv1.ClusterRoleBinding{{ObjectMeta: metav1.ObjectMeta{Name: "b"},
			RoleRef: rbacv1.RoleRef{Kind: KindClusterRole, Name: "view"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "u"}}}},
	}
	for _, skip := range []bool{false, true} {
		a, err := FromObjects(objs, Options{SkipAggregation: skip})
		require.NoError(t, err)
		rules, err := a.RulesFor(&userU, "")
		require.NoError(t, err)
		if skip {
			assert.Empty(t, rules)
		} else {
			assert.Equal(t, []rbacv1.PolicyRule{verbRule("get")}, rules)
		}
	}
}
