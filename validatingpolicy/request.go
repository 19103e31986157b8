package validatingpolicy

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
// it to the ValidatingAdmissionPolicy plugin.
type Request struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
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
	// Options are the operation's options (a CreateOptions, UpdateOptions,
	// DeleteOptions or nil), seen by expressions as request.options.
	Options runtime.Object
	// Object is the new object (nil on DELETE) and OldObject the old one
	// (nil on CREATE and CONNECT). Neither is modified.
	Object, OldObject *unstructured.Unstructured
	// Normalized says that the objects of a built-in kind are already as
	// kube-apiserver holds them: the unstructured form of their Go type
	// (runtime.DefaultUnstructuredConverter.ToUnstructured of a typed
	// object, as an apiserver that holds typed objects has them). The
	// dispatcher then skips taking them through the Go type, which is most
	// of the cost of a request; set on objects that are not so, results
	// may differ from kube-apiserver's.
	Normalized bool
	// WithoutMetadata says that the objects are of a kind without metadata
	// (an aggregated API's options kind, say), which kube-apiserver holds
	// typed and whose labels it cannot read: no objectSelector but an empty
	// one matches them. The built-in kinds without metadata (PodExecOptions
	// and the other options kinds) are known from Kind without it.
	WithoutMetadata bool
}

// NewRequest returns the request of an operation op on resource (the
// request's resource, in the version of the objects) whose new object is
// obj and old object oldObj, either of which may be nil: typed objects (the
// k8s.io/api types, or any Go type with its apiVersion and kind) or
// unstructured ones. For the common case, a CREATE of a typed Pod:
//
//	req, err := validatingpolicy.NewRequest(admissionv1.Create, corev1.SchemeGroupVersion.WithResource("pods"), pod, nil)
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

func (r *Request) attributes() *admissionpolicy.Attributes {
	return &admissionpolicy.Attributes{Operation: r.Operation, Kind: r.Kind, Resource: r.Resource, SubResource: r.SubResource,
		Name: r.Name, Namespace: r.Namespace, UserInfo: r.UserInfo, DryRun: r.DryRun, Options: r.Options}
}

// ParamSource gives the params of a policy's paramKind (kube-apiserver's
// REST mapper and param informers); see package mutation, which shares the
// type: one ParamSource serves both engines.
type ParamSource = admissionpolicy.ParamSource

// ParamSourceFunc adapts a function to a ParamSource.
type ParamSourceFunc = admissionpolicy.ParamSourceFunc

// Params are the objects of one param kind, as a client-go lister holds
// them.
type Params = admissionpolicy.Params

var (
	// ErrParamKindNotKnown is wrapped by a ParamSource's error for a kind it
	// does not know.
	ErrParamKindNotKnown = admissionpolicy.ErrParamKindNotKnown
	// ErrParamsNotSynced is wrapped by a Params' error while its objects are
	// not yet known.
	ErrParamsNotSynced = admissionpolicy.ErrParamsNotSynced
)

// NewParamObjects returns a ParamSource over a fixed set of objects (typed or
// *unstructured.Unstructured), for offline use and tests. Every kind is
// known; a kind is namespaced unless clusterScoped (nil: none) says
// otherwise. Objects are listed in the order given.
func NewParamObjects(clusterScoped func(schema.GroupVersionKind) bool, objects ...runtime.Object) ParamSource {
	return admissionpolicy.NewParamObjects(clusterScoped, objects...)
}

// NamespaceLookup returns a namespace by name, for namespaceSelectors and
// namespaceObject; a namespace that does not exist is an apierrors NotFound
// status, which fails the request. Shared with package mutation.
type NamespaceLookup = admissionpolicy.NamespaceLookup

// NamespaceLookupFunc adapts a function to a NamespaceLookup.
type NamespaceLookupFunc = admissionpolicy.NamespaceLookupFunc

// Converter converts an object to the version of an equivalent resource
// (matchPolicy Equivalent). Shared with package mutation.
type Converter = admissionpolicy.Converter

// ConverterFunc adapts a function to a Converter.
type ConverterFunc = admissionpolicy.ConverterFunc
