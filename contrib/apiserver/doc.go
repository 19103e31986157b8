// Package apiserver connects gatehouse's authorizers with k8s.io/apiserver
// v0.37's authorizer interfaces, for servers built on k8s.io/apiserver's
// generic server.
//
//   - ToKube turns a gatehouse authorizer.Authorizer into a
//     k8s.io/apiserver authorizer.Authorizer, to put in a generic server's
//     Config.Authorization.Authorizer.
//
//   - FromKube turns a k8s.io/apiserver authorizer (RBAC, Node, a server's
//     own) into a gatehouse one, to put in a chain built from an
//     AuthorizationConfiguration (authorizer.Options.Authorizers).
//
//   - FromKubeAttributes and ToKubeAttributes convert the attributes of a
//     request, field and label selectors included.
//
//   - NewReloadingAuthorizer builds, in one call, the chain of an
//     --authorization-config file that reloads itself when the file
//     changes, as kube-apiserver assembles it (the assembly lives in
//     k8s.io/kubernetes, out of reach of other servers), with the server's
//     own authorizers for the types the file names.
//
//   - NewAdmissionPlugin turns a gatehouse admission chain (package
//     admission: MutatingAdmissionPolicies, then ValidatingAdmissionPolicies)
//     into a k8s.io/apiserver admission plugin (MutationInterface,
//     ValidationInterface, InitializationValidator): its Admit runs one pass
//     of the mutating policies and asks k8s.io/apiserver's chain for the
//     reinvocation, its Validate runs the validating policies; objects are
//     seen in the request's version, converted from and to the server's
//     internal one with the request's ObjectInterfaces, the mutated object
//     is written back into the request's, warnings go to the request's
//     recorder and audit annotations to its attributes. SetChain swaps the
//     chain while serving.
//
//   - NewReloadingAdmissionPlugin is that plugin over the static manifests
//     directories of an AdmissionConfiguration file (KEP-5793), following
//     them as kube-apiserver does (admission.Reloader): a generic server
//     enforces manifest-based admission with gatehouse's engines.
//     examples/genericapiserver serves an API of its own (widgets) through
//     it: the mutating policy of its directory colors widgets, the validating
//     one denies big ones with kube-apiserver's 422.
//
// # Conditions (KEP-5681)
//
// k8s.io/apiserver v0.37's Authorizer also has ConditionsAwareAuthorize and
// EvaluateConditions. gatehouse's authorizers are not conditions-aware, so,
// as that interface's documentation asks, ConditionsAwareAuthorize returns
// authorizer.ConditionsAwareDecisionFromParts of what Authorize returns, and
// EvaluateConditions fails closed: DecisionDeny, "" and
// ErrorConditionEvaluationNotSupported. FromKube calls the unconditional
// Authorize of the authorizer it wraps.
//
// # Attributes
//
// Attributes convert without loss in both directions: user (name, UID,
// groups, extra), verb, resource or non-resource request, namespace, group,
// version, resource, subresource, name, path, and every requirement of the
// field and label selectors, in order. From k8s.io/apiserver, the
// requirements are kept even when the selector's parsing also returned an
// error, as k8s.io/apiserver's webhook authorizer keeps them (selectors only
// narrow a request, so a partial selector never allows more); the error
// itself is not carried, gatehouse's attributes have no place for it. To
// k8s.io/apiserver, every requirement is kept as given, and those that
// k8s.io/apimachinery's label parser would reject (an invalid key or value,
// a wrong number of values) are also reported as the label selector's
// parsing error, as k8s.io/apiserver reports a selector it could not parse.
// Attributes that FromKube gives a k8s.io/apiserver authorizer reach a
// gatehouse authorizer that ToKube wraps unconverted (a gatehouse chain
// inside a k8s.io/apiserver one inside a gatehouse one, for instance).
//
// Slices and maps (groups, extra, values) are shared, not copied: the
// authorizers must treat attributes as read-only, as both libraries require.
//
// # Cost
//
// ToKube converts k8s.io/apiserver's attributes into gatehouse attributes
// taken from a pool and reused once the wrapped authorizer has returned, so
// the authorizer it wraps must not retain them (none of gatehouse's does).
// The adapter then adds about 30 ns and no allocation to a decision of a
// chain, 45 ns to a cached webhook decision (BenchmarkToKube). A request
// with a label selector pays one more allocation per requirement with
// values: k8s.io/apimachinery gives a requirement's values only as a copy
// (ValuesUnsorted). FromKube adds nothing but an interface conversion.
//
// # Differences from kube-apiserver
//
//   - Nil attributes (no request at all) reach the wrapped authorizer as
//     attributes without user, and a nil authorizer denies with an error;
//     k8s.io/apiserver's authorizers crash on either.
//   - The chain of NewReloadingAuthorizer is gatehouse's reloading chain, with
//     the differences that package authorizer documents (it also follows the
//     webhooks' kubeconfig and certificate files, polls instead of watching,
//     logs nothing).
package apiserver
