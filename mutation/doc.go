// Package mutation is kube-apiserver 1.37's MutatingAdmissionPolicy
// (KEP-3962) as a library: policies compiled once ([Compiler]), requests
// dispatched through policies and bindings ([Dispatcher]) with
// ApplyConfiguration mutations merged by structured-merge-diff on the kinds'
// real schemas ([Schemas]) and JSON Patch mutations applied with
// kube-apiserver's json-patch library, and a [Trace] of why on request.
//
// [Schemas] resolves a kind to a structured-merge-diff schema, for the
// built-in types of Kubernetes 1.37 (embedded, decoded per kind on first use)
// and for custom resources added from their CustomResourceDefinitions, the
// way kube-apiserver's type converters do.
//
// # Compilation and evaluation
//
// A policy's expressions are compiled in kube-apiserver's environment of
// stored expressions: variables (each typed for the later ones, lazily
// evaluated, recomputed for every mutation), match conditions, and
// mutations, which alone have the types Object (any dotted name under
// Object, fields unchecked until run time) and JSONPatch, and
// jsonpatch.escapeKey. params is declared only with a paramKind. An
// expression that does not compile fails the requests that evaluate it
// ("compilation failed: ERROR: ..."), as in kube-apiserver; an
// ApplyConfiguration must be of type Object, a JSONPatch of type
// list(JSONPatch). Each mutation has its own budget of 10,000,000 (an
// expression or variable at most 1,000,000), the match conditions share
// 2,500,000. The value of an ApplyConfiguration is converted as
// kube-apiserver's is, with its quirks (one level of map literal converts, a
// nested one reaches the schema as a CEL value and is refused; nested
// Object types must be named after their field path); a JSONPatch's
// operations are built as kube-apiserver builds them (values through their
// protobuf form).
//
// [Policy.WrittenFields] tells, beyond kube-apiserver, the fields an
// ApplyConfiguration may set, from its expression alone.
//
// # Application
//
// Each mutation's patch is applied as kube-apiserver 1.37 applies it.
//
// An ApplyConfiguration gets the object's apiVersion and kind (whatever the
// expression wrote), is typed strictly with the kind's schema, and is
// rejected if it sets any list, map or struct the schema declares atomic
// ("may not mutate atomic arrays, maps or structs: .spec.selector"; only
// declared struct fields and list items are walked, so atomic lists inside
// free-form maps are replaced wholesale). It is then merged into the object,
// typed with duplicates allowed, with structured-merge-diff: listType=map
// entries merged by key, sets united, granular maps merged, nothing ever
// removed. Errors are kube-apiserver's, "error applying patch: " and the
// step's own ("failed to convert patch object to typed object: .spec.replicas:
// expected numeric (int or float), got string"). The merge itself runs on a
// walk compiled from each kind's schema on first use, which gives
// structured-merge-diff's result (values, order of merged lists, nulls,
// empty maps and lists) without its typing; whatever that walk is not sure
// of (schema errors, duplicates, float keys, nulls in preserved unknown
// fields...) goes through structured-merge-diff itself.
//
// A JSON patch is applied to the object's JSON with
// gopkg.in/evanphx/json-patch.v4 v4.13.0, kube-apiserver's library, and its
// quirks: add on an existing key overwrites it, replace on a missing key adds
// it, copy from a missing key copies null, negative indices count from the
// end, a path without a leading "/" loses its first segment. A failed test
// operation discards the whole patch: the object is returned unchanged,
// without error. Other errors are "JSON Patch: " and the library's text.
//
// Built-in kinds are then taken through their Go types (k8s.io/api), as
// kube-apiserver holds them: the merged object is converted to the Go type
// and back, which drops empty omitempty fields (an initContainers: [] added
// by one mutation is gone for the next, kubernetes#129309), adds struct
// fields without omitempty (a new container gets resources: {}) and writes
// quantities and times canonically; a JSON patch's result is decoded
// strictly into the Go type, and a failure is kube-apiserver's 500
// ("Internal error occurred: strict decoding error: unknown field
// "spec.bogus""). Custom resources stay unstructured. A kind without a
// schema is kube-apiserver's 503 ("Resource kind example.com/v1,
// Kind=Gadget not found. ..."), for JSON patches too.
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
// # Checking policies
//
// [Check] finds, before any request, what kube-apiserver accepts in policies
// and bindings but fails on at admission time: rules that match no resource
// Kubernetes 1.37 serves (nor a CRD given), with the nearest name; policies
// without a binding, bindings of policies not given, params not given; fields
// selected with no has() or optional guard that the matched kinds' schemas do
// not guarantee, and fields they never have; ApplyConfigurations writing into
// atomic lists, maps and structs or setting constants of the wrong type, JSON
// patches adding fields a built-in kind does not have, IfNeeded mutations that
// are not idempotent on a sample object, costs near the limit. A [Checker]
// prepares the schemas once. Each [Finding] has a severity:
// an error when kube-apiserver fails every matching request whatever the
// object (checked against kube-apiserver's dispatchers in conformance), else
// a warning. What the check cannot know (defaults, the cluster's resources,
// guards written otherwise) is listed in internal/policycheck's
// documentation; gatehouse lint runs it on files.
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
// Kubernetes 1.37): metadata; failurePolicy, paramKind and matchConstraints
// (at least one resource rule; no DELETE, as for a binding's
// matchResources); match conditions (at most 64, qualified
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
// # Kubernetes versions
//
// Options.Kube (NewCompilerFor, ValidatorOptions.Kube, CheckOptions.Kube)
// answers as kube-apiserver 1.35, 1.36, 1.37 (the zero Target) or 1.38's
// beta: the plugin runs only where its gate MutatingAdmissionPolicy is on
// (off by default in 1.35: the trace says Disabled and nothing is
// mutated); the CEL environments of the version (includes() in stored
// expressions from 1.37, in new ones from 1.38) and cel-go's behaviours
// (duration(int) type-checks before 1.37; the global matches(),
// startsWith and endsWith cost as cel-go 0.26 charges them; quantity
// add/sub change a huge receiver). The CEL of every version is checked
// against that version's k8s.io/apiserver (conformance,
// TestCELMatchesKubeAPIServerPerVersion). At every version, the rest of
// the REST validation, the built-in kinds and their schemas, and the merge
// (structured-merge-diff v6; 1.38 links v7, which the module proxy does
// not serve) are 1.37's; Decode reads v1 at every version although 1.35
// does not serve it (gatehouse lint reports it).
//
// # Differences from kube-apiserver
//
// Where kube-apiserver reports the first of several errors in Go's random
// map order (nested Object type names), gatehouse reports them in the order
// of the field names. kube-apiserver presents a built-in object to CEL
// through its schemaless typed view once match conditions have evaluated on
// it in a request, after which lists and maps taken from the object cannot
// be JSON Patch values ("type conversion error from 'list(dyn)' to
// '*structpb.Value'"); gatehouse reproduces that switch.
//
// kube-apiserver reads the schemas of a running cluster from its own
// /openapi/v3, polled every 5 seconds; here they are the published 1.37
// schemas of client-go v0.37.2's applyconfigurations plus the CRDs the caller
// adds, so a kind is known as soon as AddCRD returns.
//
// The dispatcher works on unstructured objects: kube-apiserver admits built-in
// kinds as typed objects, whose unstructured form (runtime's
// DefaultUnstructuredConverter) is what its expressions see, so the
// dispatcher takes a built-in kind's objects through the Go type before the
// first policy (an object the Go type does not take is used as it is). A
// request that matches a policy only through an equivalent resource of
// another version needs
// Options.Converter (kube-apiserver has its scheme); without one the policy
// fails with a configuration error. As in kube-apiserver, the objects of
// each matched version are converted once, before any mutation, and only
// the object of the last invocation's version is returned: mutations made
// in another version are lost (kube-apiserver's behaviour, kept). Without
// Options.Namespaces every namespace exists, without labels. The namespace
// is looked up once per request.
//
// When an ApplyConfiguration sets several atomic fields of one map,
// kube-apiserver lists their paths in Go's random map order; here they are
// in the order of the sorted field names (the set is the same). An object
// or patch with several schema errors is reported, as by kube-apiserver, with
// the errors structured-merge-diff meets walking its maps in random order, so
// the list can vary between runs, in both.
//
// json-patch v4.13.0 panics on a replace of the whole document ("path": "")
// without a value, and on writes after the document is replaced by null;
// kube-apiserver's handler then fails the request with a 500 ("This request
// caused apiserver to panic"). Here the patch fails with a 500 StatusError,
// "Internal error occurred: JSON Patch: json-patch panicked: ...", which the
// dispatcher reports whatever the failure policy, as kube-apiserver's 500s.
//
// The copy operations of one JSON patch may add at most 3 MiB
// ([JSONPatchMaxCopyBytes]) to the document, with json-patch's error, as in
// kube-apiserver, whose generic server sets that bound for the whole
// process; the bound is enforced here without setting json-patch's package
// variable.
//
// [Decode] refuses an item of a typed list (a MutatingAdmissionPolicyList)
// whose own apiVersion and kind name another type; kube-apiserver's decoder
// ignores them and reads the item as the list's type.
package mutation
