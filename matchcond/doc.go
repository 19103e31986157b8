// Package matchcond compiles and evaluates the CEL match conditions of
// authorization webhooks and of admission webhooks and policies, with
// kube-apiserver 1.37's environments, validation errors, evaluation errors,
// cost limits and metrics.
//
// # Authorization match conditions
//
// NewAuthorizationCompiler builds the environment once; Compile checks one
// webhook's matchConditions with kube-apiserver's rules and field paths and
// returns an AuthorizationMatcher; Match evaluates it against a
// SubjectAccessReviewSpec, Explain also says which condition decided.
// WithOptions binds the metrics (apiserver_authorization_match_condition_*)
// to a matcher once, for every call.
//
// The variable `request` is the v1 SubjectAccessReviewSpec, declared with
// kube-apiserver's type names. kube-apiserver copies the spec into an
// unstructured map for every request and every webhook; gatehouse reads the
// caller's struct directly, and reproduces every effect of the copy that an
// expression can observe:
//   - user, groups, uid and extra are always present (has() is true even
//     when they are empty), a nil extra is {};
//   - resourceAttributes and nonResourceAttributes are present only when set
//     ("no such key: resourceAttributes" otherwise);
//   - fieldSelector and labelSelector are present only if some condition of
//     the same webhook names a field fieldSelector or labelSelector (in a
//     select or an optional select), only if the selector has a raw selector
//     or requirements, and with a raw selector only the raw selector;
//   - an object used as a whole (type(request), dyn(request).size(),
//     request.resourceAttributes == ..., [request]) is a map with exactly
//     kube-apiserver's keys.
//
// # Cost
//
// Each condition may cost at most 1,000,000 per evaluation, as in
// kube-apiserver. A condition whose cost cel-go's estimator bounds within
// that limit for requests of ordinary size (every string, list and map of at
// most 4096 elements) is evaluated without tracking its cost, which is where
// most of kube-apiserver's evaluation time goes; any other condition or
// request is tracked exactly as kube-apiserver tracks it. Both give the same
// results and errors. Explain always tracks, and reports each condition's
// cost.
//
// # Differences from kube-apiserver
//
//   - Context cancellation. kube-apiserver passes the request context to
//     cel-go but compiles its authorization programs without an interrupt
//     check, so a cancelled request still evaluates its match conditions to
//     the end. gatehouse checks the context every 100 comprehension
//     iterations, as kube-apiserver's admission match conditions do, and a
//     comprehension of a cancelled call fails with "operation interrupted:
//     context canceled" (errors.Is(err, context.Canceled)). Conditions
//     without comprehensions behave as in kube-apiserver.
//   - A result of the wrong type. kube-apiserver formats the error of a
//     condition whose value is not a bool with %W, a verb that does not
//     exist ("... eval result type should be bool but got %!W(...)");
//     gatehouse writes the type ("... but got int"). The type check at
//     compile time makes this unreachable in practice.
//   - A nil spec, which kube-apiserver never passes, is an error rather than
//     a panic.
//   - The bad value of an internal compile error (a program that cel-go
//     cannot plan, such as a constant regex that does not compile in find())
//     is an error with kube-apiserver's text; kube-apiserver's is of its own
//     type, k8s.io/apiserver/pkg/cel.Error.
//   - Compile returns no matcher when there are errors; kube-apiserver
//     returns one of the valid conditions, which it never uses.
package matchcond
