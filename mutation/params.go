package mutation

import (
	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ParamSource gives the params of a policy's paramKind. It stands for
// kube-apiserver's REST mapper and param informers: Params resolves a kind
// to its Params, or fails (conventionally with an error wrapping
// ErrParamKindNotKnown) when the kind is not served, which fails every
// request the policy matches with kube-apiserver's configuration error
// "failed to find resource referenced by paramKind: '<kind>'". It is asked
// once per request and matching policy that has a paramKind, and must be
// safe for concurrent use. It is the same type as validatingpolicy's.
type ParamSource = admissionpolicy.ParamSource

// ParamSourceFunc adapts a function to a ParamSource.
type ParamSourceFunc = admissionpolicy.ParamSourceFunc

// Params are the objects of one param kind, as a client-go lister holds
// them: Namespaced, Get (a missing object is an apierrors NotFound, an error
// wrapping ErrParamsNotSynced says they are not yet known) and List (in the
// order kube-apiserver's lister would, each a separate invocation).
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
// *unstructured.Unstructured, with apiVersion and kind set), for offline use
// and tests. Every kind is known (a kind without objects has none); a kind is
// namespaced unless clusterScoped (nil: none) says otherwise. Objects are
// listed in the order given.
func NewParamObjects(clusterScoped func(schema.GroupVersionKind) bool, objects ...runtime.Object) ParamSource {
	return admissionpolicy.NewParamObjects(clusterScoped, objects...)
}
