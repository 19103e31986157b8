// Package gatehouse is an embeddable Go library of the Kubernetes
// authorization and admission engines, giving the same answers as
// kube-apiserver 1.37 without importing k8s.io/apiserver.
//
// It is made for custom apiservers that want kube-apiserver's authorizer chain
// and admission policies, for policy, GitOps and CI tools that must compute
// offline the decision or the mutated object the cluster will compute, and for
// test fixtures in other projects (a fake SubjectAccessReview webhook, a chain
// built from a YAML file, a policy applied to a manifest).
//
// The library is a set of independent packages of pure functions and small
// interfaces. The caller supplies the transport, the clock and the metrics
// sink; there are no globals, no feature gates and no logging unless a logger
// is given.
//
//   - authzconfig: the AuthorizationConfiguration file (apiserver.config.k8s.io
//     v1alpha1, v1beta1, v1): strict decoding, defaulting, validation with
//     kube-apiserver's messages and field paths, reload rules, the legacy
//     --authorization-* flags.
//   - authorizer: the ordered authorizer chain with system:masters first,
//     webhook authorizers with caches, retries and CEL match conditions, and
//     automatic reload with last-known-good; authorizer/authorizertest is a
//     fake SubjectAccessReview webhook for tests.
//   - matchcond: CEL match conditions for authorization and admission, with
//     the Kubernetes CEL libraries and cost limits.
//   - mutation: MutatingAdmissionPolicy, applied with structured-merge-diff on
//     real schemas, or as JSONPatch.
//   - admissionmanifest: manifest-based admission configuration (static
//     webhook and policy manifests read from a directory).
//   - crdapproval: the api-approved.kubernetes.io protection of the k8s.io and
//     kubernetes.io API groups.
//   - metrics: the descriptors of every metric the engines record, and the
//     Sink interface they record through.
//
// Machinery shared by the packages lives under internal/. Runnable programs
// live under examples/; the differential tests against kube-apiserver's own
// packages live in the separate module conformance/.
package gatehouse
