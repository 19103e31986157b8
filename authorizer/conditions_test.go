package authorizer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

func cond(id string) Condition { return Condition{ID: "example.com/" + id} }

func conds(ids ...string) []Condition {
	out := make([]Condition, len(ids))
	for i, id := range ids {
		out[i] = cond(id)
	}
	return out
}

func TestConditionalDecisionFolding(t *testing.T) {
	e := errors.New("boom")
	tests := []struct {
		name     string
		d        ConditionalDecision
		want     string
		possible []Decision
		failure  Decision
	}{
		{"zero value", ConditionalDecision{}, "Deny", []Decision{DecisionDeny}, DecisionDeny},
		{"allow", ConditionalAllow("ok"), `Allow(reason="ok")`, []Decision{DecisionAllow}, DecisionNoOpinion},
		{"no opinion with error", UnconditionalDecision(DecisionNoOpinion, `a "q"`, e), `NoOpinion(reason="a \"q\"", err="boom")`, []Decision{DecisionNoOpinion}, DecisionNoOpinion},
		{"unknown decision", UnconditionalDecision(Decision(7), "r", e), `Deny(reason="r", err="[boom, unknown unconditional decision type: 7]")`, []Decision{DecisionDeny}, DecisionDeny},
		{"unknown decision without error", UnconditionalDecision(Decision(7), "", nil), `Deny(err="unknown unconditional decision type: 7")`, []Decision{DecisionDeny}, DecisionDeny},
		{"map", ConditionsMapDecision(conds("d"), conds("n1", "n2"), conds("a")), "ConditionsMap(denies=1, noopinions=2, allows=1)",
			[]Decision{DecisionDeny, DecisionAllow, DecisionNoOpinion}, DecisionDeny},
		{"allow only map", ConditionsMapDecision(nil, nil, conds("a")), "ConditionsMap(allows=1)",
			[]Decision{DecisionAllow, DecisionNoOpinion}, DecisionNoOpinion},
		{"empty map", ConditionsMapDecision(nil, nil, nil),
			`NoOpinion(reason="no conditions", err="at least one condition must be passed to ConditionsAwareDecisionConditionsMap(), got none")`,
			[]Decision{DecisionNoOpinion}, DecisionNoOpinion},
		{"no opinion conditions only", ConditionsMapDecision(nil, conds("n"), nil),
			`NoOpinion(reason="only NoOpinion conditions always evaluate to NoOpinion")`, []Decision{DecisionNoOpinion}, DecisionNoOpinion},
		{"duplicate id with deny", ConditionsMapDecision(conds("x"), nil, conds("x")),
			`Deny(reason="failed closed", err="duplicate condition ID \"example.com/x\"")`, []Decision{DecisionDeny}, DecisionDeny},
		{"bad id without deny", ConditionsMapDecision(nil, nil, []Condition{{ID: "noprefix"}}),
			`NoOpinion(reason="failed closed", err="invalid condition: id: Invalid value: \"noprefix\": must be a domain-prefixed key (such as \"acme.io/foo\")")`,
			[]Decision{DecisionNoOpinion}, DecisionNoOpinion},
		{"condition too long", ConditionsMapDecision(nil, nil, []Condition{{ID: "a.io/b", Condition: strings.Repeat("x", 10241)}}),
			`NoOpinion(reason="failed closed", err="condition \"a.io/b\" length 10241 is larger than the maximum allowed 10240 bytes")`,
			[]Decision{DecisionNoOpinion}, DecisionNoOpinion},
		{"description too long", ConditionsMapDecision(conds("d"), nil, []Condition{{ID: "a.io/b", Description: strings.Repeat("x", 1025)}}),
			`Deny(reason="failed closed", err="condition \"a.io/b\" description length 1025 is larger than the maximum allowed 1024 bytes")`,
			[]Decision{DecisionDeny}, DecisionDeny},
		{"too many", ConditionsMapDecision(nil, nil, make([]Condition, 129)),
			`NoOpinion(reason="failed closed", err="too many conditions: 129 exceeds maximum of 128")`, []Decision{DecisionNoOpinion}, DecisionNoOpinion},
		{"empty union", ConditionalUnion(), "NoOpinion", []Decision{DecisionNoOpinion}, DecisionNoOpinion},
		{"union of no opinions", ConditionalUnion(
			ConditionalMember{"a", UnconditionalDecision(DecisionNoOpinion, "ra", e)},
			ConditionalMember{"b", UnconditionalDecision(DecisionNoOpinion, "", nil)},
			ConditionalMember{"c", UnconditionalDecision(DecisionNoOpinion, "rc", nil)}),
			`NoOpinion(reason="a: {ra}, c: {rc}", err="a: boom")`, []Decision{DecisionNoOpinion}, DecisionNoOpinion},
		{"union stops at allow", ConditionalUnion(
			ConditionalMember{"a", UnconditionalDecision(DecisionNoOpinion, "ra", nil)},
			ConditionalMember{"b", ConditionalAllow("rb")},
			ConditionalMember{"c", UnconditionalDecision(DecisionDeny, "rc", nil)}),
			`Allow(reason="b: {rb}")`, []Decision{DecisionAllow}, DecisionNoOpinion},
		{"conditional union", ConditionalUnion(
			ConditionalMember{"a", ConditionsMapDecision(conds("d"), nil, nil)},
			ConditionalMember{"b", ConditionalAllow("rb")},
			ConditionalMember{"c", ConditionalAllow("rc")}),
			`Union[a: ConditionsMap(denies=1), b: Allow(reason="rb")]`, []Decision{DecisionDeny, DecisionAllow}, DecisionDeny},
		{"nested union folding to its only outcome", ConditionalUnion(
			ConditionalMember{"a", ConditionalUnion(
				ConditionalMember{"x", ConditionsMapDecision(nil, nil, conds("a"))},
				ConditionalMember{"y", ConditionalAllow("ry")})},
			ConditionalMember{"b", ConditionalAllow("rb")}),
			`Allow(reason="a: {y: {ry}}")`, []Decision{DecisionAllow}, DecisionNoOpinion},
		{"union with bad names", ConditionalUnion(
			ConditionalMember{"", ConditionsMapDecision(conds("d"), nil, nil)},
			ConditionalMember{"B", ConditionalAllow("")}),
			`Deny(reason="failed closed", err="[authorizerName must be non-empty, invalid authorizerName: [a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]]")`,
			[]Decision{DecisionDeny}, DecisionDeny}, // the two invalid-name errors read the same: the aggregate says it once
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.d.String())
			assert.Equal(t, tt.possible, tt.d.PossibleDecisions())
			assert.Equal(t, tt.failure, tt.d.FailureDecision())
			_, unconditional := tt.d.Unconditional()
			assert.Equal(t, len(tt.possible) == 1, unconditional)
		})
	}
}

