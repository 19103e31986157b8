// Package admissionrequest builds the objects of an admission request from
// a caller's objects, typed (the k8s.io/api types, or any Go type with its
// apiVersion and kind) or unstructured, once for every engine's request
// constructor (validatingpolicy.NewRequest, mutation.NewRequest, and
// admissionwebhook's).
package admissionrequest

import (
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/builtintypes"
)

// Objects are the objects of one admission request as the engines take
// them, with what they tell of the request.
type Objects struct {
	// Kind is the objects' kind: the new object's, or the old one's when
	// there is no new one.
	Kind schema.GroupVersionKind
	// Name and Namespace are the new object's (the old one's when there is
	// no new one) metadata.name and metadata.namespace; a request on
	// namespaces (core group) carries the namespace's own name as
	// Namespace, as kube-apiserver's do.
	Name, Namespace string
	// Object and OldObject are the objects, unstructured; nil for nil.
	Object, OldObject *unstructured.Unstructured
	// Normalized is true when no object given was unstructured: the
	// unstructured form of a Go object is what kube-apiserver holds for
	// a built-in kind, so the engines need not take it through its Go type
	// again (the engines' Request.Normalized).
	Normalized bool
}

// FromObjects returns the objects of a request on resource (the request's
// resource, in the objects' version) whose new object is obj and old
// object oldObj; either may be nil (a nil interface or a nil pointer), not
// both.
//
// A typed object is converted with runtime.DefaultUnstructuredConverter
// (ToUnstructured) and given its apiVersion and kind: those of its
// TypeMeta, or, when they are empty, those under which the built-in scheme
// (internal/builtintypes) registers its Go type. An unstructured object
// (runtime.Unstructured) is taken as it is, not copied nor normalised; a
// *unstructured.Unstructured is returned itself. The objects are never
// modified.
//
// The error says which object and why: a kind that cannot be known (no
// apiVersion and kind, and a Go type the built-in scheme does not know or
// registers under several kinds), a TypeMeta that names a kind the Go type
// is not, objects of two kinds, an object that does not convert, or no
// object at all.
func FromObjects(resource schema.GroupVersionResource, obj, oldObj runtime.Object) (Objects, error) {
	var out Objects
	obj, oldObj = nilIfNil(obj), nilIfNil(oldObj)
	if obj == nil && oldObj == nil {
		return out, fmt.Errorf("no object and no old object: the request's kind cannot be known")
	}
	out.Normalized = true
	var err error
	var kind, oldKind schema.GroupVersionKind
	var typed bool
	if obj != nil {
		if out.Object, kind, typed, err = unstructuredOf(obj); err != nil {
			return Objects{}, fmt.Errorf("object: %w", err)
		}
		out.Normalized = out.Normalized && typed
	}
	if oldObj != nil {
		if out.OldObject, oldKind, typed, err = unstructuredOf(oldObj); err != nil {
			return Objects{}, fmt.Errorf("old object: %w", err)
		}
		out.Normalized = out.Normalized && typed
	}
	first := out.Object
	out.Kind = kind
	if first == nil {
		first, out.Kind = out.OldObject, oldKind
	} else if oldObj != nil && oldKind != kind {
		return Objects{}, fmt.Errorf("the object is a %s and the old object a %s", kindString(kind), kindString(oldKind))
	}
	out.Name, out.Namespace = first.GetName(), first.GetNamespace()
	if out.Namespace == "" && resource.Group == "" && resource.Resource == "namespaces" {
		out.Namespace = out.Name
	}
	return out, nil
}

// unstructuredOf is obj unstructured, its kind, and whether it was typed.
func unstructuredOf(obj runtime.Object) (*unstructured.Unstructured, schema.GroupVersionKind, bool, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		uu, ok := u.(*unstructured.Unstructured)
		if !ok {
			uu = &unstructured.Unstructured{Object: u.UnstructuredContent()}
		}
		gvk := uu.GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" {
			return nil, gvk, false, fmt.Errorf("cannot tell the kind of the unstructured object: apiVersion %q and kind %q", uu.GetAPIVersion(), uu.GetKind())
		}
		return uu, gvk, false, nil
	}
	gvk, err := kindOf(obj)
	if err != nil {
		return nil, gvk, true, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, gvk, true, fmt.Errorf("cannot convert %T to unstructured: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	return u, gvk, true, nil
}

// kindOf is a typed object's kind: its TypeMeta's, else the one the
// built-in scheme registers its Go type under.
func kindOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	scheme, err := builtintypes.Scheme()
	if err != nil {
		return gvk, err
	}
	kinds, _, schemeErr := scheme.ObjectKinds(obj)
	if gvk.Kind != "" && gvk.Version != "" {
		if schemeErr == nil && !slices.Contains(kinds, gvk) {
			return gvk, fmt.Errorf("%T is a %s, not the %s its apiVersion and kind say", obj, kindString(kinds[0]), kindString(gvk))
		}
		return gvk, nil
	}
	switch {
	case schemeErr != nil:
		return gvk, fmt.Errorf("cannot tell the kind of %T: its apiVersion and kind are not set and it is not the Go type of a built-in kind", obj)
	case len(kinds) > 1:
		return gvk, fmt.Errorf("cannot tell the kind of %T: its apiVersion and kind are not set and its Go type is registered as %d kinds", obj, len(kinds))
	}
	return kinds[0], nil
}

// kindString is a kind as kubectl names it ("apps/v1 Deployment").
func kindString(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + " " + gvk.Kind
}

// nilIfNil is obj, or nil for a nil pointer in an interface.
func nilIfNil(obj runtime.Object) runtime.Object {
	if obj == nil {
		return nil
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return obj
}
