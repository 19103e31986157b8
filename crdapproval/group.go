package crdapproval

import "strings"

// IsProtectedGroup reports whether CRDs of the API group need the
// api-approved.kubernetes.io annotation: the group is k8s.io or
// kubernetes.io, or a subdomain of one of them.
//
// The test is on the exact bytes, as kube-apiserver does it: case matters
// ("K8S.IO" is not protected; CRD validation rejects upper-case groups anyway),
// nothing is trimmed, and a subdomain needs its dot ("x.k8s.io" is protected,
// "xk8s.io" and "x-k8s.io" are not).
func IsProtectedGroup(group string) bool {
	return isDomainOrSubdomain(group, "k8s.io") || isDomainOrSubdomain(group, "kubernetes.io")
}

// isDomainOrSubdomain reports whether name is domain itself or ends with
// "." + domain.
func isDomainOrSubdomain(name, domain string) bool {
	if !strings.HasSuffix(name, domain) {
		return false
	}
	rest := len(name) - len(domain)
	return rest == 0 || name[rest-1] == '.'
}
