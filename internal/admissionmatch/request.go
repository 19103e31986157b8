package admissionmatch

import (
	"context"
	"errors"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/builtintypes"
)

// Request is what matching reads of one admission request. The caller builds
// it once per request and matches it against every webhook or policy; the
// labels of its objects, the labels of its namespace and its equivalent
// resources are read at most once, on first use, whichever hook needs them.
// It may be matched by several goroutines at once; its fields must not change
// once it has been matched. Use it by pointer.
//
// It is kube-apiserver's admission.Attributes as its predicates read them:
// the request's own kind and resource, before any conversion. (matchcond's
// AdmissionAttributes.Request is the AdmissionRequest sent to one webhook or
// policy after it matched, with the matched kind; it is built from a
// Request and a Result.)
type Request struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation admissionv1.Operation
	// Kind is the kind of the request's object, Resource and Subresource
	// what it addresses, in the version of the request.
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	Subresource string
	// Name is the object's name: empty for a create with generateName.
	Name string
	// Namespace is the object's namespace: empty for a cluster-scoped
	// object; for a request on a Namespace object itself, kube-apiserver
	// sets it to the namespace's name.
	Namespace string
	// Object and OldObject are the new and the old object; nil when the
	// request has none (DELETE has only OldObject). Only their labels are
	// read (through meta.Accessor); an object that has no metadata has no
	// labels, and no object selector but an empty one matches it.
	Object, OldObject runtime.Object
	// WithoutMetadata says that the objects, whatever their Go type, are of
	// a kind without metadata (an options kind such as an aggregated API's
	// connect options), which kube-apiserver holds typed and whose labels
	// its accessor cannot read. The built-in kinds without metadata
	// (PodExecOptions, ...) are known from Kind without it.
	WithoutMetadata bool

	// Namespaces looks up the labels of the request's namespace, for the
	// namespaceSelectors that need them. nil fails such requests with an
	// internal error.
	Namespaces NamespaceLookup
	// Equivalents lists the resources equivalent to the request's, for
	// hooks with matchPolicy Equivalent; nil means there are none.
	// runtime.NewEquivalentResourceRegistry() gives one; EquivalentsFuncs
	// adapts two functions.
	Equivalents runtime.EquivalentResourceMapper

	objectsOnce sync.Once
	objects     objectLabels

	namespaceOnce   sync.Once
	namespaceLabels map[string]string
	namespaceErr    *apierrors.StatusError

	equivalentsOnce sync.Once
	equivalents     []schema.GroupVersionResource
}

// NamespaceLookup returns the labels of a namespace, as kube-apiserver's
// namespace lister, then a live GET, would: a namespace that does not exist
// is an error that is (not wraps) an apierrors.APIStatus whose reason is
// NotFound, such as apierrors.NewNotFound(corev1.Resource("namespaces"),
// name); kube-apiserver returns that status to the client when the hook's
// rules match. Any other error becomes an internal error. The name may be
// empty (a request on the namespaces resource without a namespace). It must
// be safe for concurrent use.
type NamespaceLookup interface {
	NamespaceLabels(ctx context.Context, name string) (map[string]string, error)
}

// NamespaceLookupFunc adapts a function to a NamespaceLookup.
type NamespaceLookupFunc func(ctx context.Context, name string) (map[string]string, error)

// NamespaceLabels calls f.
func (f NamespaceLookupFunc) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	return f(ctx, name)
}

// EquivalentsFuncs adapts two functions to a runtime.EquivalentResourceMapper.
type EquivalentsFuncs struct {
	// Resources returns the resources that address the same objects as
	// resource (with the same subresource); it may include resource.
	Resources func(resource schema.GroupVersionResource, subresource string) []schema.GroupVersionResource
	// Kind returns the kind of resource[/subresource]; the zero value if
	// unknown.
	Kind func(resource schema.GroupVersionResource, subresource string) schema.GroupVersionKind
}

