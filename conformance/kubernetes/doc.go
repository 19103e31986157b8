// Package kubernetes holds the differential tests whose oracle lives in
// k8s.io/kubernetes rather than in the staging modules: the RBAC authorizer
// (plugin/pkg/auth/authorizer/rbac) and the REST validation of admission
// objects (pkg/apis/admissionregistration/validation).
//
// k8s.io/kubernetes is not meant to be imported as a module and its newest
// version on the module proxy is v1.36.3, which needs its staging modules at
// v0.36.3; the conformance module pins k8s.io/apiserver v0.37.2. The two
// cannot share one build list, hence this module of its own. Where 1.37
// differs from 1.36 in what is tested here, the test says so.
package kubernetes
