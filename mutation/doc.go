// Package mutation will hold MutatingAdmissionPolicy as a library (issue 10).
// This first slice gives the schemas its ApplyConfiguration mutations merge
// with: [Schemas] resolves a kind to a structured-merge-diff schema, for the
// built-in types of Kubernetes 1.37 (embedded, decoded per kind on first use)
// and for custom resources added from their CustomResourceDefinitions, the
// way kube-apiserver's type converters do.
//
// # Custom resources
//
// [Schemas.AddCRD] converts each version's schema as kube-apiserver does: it
// publishes the structural schema as OpenAPI v3 (metadata a reference to
// ObjectMeta, apiVersion and kind strings, the same three properties added to
// every x-kubernetes-embedded-resource) and converts that with kube-openapi's
// schemaconv. So lists without x-kubernetes-list-type are atomic, list-type
// map and set are associative (keyed by x-kubernetes-list-map-keys, with
// the keys' defaults), x-kubernetes-map-type sets an object's relationship,
// x-kubernetes-int-or-string and x-kubernetes-preserve-unknown-fields nodes
// without a type take any value, and unknown fields under
// x-kubernetes-preserve-unknown-fields (the whole subtree) or in objects
// without properties are deduced: granular maps, atomic lists. The
// conversion is written here rather than imported: schemaconv would compile
// 176 more packages into the library (kube-openapi's spec, go-openapi,
// gnostic-models, protobuf, net/http).
//
// # Deduced schemas
//
// [Deduced] is the schema kube-apiserver's deduced type converter uses: every
// map granular, every list atomic. Merging with it replaces a whole
// listType=map list (all containers) where the real schema merges one entry
// by its key, which is why it is only used when a caller asks for it.
//
// # Decoding and validation
//
// [Decode] reads MutatingAdmissionPolicies and MutatingAdmissionPolicyBindings
// from YAML or JSON manifests (several documents, v1 Lists and typed lists),
// in admissionregistration.k8s.io/v1, v1beta1 or v1alpha1 (the three have
// the same fields; each is returned as v1), strictly, with kube-apiserver's
// defaults of its version: failurePolicy Fail, matchPolicy Equivalent, empty
// selectors and rule scope "*" in all three ([SetDefaultsPolicy],
// [SetDefaultsBinding]), and in v1alpha1 only a paramRef's
// parameterNotFoundAction Deny. The namespace of these cluster-scoped kinds
// is dropped, as kube-apiserver's REST API drops it before validating.
// Errors name the document (and List item); documents of other kinds are
// [KindError]s, which a caller reading mixed manifests may ignore.
//
// A [Validator] validates both kinds as kube-apiserver's REST API does on
// create and on update (pkg/apis/admissionregistration/validation of
// Kubernetes 1.36.3, which 1.37's API server runs): metadata; failurePolicy,
// paramKind and matchConstraints (at least one resource rule; no DELETE, as
// for a binding's matchResources); match conditions (at most 64, qualified
// unique names, compiled without variables; skipped on an update that
// changes neither them nor the paramKind); variables (CEL identifiers,
// each declared for the later ones); at least one mutation, each with its
// patchType's body and only it; reinvocationPolicy, which has no default.
// Errors have kube-apiserver's types, field paths, values and details, in
// its order; conformance/kubernetes compares them over a generated corpus
// of every rule and on real-world policies. On an update, an expression the
// old policy already had compiles in the environment of stored expressions:
// a match condition among the old match conditions, and a mutation's
// expression — whether ApplyConfiguration or JSONPatch, as kube-apiserver
// looks both up — among the old ApplyConfiguration expressions; variables
// always compile as new expressions. The REST API also requires, once the
// object is valid, that the requesting user may read the paramKind's
// resource (or the binding's params), and reserves names ending with
// .static.k8s.io for static manifests (admissionmanifest.Validator): neither
// is done here. admissionmanifest's loader of static MutatingAdmissionPolicy
// manifests runs this validation, as kube-apiserver's loader runs its own.
//
// # Differences from kube-apiserver
//
// kube-apiserver reads the schemas of a running cluster from its own
// /openapi/v3, polled every 5 seconds; here they are the published 1.37
// schemas of client-go v0.37.2's applyconfigurations plus the CRDs the caller
// adds, so a kind is known as soon as AddCRD returns.
//
// [Decode] refuses an item of a typed list (a MutatingAdmissionPolicyList)
// whose own apiVersion and kind name another type; kube-apiserver's decoder
// ignores them and reads the item as the list's type.
package mutation
