// Package admissionexclusion knows the resources admission never
// intercepts (Kubernetes' pkg/kubeapiserver/admission/exclusion, the same
// list from 1.35 to 1.38): a leaf package, so that the authorizer can ask it
// without linking the admission matchers' dependencies.
package admissionexclusion

import "k8s.io/apimachinery/pkg/runtime/schema"

// Excluded returns the virtual resources that admission never intercepts:
// the authentication and authorization reviews, whose interception could
// lock a cluster out of its own authentication.
func Excluded() []schema.GroupResource {
	return []schema.GroupResource{
		{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
		{Group: "authentication.k8s.io", Resource: "tokenreviews"},
		{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
	}
}

// IsExcluded reports whether the resource of group is in Excluded(), in
// any version and with any subresource.
func IsExcluded(group, resource string) bool {
	switch group {
	case "authentication.k8s.io":
		switch resource {
		case "selfsubjectreviews", "tokenreviews":
			return true
		}
	case "authorization.k8s.io":
		switch resource {
		case "localsubjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews":
			return true
		}
	}
	return false
}
