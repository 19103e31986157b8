package authorizer

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/metrics"

	"github.com/gatehouse-dev/gatehouse/kube"
)

func answer(d Decision, reason string, err error) Authorizer {
	return Func(func(context.Context, *Attributes) (Decision, string, error) { return d, reason, err })
}

// called records whether it was asked.
type called struct {
	Authorizer
	asked bool
}

func (c *called) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	c.asked = true
	return c.Authorizer.Authorize(ctx, a)
}

func TestNewChainRejectsBadNames(t *testing.T) {
	tests := []struct {
		name    string
		entries []Named
		wantErr string
	}{
		{"empty name", []Named{{Name: "", Authorizer: AlwaysAllow()}}, "empty AuthorizerName in union.New is invalid"},
		{"duplicate", []Named{{Name: "a", Authorizer: AlwaysAllow()}, {Name: "a", Authorizer: AlwaysDeny()}}, `duplicate AuthorizerName "a" in union.New`},
		{"nil authorizer", []Named{{Name: "a"}}, `authorizer "a" in union.New is nil`},
		{"fine", []Named{{Name: "a", Authorizer: AlwaysAllow()}, {Name: "b", Authorizer: AlwaysDeny()}}, ""},
		{"empty chain", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewChain(tt.entries...)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.Nil(t, c)
				return
			}
			require.NoError(t, err)
			assert.Len(t, c.Names(), len(tt.entries))
		})
	}
}

func TestChainDecides(t *testing.T) {
	e1, e2, e3 := errors.New("one"), errors.New("two"), errors.New("three")
	tests := []struct {
		name       string
		chain      []Authorizer
		wantD      Decision
		wantReason string
		wantErr    string
		wantAsked  []bool
	}{
		{
			name:  "empty chain has no opinion",
			wantD: DecisionNoOpinion,
		},
		{
			name:       "first allow wins with its own reason and error",
			chain:      []Authorizer{answer(DecisionNoOpinion, "skip", e1), answer(DecisionAllow, "yes", e2), answer(DecisionDeny, "no", nil)},
			wantD:      DecisionAllow,
			wantReason: "yes",
			wantErr:    "two",
			wantAsked:  []bool{true, true, false},
		},
		{
			name:       "first deny wins, earlier errors dropped",
			chain:      []Authorizer{answer(DecisionNoOpinion, "", e1), answer(DecisionDeny, "no", nil), answer(DecisionAllow, "yes", nil)},
			wantD:      DecisionDeny,
			wantReason: "no",
			wantAsked:  []bool{true, true, false},
		},
		{
			name:       "no opinion joins prefixed reasons and aggregates errors",
			chain:      []Authorizer{answer(DecisionNoOpinion, "first", e1), answer(DecisionNoOpinion, "", nil), answer(DecisionNoOpinion, "third", e3)},
			wantD:      DecisionNoOpinion,
			wantReason: "a0: first\na2: third",
			wantErr:    "[one, three]",
			wantAsked:  []bool{true, true, true},
		},
		{
			name:       "a single error prints bare",
			chain:      []Authorizer{answer(DecisionNoOpinion, "", e2), AlwaysDeny()},
			wantD:      DecisionNoOpinion,
			wantReason: "a1: Everything is forbidden.",
			wantErr:    "two",
			wantAsked:  []bool{true, true},
		},
		{
			name:      "equal error texts are printed once",
			chain:     []Authorizer{answer(DecisionNoOpinion, "", errors.New("same")), answer(DecisionNoOpinion, "", errors.New("same"))},
			wantD:     DecisionNoOpinion,
			wantErr:   "same",
			wantAsked: []bool{true, true},
		},
		{
			name:      "a decision outside the three continues like no opinion",
			chain:     []Authorizer{answer(Decision(7), "odd", nil), AlwaysAllow()},
			wantD:     DecisionAllow,
			wantAsked: []bool{true, true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var entries []Named
			var spies []*called
			for i, a := range tt.chain {
				s := &called{Authorizer: a}
				spies = append(spies, s)
				entries = append(entries, Named{Name: "a" + string(rune('0'+i)), Authorizer: s})
			}
			c, err := NewChain(entries...)
			require.NoError(t, err)
			d, reason, err := c.Authorize(context.Background(), podGet("jane"))
			assert.Equal(t, tt.wantD, d)
			assert.Equal(t, tt.wantReason, reason)
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
			for i, s := range spies {
				assert.Equal(t, tt.wantAsked[i], s.asked, "authorizer %d asked", i)
			}
		})
	}
}

