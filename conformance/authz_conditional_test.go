package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/conformance/internal/kubeoracle"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// conditionalCases is the number of generated chains
// TestConditionalAuthorizationMatchesKubeAPIServer compares.
const conditionalCases = 10000

// TestConditionalAuthorizationMatchesKubeAPIServer compares conditional
// authorization (KEP-5681) with kube-apiserver 1.38's (the conditional op
// of the 1.38 oracle): generated chains of scripted authorizers answering
// decision trees (unconditional leaves with or without reason and error,
// ConditionsMaps of 0 to 3 conditions per effect, some invalid or
// repeated, unions nested up to depth 3, some member names invalid or
// repeated) through the chain's AuthorizeConditionally (String,
// PossibleDecisions, FailureDecision), then EvaluateConditions with
// scripted condition results (true, false, error with and without a text,
// unevaluatable), each authorizer evaluating with PartiallyEvaluate and
// Outcome. Zero differences.
func TestConditionalAuthorizationMatchesKubeAPIServer(t *testing.T) {
	oracles := startOraclesOf(t, []string{"1.38"})
	o := oracles[0]
	target := targetOf(t, o)
	n := conditionalCases
	if testing.Short() {
		n /= 10
	}
	g := conditionalGen{r: rand.New(rand.NewPCG(5681, 138))}
	differ, conditional, evaluatedConditions := 0, 0, 0
	for i := range n {
		q := g.query()
		want, err := o.Eval(q)
		require.NoError(t, err)
		require.Empty(t, want.Error, "case %d", i)
		got := gatehouseConditionalAnswer(target, q)
		if want.Conditional != nil {
			if strings.Contains(want.Conditional.String, "ConditionsMap(") {
				conditional++
			}
			if strings.Contains(want.Conditional.Reason, "condition \"") || strings.Contains(want.Conditional.Error, "condition \"") {
				evaluatedConditions++
			}
		}
		if !assert.Equal(t, want, got, "case %d: %+v", i, q) {
			differ++
			if differ >= 10 {
				t.Fatalf("stopping after %d differences", differ)
			}
		}
	}
	t.Logf("%d chains compared: %d with a conditional decision, %d decided by a condition's evaluation, %d differences", n, conditional, evaluatedConditions, differ)
	assert.Greater(t, conditional, n/5, "the generator makes conditional decisions")
	assert.Greater(t, evaluatedConditions, n/10, "the generator makes conditions decide")
}

// conditionalGen generates OpConditional queries.
type conditionalGen struct {
	r    *rand.Rand
	next int // the next condition ID
}

// conditionIDs are the IDs conditions take, mostly in turn (a few are
// repeated, making duplicates); the last two are invalid.
var conditionIDs = func() []string {
	var ids []string
	for i := range 30 {
		ids = append(ids, fmt.Sprintf("example.com/c%d", i))
	}
	return append(ids, "no-domain", "")
}()

// memberNames are the names of union members and chain authorizers; the
// last ones are invalid as DNS-1123 subdomains.
var memberNames = []string{"a", "b", "c", "webhook.example.com", "d", "e", "RBAC", "bad_name", ""}

func (g *conditionalGen) query() protocol.Query {
	q := protocol.Query{Op: protocol.OpConditional, ConditionResults: map[string]string{}}
	used := map[string]bool{}
	for range 1 + g.r.IntN(4) {
		name := memberNames[g.r.IntN(len(memberNames)-1)] // never empty: union.New refuses it
		if used[name] {
			continue
		}
		used[name] = true
		q.Conditional = append(q.Conditional, protocol.ScriptedConditional{Name: name, Decision: g.decision(3)})
	}
	results := []string{"true", "false", "error", "error:boom", "unevaluatable"}
	for _, id := range conditionIDs {
		q.ConditionResults[id] = results[g.r.IntN(len(results))]
	}
	return q
}

func (g *conditionalGen) text(prefix string) string {
	switch g.r.IntN(3) {
	case 0:
		return ""
	case 1:
		return prefix
	}
	return prefix + ` "quoted", ` + fmt.Sprint(g.r.IntN(100))
}

