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
// # Differences from kube-apiserver
//
// kube-apiserver reads the schemas of a running cluster from its own
// /openapi/v3, polled every 5 seconds; here they are the published 1.37
// schemas of client-go v0.37.2's applyconfigurations plus the CRDs the caller
// adds, so a kind is known as soon as AddCRD returns.
package mutation
