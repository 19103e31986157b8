// Package policycheck finds, before any request, the failures that
// kube-apiserver meets only at admission time in MutatingAdmissionPolicies,
// ValidatingAdmissionPolicies and their bindings: kube-apiserver accepts
// such objects, and a policy with failurePolicy Fail then denies every
// request it fails on. Package mutation's and package validatingpolicy's
// Check describe their policies to Check here, which returns [Finding]s.
//
// # Findings
//
//   - unknown-resource (warning): an API group, version or resource of a
//     rule (matchConstraints, a binding's matchResources, their exclusions)
//     that no resource of the Kubernetes version checked for (Options.Kube:
//     with every API enabled, the table of internal/servedresources for
//     that version, generated from its k8s.io/kubernetes' discovery
//     documents) nor a CRD given has; the rule matches nothing. The nearest
//     name is suggested.
//   - unbound-policy, binding-of-missing-policy, missing-params (warnings):
//     a policy no binding given binds; a binding of a policy not given; a
//     binding of a policy with a paramKind that has no paramRef, or whose
//     paramRef names no object given (only when params were given).
//   - unguarded-field (warning): a selection of a field, or of a constant
//     key of a map, from object, oldObject or params (through variables
//     that are plain paths, comprehension and bind variables too) that the
//     kind's schema does not guarantee, with no has(), `in` or optional
//     (?.) guard, nor an x.?a.?b.hasValue() test, in the same expression
//     or in a match condition: on an object without it, the expression
//     fails with "no such key". Every expression kind is read: match
//     conditions, variables, validations, messageExpressions, audit
//     annotations, mutations.
//   - no-such-field: a selection of a field that none of the matched kinds
//     has (a closed schema: a Go type, a structural schema without
//     x-kubernetes-preserve-unknown-fields). An error when kube-apiserver
//     fails on every matching request: the policy's failurePolicy is Fail,
//     it has no match condition, its rules name no wildcard resource, the
//     selection is evaluated on every evaluation of the expression (not
//     under &&, ||, ?:, a comprehension or in a variable; not in a
//     messageExpression), every selection before it is of a field always
//     present, and it is not read from oldObject; otherwise a warning.
//     conformance's TestCheckErrorsFailInKubeAPIServer shows kube-apiserver's
//     dispatchers failing on such policies.
//     A has() test of a field no matched kind has is always false, so what
//     it guards never applies: a warning of the same rule.
//   - null-object (warning): a read of oldObject's fields in a policy whose
//     rules match CREATE (oldObject is null), or of object's in a
//     validating policy matching DELETE, with no comparison of it with
//     null nor a test of request.operation.
//   - unknown-param-kind (warning): a paramKind that no kind served nor CRD
//     given is: unless the cluster serves it, every matching request fails.
//   - atomic-write, no-such-field in mutations (package mutation): an
//     ApplyConfiguration whose Object initializers write into a list, map or
//     struct the kind's schema declares atomic, or set a field it does not
//     declare, or (wrong-type) set a constant of another type than the
//     field's; errors under the same conditions as above (the initializers
//     built with no choice), shown failing in kube-apiserver's dispatcher.
//   - no-such-field, wrong-type in JSON patches (package mutation): an add
//     or replace with a constant path to a field a built-in kind does not
//     have, or a constant value of the wrong type for it: kube-apiserver
//     decodes the patched object strictly into its Go type and fails with an
//     internal error, whatever the failure policy. Errors when the patch is
//     a list of such operations (no test operation, which would drop it)
//     and the mutation runs on every matching request.
//   - cost-near-limit (warning): an expression (not a mutation) with a
//     comprehension whose worst-case estimated cost (kube-apiserver's cost
//     estimator, internal/cel) reaches 90% of the per-call limit of
//     1,000,000 when the lists its comprehensions iterate over hold N
//     items, N at most 256 (found by bisection, and given), other values
//     (strings) 128 bytes: nested loops over an object's lists. A single
//     loop reaches the limit only with tens of thousands of items and is
//     not reported. The sizes are the same for every list, whatever its
//     schema says (maxItems is not read).
//   - not-idempotent (warning, package mutation): a mutation of a
//     reinvocationPolicy IfNeeded policy without params that, applied again
//     to its own output on a sample object built from the schema (its
//     always-present fields), changes it again (the dispatcher's
//     idempotence check of gatehouse mutate --check-idempotent).
//
// # Schemas
//
// A built-in kind's objects are read as kube-apiserver hands them to
// expressions, its Go type through runtime.DefaultUnstructuredConverter: a
// field is present unless it is omitempty (structs are never empty) or
// omitzero, or a pointer, or kube-apiserver's defaults set it (see below).
// A custom resource's field is present when its schema requires it. apiVersion, kind, metadata.name and
// metadata.namespace are taken as present.
//
// # What the check cannot know
//
//   - Defaults, in part: kube-apiserver defaults built-in objects before
//     admission. The values its defaulting functions set on a sparse object
//     of each kind (a Deployment's spec.replicas, a container's
//     imagePullPolicy: defaulted_fields.tsv, generated from k8s.io/kubernetes
//     v1.37.2) are taken as present; defaulted objects (a volume's emptyDir,
//     which depends on the volume's other fields), defaults that depend on
//     other values, and the defaults of CRD schemas are not, and are
//     reported as possibly absent.
//   - Validation: a validating policy sees objects kube-apiserver has
//     validated, so the fields validation requires (a container's image)
//     are there; the check reports them as possibly absent.
//   - The cluster: the resources it serves (an API version switched off,
//     aggregated APIs, CRDs not given), the params and policies it holds;
//     findings about them are warnings.
//   - The object's content: a guard written differently (a size() test, a
//     guard in another validation) is not recognised (an expression that
//     compares object.kind is taken to choose its reads by kind: the kinds
//     without a field are not reported there), and a has() anywhere in the expression is taken as
//     guarding the path, even where it does not; map keys and list items
//     are never guaranteed.
//   - Short-circuits: a field that never exists read under a logical
//     operator may never be evaluated; such findings are warnings.
//   - Null objects are found only through the operations of the policy's
//     own rules and a comparison with null or a read of request.operation
//     in the expression or a match condition.
//   - Types: an expression's types are not checked here (kube-apiserver's
//     type checker, validatingpolicy.TypeCheck, does it for validations).
package policycheck
