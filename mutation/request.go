package mutation

import (
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
	"github.com/gatehouse-dev/gatehouse/internal/admissionrequest"
)

// Request is one admission request, as kube-apiserver's admission chain hands
// it to the MutatingAdmissionPolicy plugin.
type Request struct {
	// Operation is CREATE, UPDATE or CONNECT; the plugin does not handle
	// DELETE (there is no object to mutate), so a DELETE is admitted
	// unchanged.
	Operation admissionv1.Operation
	// Kind is the kind of Object, Resource and SubResource what the
	// request addresses, in the version of the request (kube-apiserver's
	// requestKind, requestResource and requestSubResource).
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	SubResource string
	// Name is the object's name (empty for a create with generateName);
	// Namespace its namespace (empty for cluster-scoped objects; a request
	// on a Namespace carries the namespace's own name, as kube-apiserver's
	// do).
	Name      string
	Namespace string
	// UserInfo is the requesting user.
	UserInfo authenticationv1.UserInfo
	// DryRun is true for a dry-run request.
	DryRun bool
	// Options are the operation's options (a CreateOptions, UpdateOptions
	// or nil), seen by expressions as request.options.
	Options runtime.Object
	// Object is the new object and OldObject the old one (nil on CREATE).
	// Neither is modified: Admit returns the mutated object.
	Object, OldObject *unstructured.Unstructured
	// Normalized says that the objects of a built-in kind are already as
	// kube-apiserver holds them: the unstructured form of their Go type
	// (runtime.DefaultUnstructuredConverter.ToUnstructured of a typed
	// object). The dispatcher then skips taking them through the Go type
	// before the first policy; set on objects that are not so, results may
	// differ from kube-apiserver's.
	Normalized bool
	// WithoutMetadata says that the objects are of a kind without metadata
	// (an aggregated API's options kind, say), which kube-apiserver holds
	// typed and whose labels it cannot read: no objectSelector but an empty
	// one matches them. The built-in kinds without metadata (PodExecOptions
	// and the other options kinds) are known from Kind without it.
	WithoutMetadata bool
	// Reinvocation carries the reinvocation state between the two passes
	// of the admission chain over one request; nil when the caller does
	// not reinvoke (see ReinvocationContext).
	Reinvocation *ReinvocationContext
}

// NamespaceLookup returns a namespace by name, as kube-apiserver's
// namespace lister (then a live GET) would: for the namespaceSelectors of
// policies and bindings and for the namespaceObject variable. A namespace
// that does not exist is an apierrors NotFound status, which kube-apiserver
// returns to the client; any other error is an internal error. It must be
// safe for concurrent use. It is the same type as validatingpolicy's.
type NamespaceLookup = admissionpolicy.NamespaceLookup

// NamespaceLookupFunc adapts a function to a NamespaceLookup.
type NamespaceLookupFunc = admissionpolicy.NamespaceLookupFunc

// Converter converts an object to another version of its kind. It is needed
// only for policies that match a request through an equivalent resource of
// another version (matchPolicy Equivalent): kube-apiserver converts the
// request's objects to the matched version, mutates them there and converts
// the result back. It must be safe for concurrent use and must not modify
// obj.
type Converter = admissionpolicy.Converter

// ConverterFunc adapts a function to a Converter.
type ConverterFunc = admissionpolicy.ConverterFunc

// NewRequest returns the request of an operation op on resource (the
// request's resource, in the version of the objects) whose new object is
// obj and old object oldObj, either of which may be nil: typed objects (the
// k8s.io/api types, or any Go type with its apiVersion and kind) or
// unstructured ones. For the common case, a CREATE of a typed Pod:
//
//	req, err := mutation.NewRequest(admissionv1.Create, corev1.SchemeGroupVersion.WithResource("pods"), pod, nil)
//
// A typed object is converted with
// runtime.DefaultUnstructuredConverter.ToUnstructured and given its
// TypeMeta's apiVersion and kind or, when they are empty, those of its Go
// type among the built-in kinds; the request is then Normalized (the
// converted form of a Go object is what kube-apiserver holds). An
// unstructured object is taken as it is (not copied, not normalized, and
// the request not Normalized). Kind is the objects' kind; Name and
// Namespace are read from the new object's metadata (the old one's on
// DELETE), a request on namespaces carrying the namespace's name as
// Namespace. The other fields (SubResource, UserInfo, DryRun, Options, ...)
// are left for the caller to set, as are Name and Namespace when they must
// differ. The objects are not modified.
//
// The error is for objects whose kind cannot be known (no apiVersion and
// kind and not a built-in Go type), a TypeMeta that names a kind the Go
// type is not, objects of two kinds, an object that does not convert, or
// no object at all.
func NewRequest(op admissionv1.Operation, resource schema.GroupVersionResource, obj, oldObj runtime.Object) (*Request, error) {
	objs, err := admissionrequest.FromObjects(resource, obj, oldObj)
	if err != nil {
		return nil, err
	}
	return &Request{Operation: op, Kind: objs.Kind, Resource: resource, Name: objs.Name, Namespace: objs.Namespace,
		Object: objs.Object, OldObject: objs.OldObject, Normalized: objs.Normalized}, nil
}

// attributes are the request's attributes for the shared policy machinery.
func (r *Request) attributes() *admissionpolicy.Attributes {
	return &admissionpolicy.Attributes{Operation: r.Operation, Kind: r.Kind, Resource: r.Resource, SubResource: r.SubResource,
		Name: r.Name, Namespace: r.Namespace, UserInfo: r.UserInfo, DryRun: r.DryRun, Options: r.Options}
}
