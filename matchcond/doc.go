// Package matchcond compiles and evaluates the CEL match conditions of
// authorization webhooks and of admission webhooks and policies, with
// kube-apiserver 1.37's environments, validation errors, evaluation errors,
// cost limits and metrics.
//
// # Authorization match conditions
//
// NewAuthorizationCompiler builds the environment once (see Compilation for
// the libraries it builds later); Compile checks one
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
// # Admission match conditions
//
// NewAdmissionCompiler builds the admission environment once (see
// Compilation); Compile compiles the matchConditions of one webhook or policy
// (and a policy's variables) into an AdmissionMatcher, deferring compilation
// errors to evaluation as kube-apiserver does; Validate reports them with the
// API's field paths; Match evaluates with the failure policy and metrics of
// kube-apiserver's matcher. The variables are object and oldObject (an
// *unstructured.Unstructured or a typed object), request (the typed
// AdmissionRequest), namespaceObject (always null in match conditions),
// params (policies with a paramKind), variables (policies: each computed at
// most once per call, its cost charged to the condition that uses it),
// authorizer and authorizer.requestResource (backed by an Authorizer). All
// the conditions of one call share a cost budget of 2,500,000.
//
// Typed values (the request, typed objects, params) are read field by field
// as the unstructured form that their JSON encoding would give, with
// kube-apiserver's semantics and error texts: fields with omitempty are
// absent when empty, custom JSON encodings (times, quantities) apply.
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
// Among those untracked authorization conditions, the common shapes —
// has() of a field of request, a string field of request compared (==, !=)
// with a constant or another, a string in request.groups, in a list of
// constants or among the keys of request.extra, startsWith, endsWith and
// contains, !, && and || of those, and request.groups.exists(g, ...) and
// .all(g, ...) of those over g — are compiled to Go functions over
// the SubjectAccessReviewSpec itself. Such a function answers only when
// cel-go's answer is a certain boolean; where cel-go would fail (a field of
// an absent resourceAttributes), cel-go evaluates the condition and gives
// its error. A webhook whose conditions are all of these shapes matches a
// request without CEL and without allocating.
//
// # Compilation
//
// Expressions made of the common constructs (identifiers, selections,
// calls, indexes, lists, string, int and boolean literals, the logical,
// relational and arithmetic operators, the macros) are parsed by a parser of
// this package that builds exactly the AST of cel-go's parser, in a fraction
// of its time; every other expression, and every syntax error, goes to
// cel-go's parser. The parser's AST becomes a cel.Ast without a round trip
// through protobuf messages. Type checking, cost estimation and planning are
// cel-go's, in kube-apiserver's environment; the programs share the
// environment's function bindings instead of copying them each.
//
// Expressions are checked in the environment of the standard library, the
// variables, and only the libraries whose functions they call (internal/cel's
// LibrariesOf): an environment of every library costs several times more to
// build, and to extend for each policy, than most servers use, and the
// smaller one gives the same checked AST, types, errors and costs. An
// authorization condition gets the libraries it calls; a webhook's or
// policy's admission expressions (variables and conditions) share the
// libraries they call together, so that the variables' types are known to
// the conditions. The compilers build the standard environment; each other
// set of libraries is built by the first expression that needs it, and kept.
// An expression that names an identifier other than the variables and its
// comprehension variables (a qualified function such as optional.of or
// lists.range, a type name), or calls a library's macro, is checked in the
// whole environment. Validate always uses the whole environment.
//
// # Kubernetes versions
//
// NewAuthorizationCompilerFor and NewAdmissionCompilerFor build the
// environments of a Kubernetes version (kube.Target): stored expressions
// (what kube-apiserver compiles at run time, AuthorizationConfiguration's
// conditions included) have the Lists library's includes() from 1.37;
// new expressions (REST validation, at the compatibility version one minor
// back) from 1.38; before 1.37, cel-go 0.26's behaviours (duration(int)
// type-checks and fails when evaluated; global matches(), startsWith and
// endsWith cost less). Checked against 1.35's, 1.36's and 1.37's own
// k8s.io/apiserver in conformance (TestCELMatchesKubeAPIServerPerVersion).
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
//   - A policy that declares two variables of the same name, the second
//     using the first, makes kube-apiserver recurse until its stack
//     overflows; gatehouse fails the evaluation with "composited variable
//     "x" refers to itself".
//   - A nil *unstructured.Unstructured object makes kube-apiserver panic;
//     gatehouse treats it as null.
//   - The variables of a policy are iterated (dyn(variables).all(...)) in
//     declaration order; kube-apiserver's order is random.
//   - The Authorizer's user is the request's UserInfo; for a request without
//     a user kube-apiserver passes no user, gatehouse an empty one.
//   - Compile (authorization) returns no matcher when there are errors; kube-apiserver
//     returns one of the valid conditions, which it never uses.
package matchcond
