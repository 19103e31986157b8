package admissionmatch

import "k8s.io/apimachinery/pkg/runtime/schema"

// Result is the outcome of matching one request against one webhook or
// policy.
type Result struct {
	// Matches is true when the hook applies to the request.
	Matches bool
	// Resource and Kind are what the hook is called with when it matches:
	// the request's own, or the equivalent resource and its kind when only
	// an equivalent resource matched (matchPolicy Equivalent); the object
	// must then be converted to that version.
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
	// Err is set, and Matches false, when kube-apiserver fails the request
	// for this hook: a selector that does not parse, a namespace that cannot
	// be looked up (a NotFound namespace is its 404 status), an equivalent
	// resource of unknown kind, a policy without match constraints. For a
	// webhook it is always an *apierrors.StatusError.
	Err error
}

// Reason says which predicate decided a match, for Explain.
type Reason uint8

// The reasons, in the order the predicates are evaluated.
const (
	// ReasonMatched: the hook applies (or an error was found: see Err).
	ReasonMatched Reason = iota
	// ReasonExcludedResource: the resource is one no hook sees
	// (Options.ExcludedResources).
	ReasonExcludedResource
	// ReasonAdmissionConfiguration: an admission-configuration object,
	// which only static hooks see (Options.Static).
	ReasonAdmissionConfiguration
	// ReasonExcludeResourceRules: a policy's excludeResourceRules matched.
	ReasonExcludeResourceRules
	// ReasonRules: no rule matched the operation, group, version,
	// resource and subresource.
	ReasonRules
	// ReasonScope: a rule matched but for its scope.
	ReasonScope
	// ReasonResourceNames: a policy rule matched but for its resourceNames.
	ReasonResourceNames
	// ReasonNamespaceSelector: the namespaceSelector did not select the
	// request's namespace.
	ReasonNamespaceSelector
	// ReasonObjectSelector: the objectSelector selected neither the new nor
	// the old object.
	ReasonObjectSelector
	// ReasonError: the predicates failed: see Result.Err.
	ReasonError
)

func (r Reason) String() string {
	switch r {
	case ReasonMatched:
		return "matched"
	case ReasonExcludedResource:
		return "excluded resource"
	case ReasonAdmissionConfiguration:
		return "admission configuration object"
	case ReasonExcludeResourceRules:
		return "excludeResourceRules"
	case ReasonRules:
		return "rules"
	case ReasonScope:
		return "scope"
	case ReasonResourceNames:
		return "resourceNames"
	case ReasonNamespaceSelector:
		return "namespaceSelector"
	case ReasonObjectSelector:
		return "objectSelector"
	case ReasonError:
		return "error"
	}
	return "unknown"
}

// Explanation tells why a request matched a hook or not, beside its Result.
type Explanation struct {
	// Reason is the predicate that decided.
	Reason Reason
	// Rule is the index of the rule that matched (in a webhook's rules or a
	// policy's resourceRules), or of the excludeResourceRule that excluded
	// the request or failed on it; -1 when none did (or a policy without
	// resourceRules).
	Rule int
	// Equivalent is true when that rule matched an equivalent resource.
	Equivalent bool
}
