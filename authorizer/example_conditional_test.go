package authorizer_test

import (
	"context"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// ownerOnly answers conditionally: deletes are allowed if the object's
// owner label names the user, which only admission can tell.
type ownerOnly struct{}

func (ownerOnly) Authorize(ctx context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
	return ownerOnly{}.AuthorizeConditionally(ctx, a).Outcome()
}

func (ownerOnly) AuthorizeConditionally(_ context.Context, a *authorizer.Attributes) authorizer.ConditionalDecision {
	if a.Verb != "delete" {
		return authorizer.UnconditionalDecision(authorizer.DecisionNoOpinion, "", nil)
	}
	return authorizer.ConditionsMapDecision(nil, nil, []authorizer.Condition{{
		ID: "example.com/owner", Condition: "oldObject.metadata.labels.owner == request.userInfo.username", Description: "owners may delete",
	}})
}

func (ownerOnly) EvaluateConditions(ctx context.Context, d authorizer.ConditionalDecision, data *authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return d.PartiallyEvaluate(ctx, func(_ context.Context, c authorizer.Condition) authorizer.ConditionResult {
		if c.ID != "example.com/owner" {
			return authorizer.ConditionUnevaluatable()
		}
		// A real evaluator would run c.Condition against data.
		return authorizer.ConditionBool(data.User.Name == "jane")
	}).Outcome()
}

// A chain answers conditionally at authorization, and the admission stage
// evaluates the conditions with the request's data.
func ExampleChain_AuthorizeConditionally() {
	target, _ := kube.TargetFor(kube.V1_38)
	chain, err := authorizer.NewChainFor(target,
		authorizer.Named{Name: "owners", Authorizer: ownerOnly{}},
		authorizer.Named{Name: "deny", Authorizer: authorizer.AlwaysDeny()},
	)
	if err != nil {
		panic(err)
	}
	d := chain.AuthorizeConditionally(context.Background(), &authorizer.Attributes{
		User: &authorizer.User{Name: "jane"}, Verb: "delete", ResourceRequest: true, Resource: "pods",
	})
	fmt.Println(d, d.PossibleDecisions())
	for _, user := range []string{"jane", "joe"} {
		x, reason, err := chain.EvaluateConditions(context.Background(), d, &authorizer.ConditionsData{Operation: "DELETE", User: authorizer.User{Name: user}})
		fmt.Printf("%s: %s %q %v\n", user, x, reason, err)
	}
	// Output:
	// Union[owners: ConditionsMap(allows=1), deny: NoOpinion(reason="Everything is forbidden.")] [Allow NoOpinion]
	// jane: Allow "condition \"example.com/owner\" allowed the request with description \"owners may delete\"" <nil>
	// joe: NoOpinion "owners: no conditions matched\ndeny: Everything is forbidden." <nil>
}
