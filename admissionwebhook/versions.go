package admissionwebhook

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// versions are a request's objects as kube-apiserver's mutating dispatcher
// holds them while it calls the webhooks one after another (its
// VersionedAttributes): the request's object in the request's kind (the
// admission attributes' object, replaced when a patched object is converted
// back), and the objects in the kind of the last webhook matched, which the
// webhooks see and patch. Conversions happen as kube-apiserver makes them:
// the first time a kind is needed (to call a webhook, or to evaluate its
// match conditions), and when the kind changes, the patched object is first
// converted back to the request's kind.
type versions struct {
	d *Dispatcher
	r *Request
	// object is the attributes' object: r.Object, taken through its Go type
	// on first use (normalized), then replaced by each patched object
	// converted back.
	object     *unstructured.Unstructured
	normalized bool
	// kind is the kind of versioned and old; zero until the first
	// conversion.
	kind schema.GroupVersionKind
	// as is the kind versioned is held as: its Go type's for a built-in
	// kind (whatever its content says: a patch may have removed its
	// apiVersion or kind), its own for unstructured content.
	as           schema.GroupVersionKind
	versioned    *unstructured.Unstructured
	versionedOld *unstructured.Unstructured
	hasVersioned bool
	dirty        bool
}

func newVersions(d *Dispatcher, r *Request) *versions {
	return &versions{d: d, r: r, object: r.Object, normalized: r.Normalized}
}

// normalize takes the attributes' object through its Go type, once.
func (v *versions) normalize() error {
	if v.normalized || v.object == nil {
		return nil
	}
	o, err := v.d.wire.normalize(v.object.Object, ownKind(v.object, v.r.Kind))
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	v.object, v.normalized = &unstructured.Unstructured{Object: o}, true
	return nil
}

// current is the object the predicates see: the versioned one once there
// is one, the attributes' otherwise (kube-apiserver's dispatcher matches
// each webhook against its versioned attributes once it has them).
func (v *versions) current() *unstructured.Unstructured {
	if v.hasVersioned && v.versioned != nil {
		return v.versioned
	}
	return v.object
}

// to makes kind the versioned kind, converting as kube-apiserver's
// VersionedAttribute does; its error is an internal error (which callers
// wrap once more, as kube-apiserver's mutating dispatcher does).
func (v *versions) to(kind schema.GroupVersionKind) error {
	if err := v.normalize(); err != nil {
		return err
	}
	if v.hasVersioned && v.kind == kind {
		return nil
	}
	if v.hasVersioned && v.dirty && v.versioned != nil {
		// The patched object back into the attributes' object first.
		back, err := v.back()
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		v.object = back
	}
	old, err := v.d.convert(v.r.OldObject, v.r.Kind, kind)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	obj, err := v.d.convert(v.object, v.r.Kind, kind)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if obj != nil && obj != v.object {
		// Converted: as kube-apiserver holds it, through its Go type.
		o, err := v.d.wire.normalize(obj.Object, kind)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		obj = &unstructured.Unstructured{Object: o}
	}
	v.kind, v.versioned, v.versionedOld, v.hasVersioned, v.dirty = kind, obj, old, true, false
	v.as = ownKind(obj, kind)
	return nil
}

// patched records a webhook's patched object, held as kind as.
func (v *versions) patched(obj *unstructured.Unstructured, as schema.GroupVersionKind) {
	v.versioned, v.as, v.dirty = obj, as, true
}

// back converts the patched object back to the request's kind, from the
// kind it now says it is (a patch may have changed it), as kube-apiserver's
// object convertor converts the versioned object into the attributes' one.
func (v *versions) back() (*unstructured.Unstructured, error) {
	// From the kind it is held as: a built-in object's Go type, a custom
	// resource's apiVersion and kind exactly (a patch may empty them).
	if v.as == v.r.Kind {
		return v.versioned, nil
	}
	out, err := v.d.convertFrom(v.versioned, v.as, v.r.Kind)
	if err != nil {
		return nil, err
	}
	if !v.d.wire.builtins.Recognizes(v.r.Kind) && v.as.Kind != v.r.Kind.Kind {
		// kube-apiserver converts a custom resource into the request's
		// object with the CRD's converter, which converts to its group
		// and version and keeps the kind (a patch may have changed it);
		// only a conversion to a matched kind (ConvertToGVK) sets it.
		out = out.DeepCopy()
		out.SetKind(v.as.Kind)
	}
	o, err := v.d.wire.normalize(out.Object, ownKind(out, v.r.Kind))
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: o}, nil
}

// result is the admitted object: the patched object converted back to the
// request's kind. kube-apiserver returns that conversion's error as it is,
// which its endpoints turn into a 500 without reason: so does result.
func (v *versions) result() (*unstructured.Unstructured, error) {
	if !v.hasVersioned || !v.dirty || v.versioned == nil {
		return v.object, nil
	}
	out, err := v.back()
	if err != nil {
		return nil, plainError(err)
	}
	if v.d.wire.builtins.Recognizes(v.r.Kind) && out.GroupVersionKind() != v.r.Kind {
		// A built-in object whose patch removed its apiVersion or kind: it
		// is one of the request's kind (kube-apiserver's is typed), and
		// says so to the caller.
		out = out.DeepCopy()
		out.SetGroupVersionKind(v.r.Kind)
	}
	return out, nil
}

// conditionObjects is admissionmanifest.Request.Versioned: the objects the
// match conditions of a webhook matched in kind see.
func (v *versions) conditionObjects(kind schema.GroupVersionKind) (runtime.Object, runtime.Object, error) {
	if err := v.to(kind); err != nil {
		return nil, nil, err
	}
	return objectOrNil(v.versioned), objectOrNil(v.versionedOld), nil
}

// objectOrNil is obj as a runtime.Object, nil (not a typed nil) for nil.
func objectOrNil(obj *unstructured.Unstructured) runtime.Object {
	if obj == nil {
		return nil
	}
	return obj
}

// ownKind is the kind obj says it is, fallback where it says none (or is
// nil): kube-apiserver's objects carry their kind, and a patch may change
// it.
func ownKind(obj *unstructured.Unstructured, fallback schema.GroupVersionKind) schema.GroupVersionKind {
	if obj == nil {
		return fallback
	}
	apiVersion, _, _ := unstructured.NestedString(obj.Object, "apiVersion")
	kind, _, _ := unstructured.NestedString(obj.Object, "kind")
	if apiVersion == "" || kind == "" {
		return fallback
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return fallback
	}
	return gv.WithKind(kind)
}

// plainError is the status a client receives for an error that is not a
// status (kube-apiserver's endpoints' ErrorToAPIStatus): 500, no reason,
// the error's text.
func plainError(err error) *apierrors.StatusError {
	var status *apierrors.StatusError
	if errors.As(err, &status) && status == err {
		return status
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     500,
		Message:  err.Error(),
	}}
}

// errNoConverter is the error of a conversion without a Converter.
func errNoConverter(from, to schema.GroupVersionKind) error {
	return fmt.Errorf("unable to convert %v to %v: no Converter", from, to)
}
