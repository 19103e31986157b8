// Package podsecurity holds the differential test of gatehouse's
// PodSecurity plugin (contrib/podsecurity, through admission.New's chain)
// against k8s.io/pod-security-admission's own admission logic as
// kube-apiserver's plugin wraps it: generated pods, templates, namespaces,
// labels, exemptions, operations and versions, compared by outcome,
// status, warnings and audit annotations.
package podsecurity
