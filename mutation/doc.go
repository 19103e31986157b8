// Package mutation will hold MutatingAdmissionPolicy as a library (issue 10).
// This first slice gives the schemas its ApplyConfiguration mutations merge
// with: [Schemas] resolves a kind to a structured-merge-diff schema, for the
// built-in types of Kubernetes 1.37 (embedded, decoded per kind on first use)
// and for custom resources added from their CustomResourceDefinitions, the
// way kube-apiserver's type converters do.
//
// # Differences from kube-apiserver
//
// kube-apiserver reads the schemas of a running cluster from its own
// /openapi/v3, polled every 5 seconds; here they are the published 1.37
// schemas of client-go v0.37.2's applyconfigurations plus the CRDs the caller
// adds, so a kind is known as soon as AddCRD returns.
package mutation
