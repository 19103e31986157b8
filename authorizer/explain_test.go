package authorizer

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExplainChain(t *testing.T) {
	inner, err := NewChain(Named{Name: "inner-deny", Authorizer: AlwaysDeny()})
	require.NoError(t, err)
	chain, err := NewChain(
		Named{Name: PrivilegedGroupsName, Authorizer: PrivilegedGroups(SystemPrivilegedGroup)},
		Named{Name: "custom", Authorizer: WithDecisionMetrics(nil, "Custom", "custom", answer(DecisionNoOpinion, "not mine", errors.New("flaky")))},
		Named{Name: "nested", Authorizer: inner},
		Named{Name: "allow", Authorizer: AlwaysAllow()},
		Named{Name: "never asked", Authorizer: AlwaysAllow()},
	)
	require.NoError(t, err)
	tr := Explain(context.Background(), chain, podGet("jane"))
	assert.Equal(t, DecisionAllow, tr.Decision)
	require.Len(t, tr.Steps, 4, "authorizers after the decision are not asked")
	assert.Equal(t, "Custom", tr.Steps[1].Type)
	assert.EqualError(t, tr.Steps[1].Err, "flaky")
	require.Len(t, tr.Steps[2].Steps, 1)
	assert.Equal(t, "Everything is forbidden.", tr.Steps[2].Steps[0].Reason)
	assert.Equal(t, "nested", tr.Steps[2].Name)
	assert.Equal(t, "inner-deny: Everything is forbidden.", tr.Steps[2].Reason)
	assert.Equal(t, `Allow
  system-privileged-group.authorizer.kubernetes.io: NoOpinion
  custom (Custom): NoOpinion "not mine" error: flaky
  nested: NoOpinion "inner-deny: Everything is forbidden."
    inner-deny: NoOpinion "Everything is forbidden."
  allow: Allow`, tr.String())

	// The same answer as Authorize.
	d, reason, err := chain.Authorize(context.Background(), podGet("jane"))
	assert.Equal(t, tr.Decision, d)
	assert.Equal(t, tr.Reason, reason)
	assert.Equal(t, tr.Err, err)
}

func TestExplainSingleAuthorizer(t *testing.T) {
	tr := Explain(context.Background(), AlwaysDeny(), nil)
	assert.Equal(t, DecisionNoOpinion, tr.Decision)
	require.Len(t, tr.Steps, 1)
	assert.Equal(t, `NoOpinion "Everything is forbidden."
  authorizer: NoOpinion "Everything is forbidden."`, tr.String())
}

// TestAuthorizeDoesNotPayForExplain: a chain's Authorize allocates nothing.
func TestAuthorizeDoesNotPayForExplain(t *testing.T) {
	chain, err := NewChain(
		Named{Name: PrivilegedGroupsName, Authorizer: PrivilegedGroups(SystemPrivilegedGroup)},
		Named{Name: "deny", Authorizer: WithDecisionMetrics(nil, "AlwaysDeny", "deny", AlwaysDeny())},
		Named{Name: "allow", Authorizer: WithDecisionMetrics(nil, "AlwaysAllow", "allow", AlwaysAllow())},
	)
	require.NoError(t, err)
	a := podGet("jane", "devs")
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		if d, _, _ := chain.Authorize(ctx, a); d != DecisionAllow {
			t.Fatal(d)
		}
	})
	assert.Zero(t, allocs)
}

func TestOutcomeStrings(t *testing.T) {
	assert.Equal(t, "none configured", MatchNoConditions.String())
	assert.Equal(t, "all true", MatchAll.String())
	assert.Equal(t, "excluded", MatchExcluded.String())
	assert.Equal(t, "error", MatchError.String())
	assert.Equal(t, "MatchOutcome(9)", MatchOutcome(9).String())
	assert.Equal(t, "not consulted", CacheNotConsulted.String())
	assert.Equal(t, "hit", CacheHit.String())
	assert.Equal(t, "miss", CacheMiss.String())
	assert.Equal(t, "CacheOutcome(9)", CacheOutcome(9).String())
}

type explainedAuthorizer struct{}

func (explainedAuthorizer) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return DecisionAllow, "plain", nil
}

func (explainedAuthorizer) AuthorizeExplained(context.Context, *Attributes) (Decision, string, []string, error) {
	return DecisionAllow, "explained", []string{"first line", "second line"}, nil
}

func TestExplainAsksAnExplainer(t *testing.T) {
	chain, err := NewChain(Named{Name: "mine", Authorizer: WithDecisionMetrics(nil, "Mine", "mine", explainedAuthorizer{})})
	require.NoError(t, err)
	trace := Explain(context.Background(), chain, &Attributes{User: &User{Name: "u"}, Verb: "get", Path: "/"})
	require.Len(t, trace.Steps, 1)
	assert.Equal(t, []string{"first line", "second line"}, trace.Steps[0].Details)
	assert.Equal(t, "Allow \"explained\"\n  mine (Mine): Allow \"explained\"\n    first line\n    second line", trace.String())
	d, reason, _ := chain.Authorize(context.Background(), &Attributes{User: &User{Name: "u"}, Verb: "get", Path: "/"})
	assert.Equal(t, DecisionAllow, d)
	assert.Equal(t, "plain", reason)
}