// The maps and unions copy what they are given.
func TestConditionalDecisionImmutable(t *testing.T) {
	deny := conds("d")
	d := ConditionsMapDecision(deny, nil, conds("a"))
	deny[0].ID = "changed.io/x"
	got, _, _ := d.Conditions()
	assert.Equal(t, "example.com/d", got[0].ID)
	got[0].ID = "again.io/x"
	got, _, _ = d.Conditions()
	assert.Equal(t, "example.com/d", got[0].ID)
}

// script evaluates conditions by their ID's name part: t true, f false,
// e error, anything else unevaluatable.
func script(ctx context.Context, c Condition) ConditionResult {
	switch c.ID[strings.IndexByte(c.ID, '/')+1:][0] {
	case 't':
		return ConditionBool(true)
	case 'f':
		return ConditionBool(false)
	case 'e':
		return ConditionError(errors.New("bad " + c.ID))
	case 'n':
		return ConditionError(nil)
	}
	return ConditionUnevaluatable()
}

func TestPartiallyEvaluate(t *testing.T) {
	described := Condition{ID: "example.com/t1", Description: `says "no"`}
	tests := []struct {
		name string
		d    ConditionalDecision
		want string
	}{
		{"deny true wins", ConditionsMapDecision([]Condition{cond("f1"), described, cond("e1")}, conds("t2"), conds("t3")),
			`Deny(reason="condition \"example.com/t1\" denied the request with description \"says \\\"no\\\"\"")`},
		{"deny errors", ConditionsMapDecision(conds("e1", "u1", "n1"), nil, conds("t3")),
			`Deny(reason="one or more conditional evaluation errors occurred", err="[condition \"example.com/e1\" with effect=Deny evaluated to an error: bad example.com/e1, condition \"example.com/n1\" with effect=Deny evaluated to an error: unspecified evaluation error]")`},
		{"deny unevaluatable stays", ConditionsMapDecision(conds("f1", "u1"), conds("t2"), conds("t3")),
			"ConditionsMap(denies=1, noopinions=1, allows=1)"},
		{"no opinion true", ConditionsMapDecision(conds("f1"), conds("t2"), conds("t3")),
			`NoOpinion(reason="condition \"example.com/t2\" evaluated to NoOpinion")`},
		{"no opinion error", ConditionsMapDecision(nil, conds("e2"), conds("t3")),
			`NoOpinion(reason="one or more conditional evaluation errors occurred", err="condition \"example.com/e2\" with effect=NoOpinion evaluated to an error: bad example.com/e2")`},
		{"no opinion unevaluatable", ConditionsMapDecision(nil, conds("u2", "f2"), conds("t3")), "ConditionsMap(noopinions=1, allows=1)"},
		{"allow true", ConditionsMapDecision(conds("f1"), conds("f2"), conds("e3", "t3")),
			`Allow(reason="condition \"example.com/t3\" allowed the request")`},
		{"allow error is no opinion", ConditionsMapDecision(nil, nil, conds("e3", "u3")),
			`NoOpinion(reason="one or more conditional evaluation errors occurred", err="condition \"example.com/e3\" with effect=Allow evaluated to an error: bad example.com/e3")`},
		{"allow unevaluatable", ConditionsMapDecision(conds("f1"), nil, conds("u3", "f3")), "ConditionsMap(allows=1)"},
		{"all false", ConditionsMapDecision(conds("f1"), conds("f2"), conds("f3")), `NoOpinion(reason="no conditions matched")`},
		{"unconditional as is", ConditionalAllow("x"), `Allow(reason="x")`},
		{"union decides at first allow", ConditionalUnion(
			ConditionalMember{"a", ConditionsMapDecision(nil, nil, conds("f1"))},
			ConditionalMember{"b", ConditionsMapDecision(nil, nil, conds("t1"))},
			ConditionalMember{"c", ConditionsMapDecision(conds("t2"), nil, nil)}),
			`Allow(reason="b: {condition \"example.com/t1\" allowed the request}")`},
		{"union keeps the tail after a conditional member", ConditionalUnion(
			ConditionalMember{"a", ConditionsMapDecision(nil, nil, conds("u1"))},
			ConditionalMember{"b", ConditionsMapDecision(conds("t1"), nil, nil)}),
			`Union[a: ConditionsMap(allows=1), b: ConditionsMap(denies=1)]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.d.PartiallyEvaluate(context.Background(), script).String())
		})
	}
}

func TestOutcome(t *testing.T) {
	d, reason, err := ConditionsMapDecision(conds("d"), nil, nil).Outcome()
	assert.Equal(t, DecisionDeny, d)
	assert.Equal(t, "failed closed", reason)
	assert.EqualError(t, err, "tried to return an unexpected conditional decision during unconditional authorization")
	d, reason, err = ConditionalAllow("ok").Outcome()
	assert.Equal(t, DecisionAllow, d)
	assert.Equal(t, "ok", reason)
	assert.NoError(t, err)
}

// conditional is a conditions-aware authorizer answering d and evaluating
// with script.
type conditional struct {
	d         ConditionalDecision
	evaluated int
}

func (c *conditional) Authorize(context.Context, *Attributes) (Decision, string, error) {
	return c.d.Outcome()
}

func (c *conditional) AuthorizeConditionally(context.Context, *Attributes) ConditionalDecision {
	return c.d
}

func (c *conditional) EvaluateConditions(ctx context.Context, d ConditionalDecision, _ *ConditionsData) (Decision, string, error) {
	c.evaluated++
	return d.PartiallyEvaluate(ctx, script).Outcome()
}

// liar evaluates every decision to the same answer.
type liar struct{ conditional }

func (l *liar) EvaluateConditions(context.Context, ConditionalDecision, *ConditionsData) (Decision, string, error) {
	return DecisionDeny, "lie", nil
}

func TestChainConditional(t *testing.T) {
	boom := errors.New("boom")
	type result struct {
		decision Decision
		reason   string
		err      string
	}
	tests := []struct {
		name    string
		version kube.Version
		chain   []Named
		want    string // AuthorizeConditionally's String
		eval    *result
	}{
		{"unconditional no opinions at 1.38", kube.V1_38, []Named{
			{"a", answer(DecisionNoOpinion, "ra", boom)},
			{"b", answer(DecisionNoOpinion, "rb", nil)},
		}, `NoOpinion(reason="a: {ra}, b: {rb}", err="a: boom")`, nil},
		{"unconditional before 1.37 is Authorize lifted", kube.V1_36, []Named{
			{"a", answer(DecisionNoOpinion, "ra", boom)},
			{"b", answer(DecisionNoOpinion, "rb", nil)},
		}, `NoOpinion(reason="ra\nrb", err="boom")`, nil},
		{"names unchecked at 1.37", kube.V1_37, []Named{
			{"RBAC", answer(DecisionAllow, "yes", nil)},
		}, `Allow(reason="RBAC: {yes}")`, nil},
		{"names checked at 1.38", kube.V1_38, []Named{
			{"RBAC", answer(DecisionAllow, "yes", nil)},
		}, `NoOpinion(reason="failed closed", err="invalid authorizerName: [a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]")`, nil},
		{"conditional then allow", kube.V1_38, []Named{
			{"w", &conditional{d: ConditionsMapDecision(conds("f1"), nil, nil)}},
			{"n", answer(DecisionNoOpinion, "rn", boom)},
			{"r", answer(DecisionAllow, "ra", nil)},
			{"never", answer(DecisionDeny, "", nil)},
		}, `Union[w: ConditionsMap(denies=1), n: NoOpinion(reason="rn", err="boom"), r: Allow(reason="ra")]`,
			&result{DecisionAllow, "ra", ""}},
		{"conditional deny decides", kube.V1_38, []Named{
			{"w", &conditional{d: ConditionsMapDecision(conds("t1"), nil, conds("t2"))}},
			{"r", answer(DecisionAllow, "ra", nil)},
		}, `Union[w: ConditionsMap(denies=1, allows=1), r: Allow(reason="ra")]`,
			&result{DecisionDeny, `condition "example.com/t1" denied the request`, ""}},
		{"nobody decides", kube.V1_38, []Named{
			{"w", &conditional{d: ConditionsMapDecision(nil, conds("e1"), conds("t2"))}},
			{"n", answer(DecisionNoOpinion, "rn", boom)},
		}, `Union[w: ConditionsMap(noopinions=1, allows=1), n: NoOpinion(reason="rn", err="boom")]`,
			&result{DecisionNoOpinion, "w: one or more conditional evaluation errors occurred\nn: rn",
				`[condition "example.com/e1" with effect=NoOpinion evaluated to an error: bad example.com/e1, boom]`}},
		{"unevaluatable fails closed", kube.V1_38, []Named{
			{"w", &conditional{d: ConditionsMapDecision(conds("u1"), nil, conds("t2"))}},
			{"r", answer(DecisionAllow, "ra", nil)},
		}, `Union[w: ConditionsMap(denies=1, allows=1), r: Allow(reason="ra")]`,
			&result{DecisionDeny, "failed closed", "tried to return an unexpected conditional decision during unconditional authorization"}},
		{"impossible evaluation fails closed", kube.V1_38, []Named{
			{"w", &liar{conditional{d: ConditionsMapDecision(nil, nil, conds("t1"))}}},
			{"r", &conditional{d: ConditionsMapDecision(conds("f2"), nil, nil)}},
		}, `Union[w: ConditionsMap(allows=1), r: ConditionsMap(denies=1)]`,
			&result{DecisionNoOpinion, "w: failed closed\nr: no conditions matched", "evaluated to decision Deny, but only [Allow NoOpinion] were possible"}},
		{"an allowing chain folds before evaluation", kube.V1_38, []Named{
			{"w", &conditional{d: ConditionsMapDecision(nil, nil, conds("t1"))}},
			{"r", answer(DecisionAllow, "ra", nil)},
		}, `Allow(reason="r: {ra}")`, nil},
		{"impossible evaluation of the last member", kube.V1_38, []Named{
			{"w", &liar{conditional{d: ConditionsMapDecision(nil, nil, conds("t1"))}}},
		}, `Union[w: ConditionsMap(allows=1)]`,
			&result{DecisionNoOpinion, "w: failed closed", "evaluated to decision Deny, but only [Allow NoOpinion] were possible"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewChainFor(targetAt(t, tt.version), tt.chain...)
			require.NoError(t, err)
			d := c.AuthorizeConditionally(context.Background(), &Attributes{})
			assert.Equal(t, tt.want, d.String())
			if tt.eval == nil {
				return
			}
			x, reason, err := c.EvaluateConditions(context.Background(), d, &ConditionsData{})
			assert.Equal(t, tt.eval.decision, x)
			assert.Equal(t, tt.eval.reason, reason)
			if tt.eval.err == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.eval.err)
			}
		})
	}
}

func TestChainEvaluateConditionsRefuses(t *testing.T) {
	c, err := NewChainFor(targetAt(t, kube.V1_38), Named{"a", AlwaysAllow()})
	require.NoError(t, err)
	d, reason, err := c.EvaluateConditions(context.Background(), ConditionsMapDecision(conds("d"), nil, nil), &ConditionsData{})
	assert.Equal(t, DecisionDeny, d)
	assert.Equal(t, "failed closed", reason)
	assert.EqualError(t, err, "the union authorizer can only evaluate union ConditionsAwareDecisions")

	// A member the chain has no authorizer of.
	u := ConditionalUnion(ConditionalMember{"zz", ConditionsMapDecision(nil, nil, conds("t"))})
	d, reason, err = c.EvaluateConditions(context.Background(), u, &ConditionsData{})
	assert.Equal(t, DecisionNoOpinion, d)
	assert.Equal(t, "zz: failed closed", reason)
	assert.EqualError(t, err, `couldn't find authorizer with name: "zz"`)

	// A conditions-unaware authorizer asked to evaluate.
	u = ConditionalUnion(ConditionalMember{"a", ConditionsMapDecision(conds("d"), nil, conds("t"))})
	d, reason, err = c.EvaluateConditions(context.Background(), u, &ConditionsData{})
	assert.Equal(t, DecisionDeny, d)
	assert.Empty(t, reason)
	assert.ErrorIs(t, err, ErrConditionEvaluationNotSupported)
}

// The decision metrics count a conditional answer as "conditional" and an
// evaluation's decision as Authorize's, as kube-apiserver's instrumented
// authorizer.
func TestDecisionMetricsConditional(t *testing.T) {
	mem := metrics.NewMemory()
	az := WithDecisionMetrics(mem, "Webhook", "wh", &conditional{d: ConditionsMapDecision(nil, nil, conds("t1"))}).(ConditionsAuthorizer)
	d := az.AuthorizeConditionally(context.Background(), &Attributes{})
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationDecisions, "Webhook", "wh", "conditional"))
	x, _, err := az.EvaluateConditions(context.Background(), d, &ConditionsData{})
	require.NoError(t, err)
	assert.Equal(t, DecisionAllow, x)
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationDecisions, "Webhook", "wh", "allowed"))
	assert.Zero(t, counter(mem, metrics.AuthorizationDecisions, "Webhook", "wh", "denied"))
}
