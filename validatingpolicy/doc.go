// Package validatingpolicy is kube-apiserver 1.37's ValidatingAdmissionPolicy
// (KEP-3488) as a library: policies compiled once ([Compiler]), requests
// validated through policies and bindings ([Dispatcher]) with the
// decisions, denial, warnings and audit annotations kube-apiserver's plugin
// gives, and a [Trace] of why on request ([Dispatcher.Explain]).
//
// # Compilation
//
// A policy's expressions compile in kube-apiserver's environment of stored
// expressions: variables (each typed for the later ones, evaluated lazily,
// afresh for each list of expressions), match conditions, validations (bool),
// messageExpressions (string), audit annotation values (string or null).
// object, oldObject, request and namespaceObject are always declared, params
// only with a paramKind, authorizer and authorizer.requestResource everywhere
// but in messageExpressions. An expression that does not compile fails the
// requests that evaluate it ("compilation error: compilation failed: ERROR:
// ..."), as in kube-apiserver; [Policy.CompileErrors] lists them.
//
// # Validation
//
// For each policy, in the chosen [Order], that has bindings: its
// matchConstraints are matched (rules, selectors, matchPolicy Equivalent,
// excluded resources, the exemption of admission policies and bindings for
// policies not loaded from static manifests); a matching policy whose
// paramKind the [ParamSource] does not know is a configuration error. Then
// each binding in order: its matchResources, its params (one invocation per
// param; none, and nothing evaluated, when a selector finds none and
// parameterNotFoundAction is Allow), the request's objects in the matched
// version (converted by Options.Converter), and the request's namespace,
// whose lookup error fails the request at once whatever the failure policy.
// Each invocation evaluates:
//
//  1. the match conditions (budget 2,500,000, namespaceObject null): a false
//     one skips the invocation, an error is one error decision;
//  2. the validations, sharing a budget of 10,000,000 (each expression or
//     variable at most 1,000,000): an error is an error decision, false a
//     denial with the validation's reason (Invalid when unset) and message —
//     the messageExpression's value if, trimmed, it is not empty, at most
//     5,120 bytes and on one line; else the trimmed message; else "failed
//     expression: <expression>";
//  3. every messageExpression, on what the validations left of the budget,
//     without authorizer; their errors are ignored, but running out of
//     budget turns every decision into "failed messageExpression: ...";
//  4. the audit annotations, with a fresh budget and the whole namespace
//     object (validations see it without managedFields and
//     ownerReferences): a string is trimmed and published unless empty,
//     null is left out.
//
// A budget that runs out replaces the invocation's decisions by one error
// decision. An error decision denies under failurePolicy Fail (or any value
// but Ignore) and admits under Ignore.
//
// A denial is acted on with each of the binding's validationActions in
// order: Deny denies the request, Warn adds the warning "Validation failed
// for ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>", Audit
// adds an entry to the "validation.policy.admission.k8s.io/validation_failure"
// audit annotation (a JSON list, at most 50 entries). An audit annotation's
// error denies whatever the actions. A policy's audit annotations are
// published after its bindings as "<policy>/<key>", each key's distinct
// values (cut to 10,240 bytes) joined with ", ", as kube-apiserver's
// admission attributes accept them (a key that is not a qualified name is
// dropped). Configuration errors follow the failure policy alone: Ignore
// drops them, Fail denies ("failed to configure policy: ..." or "failed to
// configure binding: ..."), another value denies with "unrecognized failure
// policy: '<value>'".
//
// The request is denied with the first denial: a Forbidden status naming
// the request's resource and object, with the message
// "ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request:
// <message>" (or "ValidatingAdmissionPolicy '<p>' denied request: ..." for a
// policy's own configuration error) and that one cause, its reason the
// decision's (Invalid when empty) and its code 403 for Forbidden, 401 for
// Unauthorized, 413 for RequestEntityTooLarge and 422 otherwise. Warnings
// and audit annotations are returned in the [Result] whether or not the
// request is denied.
//
// Built-in kinds are held as kube-apiserver holds them, as their Go types:
// the objects are converted to the Go type and back before evaluation, and
// validations see them through kube-apiserver's schemaless typed view.
//
// # Native expressions
//
// Validations, messageExpressions and audit annotations of the common
// shapes are also compiled, when the policy is, to Go closures over the
// request's unstructured objects, which evaluate them without cel-go's
// interpreter: object, oldObject, params, variables.<name> (a variable of
// these shapes), the strings of request (uid, operation, name, namespace,
// subResource, userInfo's username, uid and groups, kind's and resource's
// fields; those with omitempty absent when empty, as kube-apiserver's view
// of the AdmissionRequest has them) and comprehension variables; field
// selection, has(), indexing of maps by strings and lists by ints; constants (strings, ints,
// bools, null, lists of them); ==, != (strings, ints, bools, null), <, <=,
// >, >= (ints, strings); &&, ||, !, ?:; in (a string, int or bool in a
// list, a string in a map's keys); startsWith, endsWith, contains, size(),
// + of strings; list.all(x, p) and list.exists(x, p), nested up to four
// deep. Anything else (the rest of request, namespaceObject, authorizer,
// every other function, optionals, map literals, comprehensions over maps)
// is cel-go's, and so is every expression that reads a variable that is.
//
// params are native only when their content is what kube-apiserver's JSON
// round trip of the param object leaves unchanged (valid UTF-8, no doubles,
// no typed nils); otherwise an expression that reads them is cel-go's. A
// native variable is computed once per list of expressions, as
// kube-apiserver's lazy variables are, and each native expression that
// reads it is charged its bound.
//
// A closure answers only when its answer is certain to be cel-go's, value
// and absence of error. Wherever cel-go would fail (a missing field, a field
// of null, a function of the wrong type) and wherever a value is one it does
// not model (a double, a typed nil, which the typed view sees as null and
// cel-go's own view as empty), it reports that it does not know, and the
// expression is evaluated by cel-go, with its exact error. Unlike cel-go,
// && and || do not absorb such a failure of their left side (false && error
// is false in cel-go): the whole expression goes to cel-go, so that a closure
// that answers has taken exactly cel-go's evaluation path, each step of
// which it bounds.
//
// Costs: with its value a closure computes an upper bound of the cost
// cel-go would charge for it, from the sizes it saw (strings counted in
// bytes, which are at least their code points; the bound covers every
// version's cost model, such as cel-go 0.26's charging startsWith by the
// string searched), at least one per step, so that it also bounds
// gatehouse's evaluation step limit within 2.5 times. A closure answers
// only when its bound is within the per-call limit (1,000,000), and is
// charged its bound against the budget of its list; cel-go's expressions
// are charged their exact cost. While that running total stays within the
// budget, kube-apiserver's, which is at most it, does too, and every answer
// is kube-apiserver's. When a bound would exceed what is left of the budget,
// or cel-go finds an expression over what the bounds left of it, the list
// (validations and messageExpressions, or audit annotations) is evaluated
// again by cel-go alone, with kube-apiserver's exact costs. No cost of an
// expression is reported elsewhere (the metrics time decisions, messages do
// not carry costs); [Dispatcher.Explain] evaluates everything with cel-go.
// A comprehension is left to cel-go when the request's context is done, as
// cel-go's may notice it. The closures have no version-dependent behaviour:
// their functions and operators are the same in every supported
// Kubernetes version.
//
// FuzzNativeValidations compares them with the tracked cel-go program, in
// every supported version, on random objects in both views: same value, no
// error, cel-go's cost within the bound.
//
// # Checking policies
//
// [Check] finds, before any request, what kube-apiserver accepts in policies
// and bindings but fails on at admission time: rules that match no resource
// Kubernetes 1.37 serves (nor a CRD given), with the nearest name; policies
// without a binding, bindings of policies not given, params not given; fields
// selected with no has() or optional guard that the matched kinds' schemas do
// not guarantee, and fields they never have; costs near the limit. A
// [Checker] prepares the schemas once. Each [Finding] has a severity:
// an error when kube-apiserver fails every matching request whatever the
// object (checked against kube-apiserver's dispatchers in conformance), else
// a warning. What the check cannot know (defaults, the cluster's resources,
// guards written otherwise) is listed in internal/policycheck's
// documentation; gatehouse lint runs it on files.
//
// # Metrics
//
// apiserver_validating_admission_policy_check_total and
// apiserver_validating_admission_policy_check_duration_seconds are recorded
// as kube-apiserver records them: for each action taken on a denial (deny,
// warn, audit) and for each error admitted under failurePolicy Ignore
// (allow), labelled by policy, binding, error type and action.
//
// # Sources
//
// [NewDispatcher] takes policies and bindings as API objects (decoded with
// [Decode], REST-validated with admissionmanifest.Validator); [FromManifests]
// takes the ValidatingAdmissionPolicy directory of a static admission
// configuration loaded by admissionmanifest. [NewRequest] makes a Request
// of typed objects (or unstructured ones) in one line.
//
// # Differences from kube-apiserver
//
// kube-apiserver's order of policies, of the bindings of a policy and of the
// params a selector finds comes from Go maps and informer stores, and is
// unspecified; here policies come in the chosen Order, bindings in the order
// given, params in the ParamSource's order. The order decides which denial is
// reported, and the order of warnings and audit failures.
//
// Warnings are returned as kube-apiserver's plugin hands them to the
// request's warning recorder; the recorder's own rules (deduplication,
// truncation of long warnings in the HTTP response) belong to the server
// that writes the response.
//
// A namespace lookup that fails with an error that is not an API status
// fails the request with an internal error (500), as kube-apiserver's
// handler reports such an error.
//
// [Compiler.TypeCheck] computes the policy's
// status.typeChecking.expressionWarnings as kube-controller-manager's type
// checker does, offline: the same kinds (through the caller's REST mapper,
// or one of the built-in kinds and the given custom resources), the same
// environment (authorizer without
// authorizer.requestResource, messageExpressions of any type), the same
// field refs and texts. The CEL types of built-in kinds are derived from
// their Go types as openapi-gen derives their OpenAPI definitions
// (timestamps, bytes, int-or-string as dyn, quantities left out), not read
// from embedded OpenAPI. kube-apiserver names a kind's object type after
// the kind and the nanoseconds of its clock ("Deployment708215250.spec");
// here the nanoseconds are 0 ("Deployment0.spec"), and 1 for the params'
// kind, so the warnings are the same from one run to the next. Custom resources are typed from the
// structural schemas of the CRDs given in [CustomResources], as
// kube-apiserver publishes them; a kind with no schema is not checked
// against, as kube-apiserver skips a kind whose schema it cannot resolve.
// The kinds of apiextensions.k8s.io (CustomResourceDefinition) and
// apiregistration.k8s.io (APIService), which kube-controller-manager
// resolves but gatehouse's scheme of built-in kinds does not hold, have no
// schema here.
package validatingpolicy
