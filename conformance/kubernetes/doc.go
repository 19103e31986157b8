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
//
// The REST validation is compared per version too (rest_versions_test.go):
// the corpus runs of admission_validation_test.go and
// mutation_validation_test.go, with gatehouse's validators set to the
// version (Options.Kube, ValidatorOptions.Kube), against that version's own
// k8s.io/kubernetes: the oracle program of ./oracle (a module of its own, a
// go.mod per version: 1.35.4, 1.36.3, 1.38.0-beta.0 with Go 1.27), built and
// started by the conformance module's kubeoracle; 1.37 links its package
// restvalidation here, which the 1.37 tests above use too. Differences that
// gatehouse cannot remove (1.38's cel-go 0.33 texts of CEL compile errors)
// are counted as known (restKnownDifference); any other fails.
//
// GATEHOUSE_REST_VERSIONS chooses the versions ("1.35,1.36", "all"); unset,
// 1.36 and 1.38 (restDefaultVersions): the newest release the in-process
// tests do not cover and the beta. Each oracle costs a cold build of
// k8s.io/kubernetes's packages at its version (measured in .ci/run's
// comments) and about a minute of comparisons; CI runs the default two, and
// 1.35 with GATEHOUSE_REST_VERSIONS=all (.ci/run: GATEHOUSE_REST_ALL=1).
package kubernetes
