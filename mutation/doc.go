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
// # Applying patches
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
// expected numeric (int or float), got string").
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
// # Differences from kube-apiserver
//
// kube-apiserver reads the schemas of a running cluster from its own
// /openapi/v3, polled every 5 seconds; here they are the published 1.37
// schemas of client-go v0.37.2's applyconfigurations plus the CRDs the caller
// adds, so a kind is known as soon as AddCRD returns.
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
// The copy operations of one JSON patch may add at most 3 MiB to the
// document, with json-patch's error, as in kube-apiserver, whose generic
// server sets that bound (JSONPatchMaxCopyBytes) for the whole process; the
// bound is enforced here without setting json-patch's package variable.
//
// Errors that name kube-apiserver's scheme (a JSON patch that changes kind
// to one not registered: no kind "Nope" is registered for version "v1" in
// scheme "...") name gatehouse's.
package mutation
