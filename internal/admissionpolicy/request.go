package admissionpolicy

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Attributes are what an admission policy engine reads of a request besides
// its objects: kube-apiserver's admission.Attributes, in the version of the
// request.
type Attributes struct {
	Operation   admissionv1.Operation
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	SubResource string
	Name        string
	Namespace   string
	UserInfo    authenticationv1.UserInfo
	DryRun      bool
	Options     runtime.Object
}

// AdmissionRequest is the `request` variable of expressions evaluated on the
// request's objects in kind's version (kube-apiserver's
// CreateAdmissionRequest): the matched kind, the request's own kind,
// resource and subresource, the user with a non-nil extra, and no uid or
// objects. Its Resource is the matched resource, set per invocation.
func (a *Attributes) AdmissionRequest(kind schema.GroupVersionKind) *admissionv1.AdmissionRequest {
	dryRun := a.DryRun
	return &admissionv1.AdmissionRequest{
		Kind:               metav1.GroupVersionKind{Group: kind.Group, Version: kind.Version, Kind: kind.Kind},
		SubResource:        a.SubResource,
		RequestKind:        &metav1.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind},
		RequestResource:    &metav1.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource},
		RequestSubResource: a.SubResource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          a.Operation,
		UserInfo:           userInfoOf(a.UserInfo),
		DryRun:             &dryRun,
		Options:            runtime.RawExtension{Object: a.Options},
	}
}

// userInfoOf is the user as kube-apiserver copies it into the request
// variable (extra is never nil).
func userInfoOf(in authenticationv1.UserInfo) authenticationv1.UserInfo {
	u := authenticationv1.UserInfo{Username: in.Username, UID: in.UID, Groups: in.Groups,
		Extra: make(map[string]authenticationv1.ExtraValue, len(in.Extra))}
	for k, v := range in.Extra {
		u.Extra[k] = v
	}
	return u
}

// NamespaceOf is the name of the namespace whose object a namespaced request
// sees as namespaceObject: the request's namespace, except for a request on
// a v1 Namespace, whose namespace is its own name and does not count.
func (a *Attributes) NamespaceOf() string {
	if k := a.Kind; k.Group == "" && k.Version == "v1" && k.Kind == "Namespace" {
		return ""
	}
	return a.Namespace
}

// ForbiddenName is the name admission.NewForbidden puts in a denial's
// status: the request's name, else the object's name or generateName, else
// "Unknown".
func ForbiddenName(name string, object *unstructured.Unstructured) string {
	if name != "" {
		return name
	}
	if object != nil && object.Object != nil {
		if n := object.GetName(); n != "" {
			return n
		}
		if n := object.GetGenerateName(); n != "" {
			return n
		}
	}
	return "Unknown"
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
// request's objects to the matched version, evaluates them there (and
// converts a mutated result back). It must be safe for concurrent use and
// must not modify obj.
type Converter interface {
	Convert(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error)
}

// ConverterFunc adapts a function to a Converter.
type ConverterFunc func(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error)

// Convert calls f.
func (f ConverterFunc) Convert(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	return f(obj, to)
}

// Content is an object's content, nil for no object (a CREATE's old object,
// a DELETE's object).
func Content(u *unstructured.Unstructured) map[string]any {
	if u == nil {
		return nil
	}
	return u.Object
}
