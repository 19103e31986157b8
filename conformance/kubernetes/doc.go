// Package kubernetes holds the differential tests whose oracle lives in
// k8s.io/kubernetes rather than in the staging modules: the RBAC authorizer
// (plugin/pkg/auth/authorizer/rbac) and the REST validation of admission
// objects (pkg/apis/admissionregistration/validation).
//
// k8s.io/kubernetes is not meant to be imported as a module: it requires
// its staging modules (k8s.io/api, apimachinery, apiserver, client-go, ...)
// at v0.0.0 and replaces them with its own tree, which a dependent does not
// see. This module requires k8s.io/kubernetes v1.37.2 and replaces each
// staging module with its v0.37.2 release. A module of its own keeps those
// replacements, and k8s.io/kubernetes's dependency graph, out of the
// conformance module.
package kubernetes
