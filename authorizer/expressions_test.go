package authorizer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// TestForExpressions passes a CEL check's attributes, selectors included,
// and maps the decisions.
func TestForExpressions(t *testing.T) {
	var got *Attributes
	next := Func(func(_ context.Context, a *Attributes) (Decision, string, error) {
		got = a
		switch a.Verb {
		case "get":
			return DecisionAllow, "rbac", nil
		case "delete":
			return DecisionDeny, "no", nil
		}
		return DecisionNoOpinion, "", nil
	})
	fs, err := fields.ParseSelector("spec.nodeName=n1")
	require.NoError(t, err)
	ls, err := labels.ParseToRequirements("app in (a,b)")
	require.NoError(t, err)
	e := ForExpressions(next)
	d, reason, err := e.Authorize(context.Background(), &matchcond.AuthorizationAttributes{
		User: &matchcond.UserInfo{Name: "alice", Groups: []string{"g"}}, Verb: "get", ResourceRequest: true,
		Resource: "pods", Namespace: "ns", FieldSelectorRequirements: fs.Requirements(), LabelSelectorRequirements: ls})
	require.NoError(t, err)
	assert.Equal(t, matchcond.DecisionAllow, d)
	assert.Equal(t, "rbac", reason)
	assert.Equal(t, "alice", got.User.Name)
	assert.Equal(t, []FieldRequirement{{Field: "spec.nodeName", Operator: selection.Equals, Value: "n1"}}, got.FieldSelector)
	assert.Equal(t, []LabelRequirement{{Key: "app", Operator: selection.In, Values: []string{"a", "b"}}}, got.LabelSelector)
	d, _, _ = e.Authorize(context.Background(), &matchcond.AuthorizationAttributes{Verb: "delete"})
	assert.Equal(t, matchcond.DecisionDeny, d)
	assert.Nil(t, got.User, "a check without a user")
	d, _, _ = e.Authorize(context.Background(), &matchcond.AuthorizationAttributes{Verb: "list"})
	assert.Equal(t, matchcond.DecisionNoOpinion, d)
}
