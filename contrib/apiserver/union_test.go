package apiserver

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/union"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// scripted is one authorizer's fixed answer.
type scripted struct {
	decision kauthorizer.Decision
	reason   string
	err      string
}

func (s scripted) kube() kauthorizer.Authorizer {
	return kauthorizer.AuthorizerFunc(func(context.Context, kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
		return s.decision, s.reason, errOrNil(s.err)
	})
}

func (s scripted) gatehouse() authorizer.Authorizer {
	return authorizer.Func(func(context.Context, *authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.Decision(s.decision), s.reason, errOrNil(s.err)
	})
}

func errOrNil(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

// scriptedAnswers are every combination of a decision (an unknown one
// included), a reason and an error: 36 answers.
func scriptedAnswers() []scripted {
	var out []scripted
	for _, d := range []kauthorizer.Decision{kauthorizer.DecisionAllow, kauthorizer.DecisionDeny, kauthorizer.DecisionNoOpinion, 7} {
		for _, r := range []string{"", "because", "two\nlines"} {
			for _, e := range []string{"", "boom", "bang"} {
				out = append(out, scripted{d, r, e})
			}
		}
	}
	return out
}

// chainsOf returns every sequence of up to n answers, and the empty one.
func chainsOf(answers []scripted, n int) [][]scripted {
	var chains [][]scripted
	var grow func(prefix []scripted, n int)
	grow = func(prefix []scripted, n int) {
		chains = append(chains, append([]scripted(nil), prefix...))
		if n == 0 {
			return
		}
		for _, a := range answers {
			grow(append(prefix, a), n-1)
		}
	}
	grow(nil, n)
	return chains
}

type outcome struct {
	Decision kauthorizer.Decision
	Reason   string
	Err      string
}

func outcomeOf(d kauthorizer.Decision, reason string, err error) outcome {
	return outcome{d, reason, errText(err)}
}

type awareOutcome struct {
	String, Reason, Err string
	Allow, Deny, NoOp   bool
	Evaluated           outcome
}

func awareOutcomeOf(ctx context.Context, az kauthorizer.Authorizer, d kauthorizer.ConditionsAwareDecision) awareOutcome {
	o := awareOutcome{String: d.String(), Reason: d.Reason(), Err: errText(d.Error()), Allow: d.IsAllow(), Deny: d.IsDeny(), NoOp: d.IsNoOpinion()}
	if d.IsUnion() || d.IsConditionsMap() {
		o.Evaluated = outcomeOf(az.EvaluateConditions(ctx, d, nil))
	}
	return o
}

// TestChainThroughAdaptersMatchesUnion runs every chain of up to three
// scripted k8s.io/apiserver authorizers (36 + 36² + 36³ + 1 = 47989 chains)
// through k8s.io/apiserver's union, and through gatehouse's chain of the
// same authorizers wrapped by FromKube, itself wrapped by ToKube: decision,
// reason and error text must be equal.
func TestChainThroughAdaptersMatchesUnion(t *testing.T) {
	ctx := context.Background()
	attrs := kauthorizer.AttributesRecord{User: &user.DefaultInfo{Name: "x"}, Verb: "get", Path: "/"}
	chains := chainsOf(scriptedAnswers(), 3)
	differences := 0
	for _, chain := range chains {
		var kubeNamed []union.NamedAuthorizer
		var ourNamed []authorizer.Named
		for i, s := range chain {
			name := fmt.Sprintf("authorizer-%d", i)
			kubeNamed = append(kubeNamed, union.NamedAuthorizer{AuthorizerName: name, Authorizer: s.kube()})
			ourNamed = append(ourNamed, authorizer.Named{Name: name, Authorizer: FromKube(s.kube())})
		}
		kube, err := union.New(kubeNamed...)
		require.NoError(t, err)
		ours, err := authorizer.NewChain(ourNamed...)
		require.NoError(t, err)
		want := outcomeOf(kube.Authorize(ctx, attrs))
		got := outcomeOf(ToKube(ours).Authorize(ctx, attrs))
		if want != got {
			differences++
			if differences < 10 {
				t.Errorf("chain %+v:\nk8s.io/apiserver %+v\nadapters         %+v", chain, want, got)
			}
		}
	}
	assert.Zero(t, differences)
	t.Logf("%d chains compared", len(chains))
}

// TestAdapterInUnionMatchesAuthorizerFunc puts, in k8s.io/apiserver's union,
// gatehouse authorizers wrapped by ToKube where the reference has
// k8s.io/apiserver's AuthorizerFunc (its own authorizer that is not
// conditions-aware): Authorize, ConditionsAwareAuthorize and
// EvaluateConditions of the union must give the same answers for every chain
// of up to three answers.
func TestAdapterInUnionMatchesAuthorizerFunc(t *testing.T) {
	ctx := context.Background()
	attrs := kauthorizer.AttributesRecord{User: &user.DefaultInfo{Name: "x"}, Verb: "get", Path: "/"}
	chains := chainsOf(scriptedAnswers(), 3)
	differences := 0
	for _, chain := range chains {
		var kubeNamed, ourNamed []union.NamedAuthorizer
		for i, s := range chain {
			name := fmt.Sprintf("authorizer-%d", i)
			kubeNamed = append(kubeNamed, union.NamedAuthorizer{AuthorizerName: name, Authorizer: s.kube()})
			ourNamed = append(ourNamed, union.NamedAuthorizer{AuthorizerName: name, Authorizer: ToKube(s.gatehouse())})
		}
		kube, err := union.New(kubeNamed...)
		require.NoError(t, err)
		ours, err := union.New(ourNamed...)
		require.NoError(t, err)
		wantPlain, gotPlain := outcomeOf(kube.Authorize(ctx, attrs)), outcomeOf(ours.Authorize(ctx, attrs))
		wantAware := awareOutcomeOf(ctx, kube, kube.ConditionsAwareAuthorize(ctx, attrs))
		gotAware := awareOutcomeOf(ctx, ours, ours.ConditionsAwareAuthorize(ctx, attrs))
		if wantPlain != gotPlain || wantAware != gotAware {
			differences++
			if differences < 10 {
				t.Errorf("chain %+v:\nk8s.io/apiserver %+v %+v\nadapters         %+v %+v", chain, wantPlain, wantAware, gotPlain, gotAware)
			}
		}
	}
	assert.Zero(t, differences)
	t.Logf("%d chains compared", len(chains))
}

func TestConditionsAwareMethods(t *testing.T) {
	ctx := context.Background()
	for _, s := range scriptedAnswers() {
		az := ToKube(s.gatehouse())
		ref := s.kube()
		attrs := kauthorizer.AttributesRecord{Verb: "get"}
		assert.Equal(t, awareOutcomeOf(ctx, ref, ref.ConditionsAwareAuthorize(ctx, attrs)), awareOutcomeOf(ctx, az, az.ConditionsAwareAuthorize(ctx, attrs)), "%+v", s)
		d, reason, err := az.EvaluateConditions(ctx, az.ConditionsAwareAuthorize(ctx, attrs), nil)
		assert.Equal(t, kauthorizer.DecisionDeny, d)
		assert.Empty(t, reason)
		assert.ErrorIs(t, err, kauthorizer.ErrorConditionEvaluationNotSupported)
	}
}

func TestWrappersUnwrapAndNilsDeny(t *testing.T) {
	ctx := context.Background()
	g := scripted{decision: kauthorizer.DecisionAllow, reason: "ok"}.gatehouse()
	k := scripted{decision: kauthorizer.DecisionAllow}.kube()
	assert.Equal(t, fmt.Sprintf("%p", k), fmt.Sprintf("%p", ToKube(FromKube(k))), "ToKube(FromKube(k)) is k")
	ka := ToKube(g).(*KubeAuthorizer)
	assert.Equal(t, fmt.Sprintf("%p", g), fmt.Sprintf("%p", FromKube(ka)), "FromKube(ToKube(g)) is g")
	assert.Equal(t, fmt.Sprintf("%p", g), fmt.Sprintf("%p", ka.Unwrap()))

	d, _, err := ToKube(nil).Authorize(ctx, kauthorizer.AttributesRecord{})
	assert.Equal(t, kauthorizer.DecisionDeny, d)
	assert.EqualError(t, err, "apiserver: nil authorizer")
	gd, _, err := FromKube(nil).Authorize(ctx, &authorizer.Attributes{})
	assert.Equal(t, authorizer.DecisionDeny, gd)
	assert.EqualError(t, err, "apiserver: nil authorizer")

	// Nil attributes reach the wrapped authorizer as attributes without
	// user, never as a nil that would crash it.
	seen := 0
	kubeSeesNoUser := kauthorizer.AuthorizerFunc(func(_ context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
		seen++
		assert.Nil(t, a.GetUser())
		return kauthorizer.DecisionNoOpinion, "", nil
	})
	_, _, _ = FromKube(kubeSeesNoUser).Authorize(ctx, nil)
	gatehouseSeesNoUser := authorizer.Func(func(_ context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
		seen++
		assert.Nil(t, a.User)
		return authorizer.DecisionNoOpinion, "", nil
	})
	_, _, _ = ToKube(gatehouseSeesNoUser).Authorize(ctx, nil)
	assert.Equal(t, 2, seen)
}

// TestAttributesPassThroughRoundTrips checks that a gatehouse authorizer
// inside a k8s.io/apiserver one inside a gatehouse chain gets the caller's
// attributes themselves.
func TestAttributesPassThroughRoundTrips(t *testing.T) {
	a := &authorizer.Attributes{User: &authorizer.User{Name: "jane"}, Verb: "get", Path: "/"}
	inner := authorizer.Func(func(_ context.Context, got *authorizer.Attributes) (authorizer.Decision, string, error) {
		assert.Same(t, a, got)
		return authorizer.DecisionAllow, "", nil
	})
	kubeUnion, err := union.New(union.NamedAuthorizer{AuthorizerName: "gatehouse", Authorizer: ToKube(inner)})
	require.NoError(t, err)
	d, _, err := FromKube(kubeUnion).Authorize(context.Background(), a)
	require.NoError(t, err)
	assert.Equal(t, authorizer.DecisionAllow, d)
}