// EquivalentResourcesFor calls f.Resources, if set.
func (f EquivalentsFuncs) EquivalentResourcesFor(resource schema.GroupVersionResource, subresource string) []schema.GroupVersionResource {
	if f.Resources == nil {
		return nil
	}
	return f.Resources(resource, subresource)
}

// KindFor calls f.Kind, if set.
func (f EquivalentsFuncs) KindFor(resource schema.GroupVersionResource, subresource string) schema.GroupVersionKind {
	if f.Kind == nil {
		return schema.GroupVersionKind{}
	}
	return f.Kind(resource, subresource)
}

var _ runtime.EquivalentResourceMapper = EquivalentsFuncs{}

// errNoNamespaceLookup is the error of a request that needs its namespace's
// labels and has no NamespaceLookup.
var errNoNamespaceLookup = errors.New("no namespace lookup to evaluate a namespaceSelector with")

// objectLabels are the labels of the request's objects; has* is false when
// the object is absent or has no metadata, which no selector matches.
type objectLabels struct {
	newLabels, oldLabels map[string]string
	hasNew, hasOld       bool
}

func (r *Request) objectLabels() *objectLabels {
	r.objectsOnce.Do(func() {
		if r.WithoutMetadata || builtintypes.WithoutMetadata(r.Kind) {
			// kube-apiserver holds such an object typed: no labels.
			return
		}
		r.objects.newLabels, r.objects.hasNew = labelsOf(r.Object)
		r.objects.oldLabels, r.objects.hasOld = labelsOf(r.OldObject)
	})
	return &r.objects
}

// labelsOf returns the labels of obj, and false when it is nil or has no
// metadata. A typed nil pointer (which makes kube-apiserver's accessor
// panic) has no metadata.
func labelsOf(obj runtime.Object) (labels map[string]string, ok bool) {
	if obj == nil {
		return nil, false
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil, false
	}
	defer func() {
		if recover() != nil {
			labels, ok = nil, false
		}
	}()
	return accessor.GetLabels(), true
}

// ownNamespace reports whether the labels the namespaceSelector sees are the
// request object's own: a Namespace being created or updated.
func (r *Request) ownNamespace() bool {
	return r.Resource.Resource == "namespaces" && r.Subresource == "" &&
		(r.Operation == admissionv1.Create || r.Operation == admissionv1.Update)
}

// namespace returns the labels the namespaceSelector sees, or the error
// kube-apiserver's namespace predicate returns.
func (r *Request) namespace(ctx context.Context) (map[string]string, *apierrors.StatusError) {
	r.namespaceOnce.Do(func() {
		r.namespaceLabels, r.namespaceErr = r.lookupNamespace(ctx)
	})
	return r.namespaceLabels, r.namespaceErr
}

func (r *Request) lookupNamespace(ctx context.Context) (map[string]string, *apierrors.StatusError) {
	if r.ownNamespace() {
		if _, err := meta.Accessor(r.Object); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		labels, ok := labelsOf(r.Object)
		if !ok { // a typed nil
			return nil, apierrors.NewInternalError(errNotObject)
		}
		return labels, nil
	}
	if r.Namespaces == nil {
		return nil, apierrors.NewInternalError(errNoNamespaceLookup)
	}
	labels, err := r.Namespaces.NamespaceLabels(ctx, r.Namespace)
	if err == nil {
		return labels, nil
	}
	if apierrors.IsNotFound(err) {
		if status, ok := err.(apierrors.APIStatus); ok {
			return nil, &apierrors.StatusError{ErrStatus: status.Status()}
		}
	}
	return nil, apierrors.NewInternalError(err)
}

// errNotObject is meta.Accessor's error text, for a typed nil object.
var errNotObject = errors.New("object does not implement the Object interfaces")

// equivalentResources returns the resources equivalent to the request's.
func (r *Request) equivalentResources() []schema.GroupVersionResource {
	r.equivalentsOnce.Do(func() {
		if r.Equivalents != nil {
			r.equivalents = r.Equivalents.EquivalentResourcesFor(r.Resource, r.Subresource)
		}
	})
	return r.equivalents
}
