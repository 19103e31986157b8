package admission

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
)

// normalized is req with its objects as kube-apiserver holds them, once
// for the whole chain: kube-apiserver decodes a request's object into its
// Go type before admission and every plugin reads that one value, so the
// objects of a built-in kind that the caller did not give Normalized are
// taken through their Go type here (typednormal's plan, sharing whatever
// is already normal), and the engines skip that work. The caller's objects
// are not modified, and the Result still returns the caller's object when
// nothing changed it. A request whose objects the Go type refuses is left
// as it is, for each engine to report as kube-apiserver does.
func normalized(req *Request) *Request {
	if req.Normalized || req.WithoutMetadata || (req.Object == nil && req.OldObject == nil) || !mutationpatch.IsBuiltin(req.Kind) {
		return req
	}
	object, ok := normalizedObject(req.Object, req)
	if !ok {
		return req
	}
	oldObject, ok := normalizedObject(req.OldObject, req)
	if !ok {
		return req
	}
	n := *req
	n.Object, n.OldObject, n.Normalized = object, oldObject, true
	return &n
}

// normalizedObject is obj normalized as req's kind; false if its Go type
// refuses it or it names another kind (which the engines convert).
func normalizedObject(obj *unstructured.Unstructured, req *Request) (*unstructured.Unstructured, bool) {
	if obj == nil || obj.Object == nil {
		return obj, true
	}
	if gvk := obj.GroupVersionKind(); !gvk.Empty() && gvk != req.Kind {
		return nil, false
	}
	out, unchanged, err := mutationpatch.NormalizeShared(obj.Object, req.Kind)
	if err != nil {
		return nil, false
	}
	if unchanged {
		return obj, true
	}
	return &unstructured.Unstructured{Object: out}, true
}

// admittedObject is the object the validating plugins see: the mutated
// object, or the request's (normalized) own when nothing changed it.
func admittedObject(req *Request, res *Result) *unstructured.Unstructured {
	if res.Changed {
		return res.Object
	}
	return req.Object
}
