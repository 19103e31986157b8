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
// # Dispatch
//
// [NewDispatcher] compiles policies and bindings once; [Dispatcher.Admit]
// runs one admission request through them as kube-apiserver's
// MutatingAdmissionPolicy plugin does, and [Dispatcher.Explain] also returns
// a [Trace]. Only CREATE, UPDATE and CONNECT are handled. For each policy,
// in the chosen [Order] (kube-apiserver's is unspecified), that has
// bindings: its matchConstraints are matched (internal/admissionmatch: rules,
// selectors, matchPolicy Equivalent, the exemption of admission policies
// and bindings for non-static policies), a policy that does not match is
// skipped, one that fails to match or whose paramKind the [ParamSource]
// does not know is a configuration error; then each binding, in order, is
// matched the same way, and its params collected (one invocation per
// param, in the source's order; params null without paramKind or
// paramRef). Then each invocation runs: its match conditions (a false one
// skips it, an error is an Invalid error of the policy), then its mutations
// in order, each on the object the previous left, each evaluated, applied
// and defaulted (Options.Defaulter). A mutation's status error (a kind
// without schema: 503; a JSON Patch result that does not decode: 500; the
// namespace lookup's NotFound) fails the request at once, whatever the
// failure policy; any other error is recorded and the next mutation of the
// same policy still runs. At the end the recorded errors of policies whose
// failurePolicy is not Ignore — configuration errors first, then
// evaluation errors, as kube-apiserver collects them — fail the request
// with a 403 whose message is the first one's ("policy '<p>' with binding
// '<b>' denied request: <error>", or `policy "<p>" denied request: <error>`
// for a policy's own configuration error), whose reason is Invalid for
// evaluation errors and Forbidden for configuration errors, and whose
// details list every message as a cause. Reinvocation across the two passes
// of an admission chain is [ReinvocationContext]'s.
//
// # Differences from kube-apiserver
//
// kube-apiserver reads the schemas of a running cluster from its own
// /openapi/v3, polled every 5 seconds; here they are the published 1.37
// schemas of client-go v0.37.2's applyconfigurations plus the CRDs the caller
// adds, so a kind is known as soon as AddCRD returns.
//
// The dispatcher works on unstructured objects: kube-apiserver admits built-in
// kinds as typed objects, whose unstructured form (runtime's
// DefaultUnstructuredConverter) is what its expressions see; a caller that
// wants the same `object` passes that form. A request that matches a policy
// only through an equivalent resource of another version needs
// Options.Converter (kube-apiserver has its scheme); without one the policy
// fails with a configuration error. As in kube-apiserver, the objects of
// each matched version are converted once, before any mutation, and only
// the object of the last invocation's version is returned: mutations made
// in another version are lost (kube-apiserver's behaviour, kept). Without
// Options.Namespaces every namespace exists, without labels. The namespace
// is looked up once per request.
package mutation
