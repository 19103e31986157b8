package admissionwebhook

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gatehouse-dev/gatehouse/internal/builtintypes"
	"github.com/gatehouse-dev/gatehouse/internal/typednormal"
)

// Request is one admission request, as kube-apiserver's admission chain
// hands it to its webhook plugins.
type Request struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation admissionv1.Operation
	// Kind is the kind of the request's object, Resource and SubResource
	// what it addresses, in the version of the request (the review's
	// requestKind, requestResource and requestSubResource).
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	SubResource string
	// Name is the object's name (empty for a create with generateName);
	// Namespace its namespace (empty for a cluster-scoped object).
	Name      string
	Namespace string
	// UserInfo is the requesting user.
	UserInfo authenticationv1.UserInfo
	// DryRun is true for a dry-run request.
	DryRun bool
	// Options are the operation's options (a CreateOptions, UpdateOptions,
	// DeleteOptions, with their apiVersion and kind set, or nil).
	Options runtime.Object
	// Object is the new object and OldObject the old one (nil when the
	// request has none). Neither is modified.
	Object, OldObject *unstructured.Unstructured
	// Normalized says that the objects of a built-in kind are already as
	// kube-apiserver holds them: the unstructured form of their Go type
	// (see validatingpolicy.Request.Normalized); the mutating webhooks'
	// dispatch then skips taking them through it.
	Normalized bool
	// WithoutMetadata says that the objects are of a kind without metadata
	// (an aggregated API's options kind, say), which kube-apiserver holds
	// typed and whose labels it cannot read: no objectSelector but an empty
	// one matches them. The built-in kinds without metadata (the options of
	// pods/exec, pods/attach, pods/portforward, the proxies) are known from
	// Kind without it.
	WithoutMetadata bool
	// Reinvocation carries the mutating webhooks' reinvocation state
	// between the two passes of the admission chain over the request; nil
	// when the caller does not reinvoke (see Reinvocation).
	Reinvocation *Reinvocation
}

// invocation is what one call of a webhook sends: the matched kind and
// resource, and the objects in that kind's version.
type invocation struct {
	kind     schema.GroupVersionKind
	resource schema.GroupVersionResource
	object   map[string]any
	old      map[string]any
	// as is the kind object is held as, when it differs from what its
	// content says (see versions.as); zero: its own.
	as schema.GroupVersionKind
	// encoded, if set, is shared by the invocations that send the same
	// objects (the validating webhooks called in one kind): the objects'
	// JSON, encoded by the first.
	encoded *encodedObjects
}

// encodedObjects are an invocation's objects as kube-apiserver encodes them
// into an AdmissionReview: the JSON of each as held (json.Marshal, as a
// RawExtension of the object encodes it), nil for none.
type encodedObjects struct {
	once        sync.Once
	object, old []byte
	err         error
}

// objectKind is the kind the object is held as.
func (inv *invocation) objectKind() schema.GroupVersionKind {
	if !inv.as.Empty() {
		return inv.as
	}
	return ownKind(&unstructured.Unstructured{Object: inv.object}, inv.kind)
}

// wire encodes AdmissionReviews and decodes the webhooks' answers with the
// codec kube-apiserver's webhook client manager uses (a legacy codec over a
// scheme of admission v1beta1 and v1), and takes built-in objects through
// their Go types, as kube-apiserver sends them.
type wire struct {
	codec    runtime.Codec
	builtins *runtime.Scheme
	// objects decodes patched objects as kube-apiserver's mutating
	// dispatcher does: JSON, not strict.
	objects *json.Serializer
	// normal is normalize's fast path for built-in kinds.
	normal *typednormal.Normalizer
}

func newWire() (*wire, error) {
	s := runtime.NewScheme()
	if err := admissionv1beta1.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := admissionv1.AddToScheme(s); err != nil {
		return nil, err
	}
	builtins, err := builtintypes.Scheme()
	if err != nil {
		return nil, err
	}
	return &wire{
		codec:    serializer.NewCodecFactory(s).LegacyCodec(admissionv1beta1.SchemeGroupVersion, admissionv1.SchemeGroupVersion),
		builtins: builtins,
		objects:  json.NewSerializerWithOptions(json.DefaultMetaFactory, builtins, builtins, json.SerializerOptions{}),
		normal:   typednormal.New(builtins),
	}, nil
}

// encodeObject is the JSON of object, held in kind gvk, as kube-apiserver
// encodes its versioned object for a webhook's patch: a built-in object
// through its Go type (held), in that type's field order.
func (w *wire) encodeObject(object map[string]any, gvk, as schema.GroupVersionKind) ([]byte, error) {
	if data, ok := w.fastHeldJSON(object, gvk, as); ok {
		return data, nil
	}
	obj, err := w.held(object, gvk, as)
	if err != nil {
		return nil, err
	}
	return stdjson.Marshal(obj)
}

