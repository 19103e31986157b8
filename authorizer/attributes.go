package authorizer

import "k8s.io/apimachinery/pkg/selection"

// User is the identity a request is made as.
type User struct {
	// Name is the user name.
	Name string
	// UID is a unique value for this user across time.
	UID string
	// Groups are the groups the user belongs to, in order.
	Groups []string
	// Extra holds additional information set by the authenticator.
	Extra map[string][]string
}

// Attributes describe one request to authorize: who asks (User), what for
// (Verb), and on what: a resource (ResourceRequest true, with Namespace,
// APIGroup, APIVersion, Resource, Subresource, Name and the selectors) or a
// non-resource path (ResourceRequest false, with Path). They carry what
// kube-apiserver's authorizer.Attributes carry.
type Attributes struct {
	// User is the requesting user; nil when the request has none, which the
	// system:masters authorizer reports as an error.
	User *User

	// Verb is the Kubernetes verb (get, list, watch, create, update, patch,
	// delete, deletecollection, ...) for a resource request, or the
	// lowercase HTTP method for a non-resource request.
	Verb string

	// ResourceRequest is true for a request on an API resource, false for a
	// request on a non-resource path such as /healthz.
	ResourceRequest bool

	// Namespace of the object, empty for cluster-scoped resources.
	Namespace string
	// APIGroup is the API group of the resource, "" for the core group.
	APIGroup string
	// APIVersion is the version of the API group.
	APIVersion string
	// Resource is the resource, e.g. "pods".
	Resource string
	// Subresource is the subresource, e.g. "status", or "".
	Subresource string
	// Name is the name of the object, empty for list and create.
	Name string

	// Path is the request path. It is what a non-resource request is about;
	// kube-apiserver sets it on resource requests too.
	Path string

	// FieldSelector holds the requirements of the request's field selector
	// (list, watch, deletecollection). Requirements whose operator a
	// SubjectAccessReview cannot express are left out of it.
	FieldSelector []FieldRequirement
	// LabelSelector holds the requirements of the request's label selector.
	LabelSelector []LabelRequirement
}

// FieldRequirement is one requirement of a field selector, such as
// spec.nodeName=node-1. Operator is one of selection.Equals,
// selection.DoubleEquals, selection.In (all sent to webhooks as In),
// selection.NotEquals and selection.NotIn (sent as NotIn).
type FieldRequirement struct {
	Field    string
	Operator selection.Operator
	Value    string
}

// LabelRequirement is one requirement of a label selector, such as
// "app in (web, api)". Operator is one of selection.Equals,
// selection.DoubleEquals, selection.In (sent as In), selection.NotEquals,
// selection.NotIn (NotIn), selection.Exists (Exists) and
// selection.DoesNotExist (DoesNotExist); selection.GreaterThan and
// selection.LessThan are not sent, as in kube-apiserver.
type LabelRequirement struct {
	Key      string
	Operator selection.Operator
	Values   []string
}