func (g *conditionalGen) decision(depth int) protocol.ScriptedDecision {
	k := g.r.IntN(10)
	switch {
	case k < 3:
		types := []string{"Allow", "Deny", "NoOpinion", "NoOpinion"}
		return protocol.ScriptedDecision{Type: types[g.r.IntN(len(types))], Reason: g.text("reason"), Error: g.text("err")}
	case k < 8 || depth == 0:
		return protocol.ScriptedDecision{Type: "ConditionsMap",
			DenyConditions: g.conditions(), NoOpinionConditions: g.conditions(), AllowConditions: g.conditions()}
	}
	d := protocol.ScriptedDecision{Type: "Union"}
	for range g.r.IntN(4) {
		name := memberNames[g.r.IntN(len(memberNames))]
		if g.r.IntN(4) > 0 {
			name = memberNames[g.r.IntN(4)] // mostly valid
		}
		d.Union = append(d.Union, protocol.ScriptedMember{Name: name, Decision: g.decision(depth - 1)})
	}
	return d
}

func (g *conditionalGen) conditions() []protocol.ScriptedCondition {
	var out []protocol.ScriptedCondition
	for range g.r.IntN(4) {
		g.next = (g.next + 1) % 30
		id := conditionIDs[g.next]
		switch g.r.IntN(100) {
		case 0, 1, 2:
			id = conditionIDs[(g.next+29)%30] // the previous one: a duplicate if in the same map
		case 3:
			id = conditionIDs[30+g.r.IntN(2)]
		}
		c := protocol.ScriptedCondition{ID: id, Description: g.text("desc")}
		switch g.r.IntN(100) {
		case 0:
			c.Type = "bad type"
		case 1, 2, 3, 4, 5:
			c.Type = "example.com/cel"
		case 6:
			c.Condition = strings.Repeat("x", 10241)
		case 7:
			c.Description = strings.Repeat("d", 1025)
		}
		out = append(out, c)
	}
	return out
}

// gatehouseConditionalAnswer answers q with authorizer.NewChainFor's
// AuthorizeConditionally and EvaluateConditions.
func gatehouseConditionalAnswer(target kube.Target, q protocol.Query) protocol.Answer {
	c, err := ourConditionalChain(target, q)
	if err != nil {
		return protocol.Answer{NewError: err.Error()}
	}
	ctx := context.Background()
	d := c.AuthorizeConditionally(ctx, &authorizer.Attributes{User: &authorizer.User{Name: "x"}})
	a := &protocol.ConditionalAnswer{String: d.String(), Failure: d.FailureDecision().String()}
	for _, p := range d.PossibleDecisions() {
		a.Possible = append(a.Possible, p.String())
	}
	x, reason, err := c.EvaluateConditions(ctx, d, &authorizer.ConditionsData{Operation: "CREATE", User: authorizer.User{Name: "x"}})
	a.Decision, a.Reason = x.String(), reason
	if err != nil {
		a.Error, a.HasError = err.Error(), true
	}
	return protocol.Answer{Conditional: a}
}

// ourConditionalChain is the chain of q's scripted conditional
// authorizers, evaluating conditions as q.ConditionResults says.
func ourConditionalChain(target kube.Target, q protocol.Query) (*authorizer.Chain, error) {
	eval := func(_ context.Context, c authorizer.Condition) authorizer.ConditionResult {
		switch r := q.ConditionResults[c.ID]; {
		case r == "true":
			return authorizer.ConditionBool(true)
		case r == "false":
			return authorizer.ConditionBool(false)
		case r == "error":
			return authorizer.ConditionError(nil)
		case strings.HasPrefix(r, "error:"):
			return authorizer.ConditionError(errors.New(strings.TrimPrefix(r, "error:")))
		}
		return authorizer.ConditionUnevaluatable()
	}
	var named []authorizer.Named
	for _, s := range q.Conditional {
		named = append(named, authorizer.Named{Name: s.Name, Authorizer: &scriptedConditional{d: ourDecision(s.Decision), eval: eval}})
	}
	return authorizer.NewChainFor(target, named...)
}

