package admissionpolicy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

type countingAuthorizer struct{ calls int }

func (c *countingAuthorizer) Authorize(_ context.Context, a *matchcond.AuthorizationAttributes) (matchcond.Decision, string, error) {
	c.calls++
	if a.Verb == "get" {
		return matchcond.DecisionAllow, "ok", nil
	}
	return matchcond.DecisionNoOpinion, "", nil
}

func TestCachingAuthorizer(t *testing.T) {
	next := &countingAuthorizer{}
	c := NewCachingAuthorizer(next)
	user := &matchcond.UserInfo{Name: "alice", Groups: []string{"g"}}
	get := &matchcond.AuthorizationAttributes{User: user, Verb: "get", ResourceRequest: true, Resource: "pods", Namespace: "ns"}
	for range 3 {
		d, reason, err := c.Authorize(context.Background(), get)
		assert.NoError(t, err)
		assert.Equal(t, matchcond.DecisionAllow, d)
		assert.Equal(t, "ok", reason)
	}
	assert.Equal(t, 1, next.calls, "one check asked once")
	list := *get
	list.Verb = "list"
	d, _, _ := c.Authorize(context.Background(), &list)
	assert.Equal(t, matchcond.DecisionNoOpinion, d)
	other := *get
	other.User = &matchcond.UserInfo{Name: "system:serviceaccount:ns:sa"}
	c.Authorize(context.Background(), &other)
	path := &matchcond.AuthorizationAttributes{User: user, Verb: "get", Path: "/healthz"}
	c.Authorize(context.Background(), path)
	assert.Equal(t, 4, next.calls, "different checks are asked")
}
