package admissionwebhook

import (
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/admissionrequest"
)

// NewRequest returns the request of an operation op on resource (the
// request's resource, in the version of the objects) whose new object is
// obj and old object oldObj, either of which may be nil: typed objects (the
// k8s.io/api types, or any Go type with its apiVersion and kind) or
// unstructured ones. For the common case, a CREATE of a typed Pod:
//
//	req, err := admissionwebhook.NewRequest(admissionv1.Create, corev1.SchemeGroupVersion.WithResource("pods"), pod, nil)
//
// It is validatingpolicy.NewRequest's (the objects converted and
// Normalized, Kind, Name and Namespace from them), and also says
// WithoutMetadata for a typed object whose Go type has no metadata (the
// options of a CONNECT, say), as kube-apiserver, which holds it typed,
// cannot read its labels. SubResource, UserInfo, DryRun, Options and
// Reinvocation are left for the caller to set. The objects are not
// modified.
func NewRequest(op admissionv1.Operation, resource schema.GroupVersionResource, obj, oldObj runtime.Object) (*Request, error) {
	objs, err := admissionrequest.FromObjects(resource, obj, oldObj)
	if err != nil {
		return nil, err
	}
	r := &Request{Operation: op, Kind: objs.Kind, Resource: resource, Name: objs.Name, Namespace: objs.Namespace,
		Object: objs.Object, OldObject: objs.OldObject, Normalized: objs.Normalized}
	for _, o := range []runtime.Object{obj, oldObj} {
		if _, unstructured := o.(runtime.Unstructured); o == nil || unstructured {
			continue
		}
		if _, err := meta.Accessor(o); err != nil {
			r.WithoutMetadata = true
		}
	}
	return r, nil
}