func ourDecision(s protocol.ScriptedDecision) authorizer.ConditionalDecision {
	var err error
	if s.Error != "" {
		err = errors.New(s.Error)
	}
	switch s.Type {
	case "Allow":
		return authorizer.UnconditionalDecision(authorizer.DecisionAllow, s.Reason, err)
	case "NoOpinion":
		return authorizer.UnconditionalDecision(authorizer.DecisionNoOpinion, s.Reason, err)
	case "Deny":
		return authorizer.UnconditionalDecision(authorizer.DecisionDeny, s.Reason, err)
	case "ConditionsMap":
		return authorizer.ConditionsMapDecision(ourConditions(s.DenyConditions), ourConditions(s.NoOpinionConditions), ourConditions(s.AllowConditions))
	}
	var members []authorizer.ConditionalMember
	for _, m := range s.Union {
		members = append(members, authorizer.ConditionalMember{Name: m.Name, Decision: ourDecision(m.Decision)})
	}
	return authorizer.ConditionalUnion(members...)
}

func ourConditions(in []protocol.ScriptedCondition) []authorizer.Condition {
	var out []authorizer.Condition
	for _, c := range in {
		out = append(out, authorizer.Condition{ID: c.ID, Condition: c.Condition, Type: c.Type, Description: c.Description})
	}
	return out
}

// scriptedConditional answers d and evaluates with eval, as the oracle's.
type scriptedConditional struct {
	d    authorizer.ConditionalDecision
	eval authorizer.EvaluateConditionFunc
}

func (s *scriptedConditional) Authorize(context.Context, *authorizer.Attributes) (authorizer.Decision, string, error) {
	return s.d.Outcome()
}

func (s *scriptedConditional) AuthorizeConditionally(context.Context, *authorizer.Attributes) authorizer.ConditionalDecision {
	return s.d
}

func (s *scriptedConditional) EvaluateConditions(ctx context.Context, d authorizer.ConditionalDecision, _ *authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return d.PartiallyEvaluate(ctx, s.eval).Outcome()
}

// TestUnionConditionsAwareMatchesKubeAPIServerPerVersion asks every chain
// of unconditional scripted authorizers of unionChains through each
// version's union ConditionsAwareAuthorize (1.37 and 1.38; the union op
// with conditionsAware) and through the chain's AuthorizeConditionally as
// that version: the same decision, byte for byte (its String: reasons
// "name: {reason}" joined by ", ", errors prefixed and aggregated).
func TestUnionConditionsAwareMatchesKubeAPIServerPerVersion(t *testing.T) {
	oracles := startOraclesOf(t, kubeoracle.AllVersions())
	chains := unionChains()
	compared := 0
	for _, o := range oracles {
		if !kube.MustParseVersion(o.Version()).AtLeast(kube.V1_37) {
			continue
		}
		t.Run(o.Version(), func(t *testing.T) {
			target := targetOf(t, o)
			differ := 0
			for _, chain := range chains {
				want, err := o.Eval(protocol.Query{Op: protocol.OpUnion, Authorizers: chain, ConditionsAware: true})
				require.NoError(t, err)
				require.Empty(t, want.Error)
				got := gatehouseUnionConditionsAware(t, target, chain)
				if !assert.Equal(t, want.ConditionsAware, got, "chain %+v", chain) {
					differ++
					if differ >= 10 {
						t.Fatalf("stopping after %d differences", differ)
					}
				}
				compared++
			}
		})
	}
	t.Logf("%d chains compared", compared)
	assert.NotZero(t, compared)
}

func gatehouseUnionConditionsAware(t *testing.T, target kube.Target, chain []protocol.ScriptedAuthorizer) string {
	t.Helper()
	var named []authorizer.Named
	for _, s := range chain {
		d := authorizer.DecisionNoOpinion
		switch s.Decision {
		case protocol.DecisionAllow:
			d = authorizer.DecisionAllow
		case protocol.DecisionDeny:
			d = authorizer.DecisionDeny
		}
		named = append(named, authorizer.Named{Name: s.Name, Authorizer: azScripted{d, s.Reason, s.Error}.ours()})
	}
	c, err := authorizer.NewChainFor(target, named...)
	require.NoError(t, err)
	return c.AuthorizeConditionally(context.Background(), &authorizer.Attributes{User: &authorizer.User{Name: "x"}}).String()
}
