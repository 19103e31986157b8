package mutation

import (
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// The seams between the three parts of the engine: compilation and
// evaluation of a policy's expressions (which produce a patch from an
// evalInput), application of a patch to an object (which produces the next
// object), and dispatch (which matches a request to policies and bindings,
// resolves params, runs each invocation's mutations in order, and applies
// failure policies and reinvocation).

// evalInput is what one evaluation of a policy's expressions sees: the CEL
// variables object, oldObject, request, params, namespaceObject and
// authorizer of kube-apiserver's mutating policy activation.
type evalInput struct {
	// request is `request`: the AdmissionRequest as kube-apiserver builds it
	// for a policy, with the matched (possibly equivalent) kind and
	// resource, and without uid, object and oldObject.
	request *admissionv1.AdmissionRequest
	// object is `object` as it stands after the mutations run so far, and
	// oldObject is `oldObject`: unstructured content; nil is null.
	object, oldObject map[string]any
	// params is `params`, unstructured; nil is null.
	params map[string]any
	// namespace is `namespaceObject`; nil is null (cluster-scoped objects,
	// Namespace objects themselves, and always within match conditions).
	namespace *corev1.Namespace
	// authorizer backs `authorizer` and `authorizer.requestResource`; nil
	// leaves them undefined.
	authorizer matchcond.Authorizer
	// typedView presents object and oldObject as kube-apiserver's
	// schemaless typed view of a built-in kind's Go object, rather than as
	// unstructured content: kube-apiserver switches to it once match
	// conditions have evaluated on the object. Values taken from it do not
	// convert to JSON Patch values.
	typedView bool
}

// patch is what one mutation's expression evaluated to. Exactly one of its
// fields is set.
type patch struct {
	// applyConfiguration is the Object an ApplyConfiguration expression
	// returned, converted as kube-apiserver converts it before typing it
	// with the schema (dynamic.ObjectVal's Value(): map[string]any whose
	// values are what structured-merge-diff then sees), after the check
	// that nested Object type names follow the field path.
	applyConfiguration map[string]any
	// jsonPatch is the JSON array of operations that kube-apiserver builds
	// from a JSONPatch expression's list (op and path always, from when not
	// empty, value when set), ready for the JSON Patch library.
	jsonPatch []byte
}
