package mutation

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	// Reinvocation carries the reinvocation state between the two passes
	// of the admission chain over one request; nil when the caller does
	// not reinvoke (see ReinvocationContext).
	Reinvocation *ReinvocationContext
}

// NamespaceLookup returns a namespace by name, as kube-apiserver's
// namespace lister (then a live GET) would: for the namespaceSelectors of
// policies and bindings and for the namespaceObject variable. A namespace
// that does not exist is an apierrors NotFound status (for example
// apierrors.NewNotFound(corev1.Resource("namespaces"), name)), which
// kube-apiserver returns to the client; any other error is an internal
// error. It must be safe for concurrent use.
type NamespaceLookup interface {
	Namespace(ctx context.Context, name string) (*corev1.Namespace, error)
}

// NamespaceLookupFunc adapts a function to a NamespaceLookup.
type NamespaceLookupFunc func(ctx context.Context, name string) (*corev1.Namespace, error)

// Namespace calls f.
func (f NamespaceLookupFunc) Namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	return f(ctx, name)
}

// Converter converts an object to another version of its kind. It is needed
// only for policies that match a request through an equivalent resource of
// another version (matchPolicy Equivalent): kube-apiserver converts the
// request's objects to the matched version, mutates them there and converts
// the result back. It must be safe for concurrent use and must not modify
// obj.
type Converter interface {
	Convert(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error)
}

// ConverterFunc adapts a function to a Converter.
type ConverterFunc func(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error)

// Convert calls f.
func (f ConverterFunc) Convert(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	return f(obj, to)
}
