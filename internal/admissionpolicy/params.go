package admissionpolicy

import (
	"context"
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
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
// safe for concurrent use.
type ParamSource interface {
	Params(kind schema.GroupVersionKind) (Params, error)
}

// ParamSourceFunc adapts a function to a ParamSource.
type ParamSourceFunc func(kind schema.GroupVersionKind) (Params, error)

// Params calls f.
func (f ParamSourceFunc) Params(kind schema.GroupVersionKind) (Params, error) { return f(kind) }

// Params are the objects of one param kind, as a client-go lister holds them.
type Params interface {
	// Namespaced tells whether the kind is namespaced.
	Namespaced() bool
	// Get returns the object of that name in namespace ("" for a
	// cluster-scoped kind); an object that does not exist is an apierrors
	// NotFound status. An error wrapping ErrParamsNotSynced says the params
	// are not yet known (kube-apiserver's informer not synced).
	Get(ctx context.Context, namespace, name string) (runtime.Object, error)
	// List returns the objects in namespace ("" for a cluster-scoped kind)
	// that selector selects, in the order kube-apiserver's lister would
	// (each is a separate invocation of the policy, in that order).
	List(ctx context.Context, namespace string, selector labels.Selector) ([]runtime.Object, error)
}

var (
	// ErrParamKindNotKnown is wrapped by a ParamSource's error for a kind it
	// does not know.
	ErrParamKindNotKnown = errors.New("param kind not known")
	// ErrParamsNotSynced is wrapped by a Params' error while its objects are
	// not yet known.
	ErrParamsNotSynced = errors.New("params not synced")
)

// NewParamObjects returns a ParamSource over a fixed set of objects (typed or
// *unstructured.Unstructured, with apiVersion and kind set), for offline use
// and tests. Every kind is known (a kind without objects has none); a kind is
// namespaced unless clusterScoped (nil: none) says otherwise. Objects are
// listed in the order given.
func NewParamObjects(clusterScoped func(schema.GroupVersionKind) bool, objects ...runtime.Object) ParamSource {
	byKind := map[schema.GroupVersionKind][]runtime.Object{}
	for _, o := range objects {
		gvk := o.GetObjectKind().GroupVersionKind()
		byKind[gvk] = append(byKind[gvk], o)
	}
	return ParamSourceFunc(func(kind schema.GroupVersionKind) (Params, error) {
		return &paramObjects{objects: byKind[kind], namespaced: clusterScoped == nil || !clusterScoped(kind), kind: kind}, nil
	})
}

type paramObjects struct {
	objects    []runtime.Object
	namespaced bool
	kind       schema.GroupVersionKind
}

func (p *paramObjects) Namespaced() bool { return p.namespaced }

func (p *paramObjects) Get(_ context.Context, namespace, name string) (runtime.Object, error) {
	for _, o := range p.objects {
		m, err := meta.Accessor(o)
		if err == nil && m.GetName() == name && m.GetNamespace() == namespace {
			return o, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: p.kind.Group, Resource: p.kind.Kind}, name)
}

func (p *paramObjects) List(_ context.Context, namespace string, selector labels.Selector) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, o := range p.objects {
		m, err := meta.Accessor(o)
		if err != nil || (namespace != "" && m.GetNamespace() != namespace) {
			continue
		}
		if selector.Matches(labels.Set(m.GetLabels())) {
			out = append(out, o)
		}
	}
	return out, nil
}

// Param is one resolved param of an invocation: its content for CEL and its
// identity (for reinvocation keys and traces).
type Param struct {
	Content         map[string]any
	Namespace, Name string
}

// ParamKindOf parses a paramKind as kube-apiserver's policy source does; an
// apiVersion that does not parse drops the policy (kube-apiserver logs it and
// leaves the policy out of its hooks).
func ParamKindOf(pk *admissionregistrationv1.ParamKind) (schema.GroupVersionKind, bool) {
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(pk.Kind), true
}

// ParamKindNotFoundError is kube-apiserver's configuration error for a
// paramKind its REST mapper does not know (reported as "failed to configure
// policy: ...").
func ParamKindNotFoundError(kind schema.GroupVersionKind) error {
	return fmt.Errorf("failed to find resource referenced by paramKind: '%v'", kind)
}

// CollectParams returns the params of one binding, in order, as
// kube-apiserver's CollectParams does: a nil entry is an invocation with
// params null. Errors are kube-apiserver's texts (reported as "failed to
// configure binding: ...").
func CollectParams(ctx context.Context, paramKind *admissionregistrationv1.ParamKind, source Params, ref *admissionregistrationv1.ParamRef, namespace string) ([]*Param, error) {
	if paramKind == nil || ref == nil {
		return []*Param{nil}, nil
	}
	var store string // the namespace to read params from
	if source.Namespaced() {
		store = namespace
		if ref.Namespace != "" {
			store = ref.Namespace
		} else if store == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	}
	var objs []runtime.Object
	switch {
	case ref.Namespace != "" && !source.Namespaced():
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
		}
		obj, err := source.Get(ctx, store, ref.Name)
		switch {
		case err == nil:
			objs = []runtime.Object{obj}
		case errors.Is(err, ErrParamsNotSynced):
			return nil, errNotSynced(paramKind)
		case apierrors.IsNotFound(err):
		default:
			return nil, err
		}
	case ref.Selector != nil:
		selector, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return nil, err
		}
		objs, err = source.List(ctx, store, selector)
		if errors.Is(err, ErrParamsNotSynced) {
			return nil, errNotSynced(paramKind)
		}
		if err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if len(objs) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admissionregistrationv1.DenyAction {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	out := make([]*Param, 0, len(objs))
	for _, o := range objs {
		p, err := newParam(o)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func errNotSynced(paramKind *admissionregistrationv1.ParamKind) error {
	return fmt.Errorf("paramKind kind `%v` not yet synced to use for admission", paramKind.String())
}

func newParam(o runtime.Object) (*Param, error) {
	if o == nil {
		return nil, nil
	}
	m, err := meta.Accessor(o)
	if err != nil {
		return nil, err
	}
	p := &Param{Namespace: m.GetNamespace(), Name: m.GetName()}
	if u, ok := o.(*unstructured.Unstructured); ok {
		p.Content = u.Object
	} else if p.Content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(o); err != nil {
		return nil, err
	}
	return p, nil
}