// held is object, versioned in kind, as kube-apiserver holds it: when kind
// is built-in, typed, in the Go type of kind as (a webhook's patch may have
// changed it: kube-apiserver decodes the patched object as the kind it
// names), with the apiVersion and kind its content says; unstructured
// otherwise, whatever it names.
func (w *wire) held(object map[string]any, kind, as schema.GroupVersionKind) (runtime.Object, error) {
	if object == nil || !w.builtins.Recognizes(kind) {
		return w.typed(object, kind)
	}
	obj, err := w.typed(object, as)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind((&unstructured.Unstructured{Object: object}).GroupVersionKind())
	return obj, nil
}

// fastHeldJSON is json.Marshal of the object held (see held) for an object
// of a built-in kind, written from its content without the typed round
// trip when the Normalizer can (typednormal.AppendJSON); false otherwise,
// and the caller takes the object through its Go type, whose bytes and
// errors are kube-apiserver's.
func (w *wire) fastHeldJSON(object map[string]any, kind, as schema.GroupVersionKind) ([]byte, bool) {
	if object == nil || !w.builtins.Recognizes(kind) {
		return nil, false
	}
	return w.normal.AppendJSON(nil, as, object, (&unstructured.Unstructured{Object: object}).GroupVersionKind())
}

// errNoKnownVersion is kube-apiserver's error for a webhook whose
// admissionReviewVersions has neither v1 nor v1beta1.
var errNoKnownVersion = errors.New("webhook does not accept known AdmissionReview versions (v1, v1beta1)")

