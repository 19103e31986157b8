package matchcond_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// A webhook authorizer compiles its matchConditions once and evaluates them
// before every call: this one is skipped for requests outside kube-system and
// for kube-system's own service accounts.
func ExampleAuthorizationCompiler_Compile() {
	compiler, err := matchcond.NewAuthorizationCompiler()
	if err != nil {
		panic(err)
	}
	matcher, errs := compiler.Compile([]string{
		"has(request.resourceAttributes)",
		"request.resourceAttributes.namespace == 'kube-system'",
		"!('system:serviceaccounts:kube-system' in request.groups)",
	}, field.NewPath("authorizers").Index(0).Child("matchConditions"))
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	for _, spec := range []authorizationv1.SubjectAccessReviewSpec{
		{User: "jane", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: "get", Resource: "secrets"}},
		{User: "jane", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "secrets"}},
		{User: "jane", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}},
	} {
		matched, err := matcher.Match(context.Background(), &spec)
		fmt.Println(matched, err)
	}
	// Output:
	// true <nil>
	// false <nil>
	// false <nil>
}

// Compile reports errors as kube-apiserver's configuration validation does.
func ExampleAuthorizationCompiler_Compile_errors() {
	compiler, err := matchcond.NewAuthorizationCompiler()
	if err != nil {
		panic(err)
	}
	_, errs := compiler.Compile([]string{"request.user", " ", "request.user"}, field.NewPath("authorizers").Index(0).Child("matchConditions"))
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// authorizers[0].matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string
	// authorizers[0].matchConditions[1].expression: Required value
	// authorizers[0].matchConditions[2].expression: Duplicate value: "request.user"
}

// Match returns kube-apiserver's errors; Explain also tells which condition
// decided.
func ExampleAuthorizationMatcher_Explain() {
	compiler, err := matchcond.NewAuthorizationCompiler()
	if err != nil {
		panic(err)
	}
	matcher, _ := compiler.Compile([]string{
		"request.resourceAttributes.verb != 'watch'",
		"request.user != 'system:anonymous'",
	}, field.NewPath("matchConditions"))
	sink := metrics.NewMemory()
	matcher = matcher.WithOptions(matchcond.AuthorizationMatcherOptions{AuthorizerName: "audit", Metrics: sink})

	spec := &authorizationv1.SubjectAccessReviewSpec{User: "system:anonymous", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/", Verb: "get"}}
	matched, trace, err := matcher.Explain(context.Background(), spec)
	fmt.Println(matched, err)
	for _, c := range trace {
		fmt.Printf("condition %d: matched=%v err=%v\n", c.Index, c.Matched, c.Err)
	}
	fmt.Println(sink.Value(metrics.AuthorizationMatchConditionExclusions, "Webhook", "audit"))
	// Output:
	// false <nil>
	// condition 0: matched=false err=cel evaluation error: expression 'request.resourceAttributes.verb != 'watch'' resulted in error: no such key: resourceAttributes
	// condition 1: matched=false err=<nil>
	// 1
}

// A policy's match conditions, with a variable and an authorization check.
func ExampleAdmissionCompiler_Compile() {
	compiler, err := matchcond.NewAdmissionCompiler()
	if err != nil {
		panic(err)
	}
	matcher, err := compiler.Compile([]admissionregistrationv1.MatchCondition{
		{Name: "not-dry-run", Expression: "!request.dryRun"},
		{Name: "labelled", Expression: "variables.app != ''"},
	}, matchcond.AdmissionOptions{
		Policy:    true,
		Variables: []admissionregistrationv1.Variable{{Name: "app", Expression: "object.metadata.?labels.app.orValue('')"}},
		Name:      "require-owner",
		Type:      "validate",
	})
	if err != nil {
		panic(err)
	}
	dryRun := false
	request := &admissionv1.AdmissionRequest{Operation: admissionv1.Create, DryRun: &dryRun}
	for _, labels := range []map[string]any{{"app": "web"}, {}} {
		object := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x", "labels": labels}}}
		r := matcher.Match(context.Background(), &matchcond.AdmissionAttributes{Request: request, Object: object})
		fmt.Printf("matches=%v excluded by %q, error %v\n", r.Matches, r.FailedConditionName, r.Error)
	}
	// Output:
	// matches=true excluded by "", error <nil>
	// matches=false excluded by "labelled", error <nil>
}

// Validate reports the errors kube-apiserver's API validation reports.
func ExampleAdmissionCompiler_Validate() {
	compiler, err := matchcond.NewAdmissionCompiler()
	if err != nil {
		panic(err)
	}
	errs := compiler.Validate([]admissionregistrationv1.MatchCondition{
		{Name: "exclude-leases", Expression: "request.resource.resource != 'leases'"},
		{Name: "exclude-leases", Expression: "object.metadata.name"},
	}, matchcond.AdmissionValidateOptions{}, field.NewPath("webhooks").Index(0).Child("matchConditions"))
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// webhooks[0].matchConditions[1].expression: Invalid value: "object.metadata.name": must evaluate to bool but got dyn
	// webhooks[0].matchConditions[1].name: Duplicate value: "exclude-leases"
}