func TestBuiltins(t *testing.T) {
	masters := PrivilegedGroups(SystemPrivilegedGroup)
	tests := []struct {
		name       string
		az         Authorizer
		attrs      *Attributes
		wantD      Decision
		wantReason string
		wantErr    string
	}{
		{"masters member", masters, podGet("root", "devs", "system:masters"), DecisionAllow, "", ""},
		{"masters non-member", masters, podGet("jane", "devs"), DecisionNoOpinion, "", ""},
		{"masters no groups", masters, podGet("jane"), DecisionNoOpinion, "", ""},
		{"masters no user", masters, &Attributes{Verb: "get"}, DecisionNoOpinion, "Error", "no user on request."},
		{"masters nil attributes", masters, nil, DecisionNoOpinion, "Error", "no user on request."},
		{"masters is case-sensitive", masters, podGet("x", "System:Masters"), DecisionNoOpinion, "", ""},
		{"several groups", PrivilegedGroups("a", "b"), podGet("x", "b"), DecisionAllow, "", ""},
		{"always allow", AlwaysAllow(), podGet("x"), DecisionAllow, "", ""},
		{"always deny has no opinion", AlwaysDeny(), podGet("x"), DecisionNoOpinion, "Everything is forbidden.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := tt.az.Authorize(context.Background(), tt.attrs)
			assert.Equal(t, tt.wantD, d)
			assert.Equal(t, tt.wantReason, reason)
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
		})
	}
}

func TestPrivilegedGroupsCopiesItsInput(t *testing.T) {
	groups := []string{"system:masters"}
	az := PrivilegedGroups(groups...)
	groups[0] = "changed"
	d, _, _ := az.Authorize(context.Background(), podGet("x", "system:masters"))
	assert.Equal(t, DecisionAllow, d)
}

func TestDecisionMetrics(t *testing.T) {
	mem := metrics.NewMemory()
	seq := []Decision{DecisionAllow, DecisionAllow, DecisionDeny, DecisionNoOpinion, Decision(9)}
	i := 0
	inner := Func(func(context.Context, *Attributes) (Decision, string, error) {
		d := seq[i]
		i++
		return d, "r", nil
	})
	az := WithDecisionMetrics(mem, "Webhook", "wh", inner)
	for range seq {
		_, reason, _ := az.Authorize(context.Background(), podGet("x"))
		assert.Equal(t, "r", reason)
	}
	assert.Equal(t, 2, counter(mem, metrics.AuthorizationDecisions, "Webhook", "wh", "allowed"))
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationDecisions, "Webhook", "wh", "denied"))
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationDecisions, "Webhook", "wh", "unknown"))
	assert.Len(t, mem.Series(metrics.AuthorizationDecisions), 3, "NoOpinion is not counted")
	assert.Empty(t, mem.Errors())

	// A nil sink records nothing and does not fail.
	d, _, _ := WithDecisionMetrics(nil, "RBAC", "rbac", AlwaysAllow()).Authorize(context.Background(), nil)
	assert.Equal(t, DecisionAllow, d)
}

func TestDecisionString(t *testing.T) {
	assert.Equal(t, "Deny", DecisionDeny.String())
	assert.Equal(t, "Allow", DecisionAllow.String())
	assert.Equal(t, "NoOpinion", DecisionNoOpinion.String())
	assert.Equal(t, "Decision(5)", Decision(5).String())
	var zero Decision
	assert.Equal(t, DecisionDeny, zero, "the zero Decision denies")
}

// Before 1.37 the union authorizer joins the reasons without its
// authorizers' names (k8s.io/apiserver v0.36.6 pkg/authorization/union).
func TestChainReasonsPerVersion(t *testing.T) {
	entries := []Named{
		{Name: "webhook", Authorizer: answer(DecisionNoOpinion, "not mine", nil)},
		{Name: "rbac", Authorizer: answer(DecisionNoOpinion, "no binding", nil)},
	}
	for version, want := range map[string]string{
		"1.35": "not mine\nno binding",
		"1.36": "not mine\nno binding",
		"1.37": "webhook: not mine\nrbac: no binding",
		"1.38": "webhook: not mine\nrbac: no binding",
	} {
		target, err := kube.ParseTarget(version)
		require.NoError(t, err)
		c, err := NewChainFor(target, entries...)
		require.NoError(t, err)
		d, reason, err := c.Authorize(context.Background(), &Attributes{})
		require.NoError(t, err)
		assert.Equal(t, DecisionNoOpinion, d)
		assert.Equal(t, want, reason, version)
	}
}