// typed returns object as kube-apiserver holds it: the Go type of a
// built-in kind, unstructured content otherwise; nil for nil.
func (w *wire) typed(object map[string]any, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if object == nil {
		return nil, nil
	}
	if !w.builtins.Recognizes(gvk) {
		return &unstructured.Unstructured{Object: object}, nil
	}
	obj, err := w.builtins.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object, obj); err != nil {
		return nil, fmt.Errorf("unable to convert unstructured object to %v: %w", gvk, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// normalize returns object as kube-apiserver holds it, in its unstructured
// form: a built-in kind's through its Go type, any other's through JSON (so
// numbers are int64 or float64, as decoded).
func (w *wire) normalize(object map[string]any, gvk schema.GroupVersionKind) (map[string]any, error) {
	if object == nil {
		return nil, nil
	}
	if w.builtins.Recognizes(gvk) {
		// The round trip through the Go type without reflection when the
		// Normalizer can; through the Go type (and its errors) otherwise.
		if out, ok := w.normal.Normalize(gvk, object); ok {
			return out, nil
		}
		obj, err := w.typed(object, gvk)
		if err != nil {
			return nil, err
		}
		return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	}
	data, err := (&unstructured.Unstructured{Object: object}).MarshalJSON()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return u.Object, nil
}

// review builds the AdmissionReview of one call in the first version of
// versions kube-apiserver supports, and the object its answer is decoded
// into.
func (w *wire) review(versions []string, uid types.UID, r *Request, inv *invocation) (request, response runtime.Object, err error) {
	for _, v := range versions {
		switch v {
		case admissionv1.SchemeGroupVersion.Version:
			req, err := w.v1Request(uid, r, inv)
			if err != nil {
				return nil, nil, err
			}
			return &admissionv1.AdmissionReview{Request: req}, &admissionv1.AdmissionReview{}, nil
		case admissionv1beta1.SchemeGroupVersion.Version:
			req, err := w.v1Request(uid, r, inv)
			if err != nil {
				return nil, nil, err
			}
			return &admissionv1beta1.AdmissionReview{Request: v1beta1Request(req)}, &admissionv1beta1.AdmissionReview{}, nil
		}
	}
	return nil, nil, errNoKnownVersion
}

// heldRaw is the invocation's objects as kube-apiserver holds them, as
// RawExtensions: of the JSON json.Marshal writes for the held object when
// fastHeldJSON writes it (which the review writes as is), of the held
// object otherwise; empty for none.
func (w *wire) heldRaw(inv *invocation) (object, old runtime.RawExtension, err error) {
	var ok bool
	if object.Raw, ok = w.fastHeldJSON(inv.object, inv.kind, inv.objectKind()); !ok {
		obj, err := w.held(inv.object, inv.kind, inv.objectKind())
		if err != nil {
			return object, old, err
		}
		if obj != nil {
			object.Object = obj
		}
	}
	oldKind := ownKind(&unstructured.Unstructured{Object: inv.old}, inv.kind)
	if old.Raw, ok = w.fastHeldJSON(inv.old, inv.kind, oldKind); !ok {
		obj, err := w.held(inv.old, inv.kind, oldKind)
		if err != nil {
			return object, old, err
		}
		if obj != nil {
			old.Object = obj
		}
	}
	return object, old, nil
}

// rawJSON is the JSON of r, a RawExtension of heldRaw: its Raw bytes, or
// its Object marshaled; nil for none.
func rawJSON(r runtime.RawExtension) ([]byte, error) {
	if r.Raw != nil || r.Object == nil {
		return r.Raw, nil
	}
	return stdjson.Marshal(r.Object)
}

// encodedObjects returns the JSON of the invocation's objects, encoded once
// for every invocation that shares inv.encoded.
func (w *wire) encodedObjects(inv *invocation) (object, old []byte, err error) {
	e := inv.encoded
	e.once.Do(func() {
		object, old, err := w.heldRaw(inv)
		if err != nil {
			e.err = err
			return
		}
		if e.object, e.err = rawJSON(object); e.err != nil {
			return
		}
		e.old, e.err = rawJSON(old)
	})
	return e.object, e.old, e.err
}

// v1Request is the request of an admission.k8s.io/v1 AdmissionReview.
func (w *wire) v1Request(uid types.UID, r *Request, inv *invocation) (*admissionv1.AdmissionRequest, error) {
	var object, oldObject, options runtime.RawExtension
	// A RawExtension of a nil interface encodes as null, as
	// kube-apiserver's do; one of Raw bytes as those bytes, which are what
	// its Object encodes as.
	if inv.encoded != nil {
		obj, old, err := w.encodedObjects(inv)
		if err != nil {
			return nil, err
		}
		object.Raw, oldObject.Raw = obj, old
	} else {
		var err error
		if object, oldObject, err = w.heldRaw(inv); err != nil {
			return nil, err
		}
	}
	dryRun := r.DryRun
	userInfo := authenticationv1.UserInfo{
		Username: r.UserInfo.Username,
		UID:      r.UserInfo.UID,
		Groups:   r.UserInfo.Groups,
		Extra:    map[string]authenticationv1.ExtraValue{},
	}
	for k, v := range r.UserInfo.Extra {
		userInfo.Extra[k] = v
	}
	if r.Options != nil {
		options.Object = r.Options
	}
	return &admissionv1.AdmissionRequest{
		UID:                uid,
		Kind:               metav1.GroupVersionKind{Group: inv.kind.Group, Version: inv.kind.Version, Kind: inv.kind.Kind},
		Resource:           metav1.GroupVersionResource{Group: inv.resource.Group, Version: inv.resource.Version, Resource: inv.resource.Resource},
		SubResource:        r.SubResource,
		RequestKind:        &metav1.GroupVersionKind{Group: r.Kind.Group, Version: r.Kind.Version, Kind: r.Kind.Kind},
		RequestResource:    &metav1.GroupVersionResource{Group: r.Resource.Group, Version: r.Resource.Version, Resource: r.Resource.Resource},
		RequestSubResource: r.SubResource,
		Name:               r.Name,
		Namespace:          r.Namespace,
		Operation:          r.Operation,
		UserInfo:           userInfo,
		Object:             object,
		OldObject:          oldObject,
		DryRun:             &dryRun,
		Options:            options,
	}, nil
}

// v1beta1Request is the same request in admission.k8s.io/v1beta1, whose
// fields are the same.
func v1beta1Request(r *admissionv1.AdmissionRequest) *admissionv1beta1.AdmissionRequest {
	return &admissionv1beta1.AdmissionRequest{
		UID:                r.UID,
		Kind:               r.Kind,
		Resource:           r.Resource,
		SubResource:        r.SubResource,
		RequestKind:        r.RequestKind,
		RequestResource:    r.RequestResource,
		RequestSubResource: r.RequestSubResource,
		Name:               r.Name,
		Namespace:          r.Namespace,
		Operation:          admissionv1beta1.Operation(r.Operation),
		UserInfo:           r.UserInfo,
		Object:             r.Object,
		OldObject:          r.OldObject,
		DryRun:             r.DryRun,
		Options:            r.Options,
	}
}

// encode is the body kube-apiserver posts: review as the codec encodes
// it, without the codec for the usual reviews (fastEncodeReview).
func (w *wire) encode(review runtime.Object) ([]byte, error) {
	if data, ok := fastEncodeReview(review); ok {
		return data, nil
	}
	return w.encodeExact(review)
}

// encodeExact is review as the codec encodes it.
func (w *wire) encodeExact(review runtime.Object) ([]byte, error) {
	return runtime.Encode(w.codec, review)
}
