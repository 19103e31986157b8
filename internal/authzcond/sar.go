package authzcond

import (
	"github.com/gatehouse-dev/gatehouse/internal/celdecl"

	"github.com/google/cel-go/common/types"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The runtime value of the authorization `request` variable is the caller's
// SubjectAccessReviewSpec, read field by field through the getters declared
// below. kube-apiserver instead copies the spec into an unstructured map for
// every request; what an expression can observe of that map (which keys
// exist, "no such key" errors, a nil extra as {}, the selectors only when a
// condition names them, a raw selector replacing the requirements) is
// reproduced here without building it. When an expression uses a whole
// object as a value (dyn(request), request == ..., [request]), the object
// behaves as exactly kube-apiserver's map (see mapView).

const (
	sarVarName           = "request"
	fieldSelectorVarName = "fieldSelector"
	labelSelectorVarName = "labelSelector"
)

// sarValue is the value of `request` during one evaluation.
type sarValue struct {
	mapView
	spec       *authorizationv1.SubjectAccessReviewSpec
	res        sarResourceValue
	nonRes     nonResourceValue
	groups     stringListView
	emptyExtra map[string]authorizationv1.ExtraValue
	// handled is spec.authorizationOptions.handledDecisionTypes, which
	// k8s.io/api v0.37's spec cannot hold: set when the review offers
	// conditional decisions (kube-apiserver 1.38's ConditionsAwareAuthorize
	// of a webhook with a conditionsReview), nil when it has no
	// authorizationOptions.
	handled []string
}

// sarResourceValue is the value of request.resourceAttributes.
type sarResourceValue struct {
	mapView
	attrs             *authorizationv1.ResourceAttributes
	withFieldSelector bool
	withLabelSelector bool
}

// nonResourceValue is the value of request.nonResourceAttributes.
type nonResourceValue struct {
	mapView
	attrs *authorizationv1.NonResourceAttributes
}

// newSARValue returns an empty value, to be pointed at a spec with reset.
func newSARValue(adapter types.Adapter, emptyExtra map[string]authorizationv1.ExtraValue) *sarValue {
	v := &sarValue{emptyExtra: emptyExtra}
	v.mapView = mapView{owner: v, adapter: adapter}
	v.res.mapView = mapView{owner: &v.res, adapter: adapter}
	v.nonRes.mapView = mapView{owner: &v.nonRes, adapter: adapter}
	v.groups.adapter = adapter
	return v
}

// reset points v at a spec for one evaluation; nil forgets the last one.
func (v *sarValue) reset(spec *authorizationv1.SubjectAccessReviewSpec, handled []string, uses selectorUse) {
	v.built, v.res.built, v.nonRes.built, v.groups.built = nil, nil, nil, nil
	v.spec = spec
	v.handled = handled
	if spec == nil {
		v.res.attrs, v.nonRes.attrs, v.groups.elems = nil, nil, nil
		return
	}
	v.res.attrs = spec.ResourceAttributes
	v.res.withFieldSelector, v.res.withLabelSelector = uses.field, uses.label
	v.nonRes.attrs = spec.NonResourceAttributes
	v.groups.elems = spec.Groups
}

func (v *sarValue) extra() map[string]authorizationv1.ExtraValue {
	if v.spec.Extra == nil {
		return v.emptyExtra
	}
	return v.spec.Extra
}

func (r *sarResourceValue) fieldSelector() (map[string]any, bool) {
	if !r.withFieldSelector || r.attrs.FieldSelector == nil {
		return nil, false
	}
	return selectorUnstructured(r.attrs.FieldSelector.RawSelector, r.attrs.FieldSelector.Requirements, func(q metav1.FieldSelectorRequirement) (string, any, []string) {
		return q.Key, q.Operator, q.Values
	})
}

func (r *sarResourceValue) labelSelector() (map[string]any, bool) {
	if !r.withLabelSelector || r.attrs.LabelSelector == nil {
		return nil, false
	}
	return selectorUnstructured(r.attrs.LabelSelector.RawSelector, r.attrs.LabelSelector.Requirements, func(q metav1.LabelSelectorRequirement) (string, any, []string) {
		return q.Key, q.Operator, q.Values
	})
}

func (r *sarResourceValue) hasFieldSelector() bool {
	fs := r.attrs.FieldSelector
	return r.withFieldSelector && fs != nil && (fs.RawSelector != "" || len(fs.Requirements) > 0)
}

func (r *sarResourceValue) hasLabelSelector() bool {
	ls := r.attrs.LabelSelector
	return r.withLabelSelector && ls != nil && (ls.RawSelector != "" || len(ls.Requirements) > 0)
}

// selectorUnstructured is kube-apiserver's form of a field or label selector:
// {rawSelector} if there is a raw selector (it overwrites the requirements),
// otherwise {requirements} if there are any, otherwise absent.
func selectorUnstructured[R any](raw string, reqs []R, split func(R) (string, any, []string)) (map[string]any, bool) {
	if raw != "" {
		return map[string]any{"rawSelector": raw}, true
	}
	if len(reqs) == 0 {
		return nil, false
	}
	out := make([]map[string]any, 0, len(reqs))
	for _, q := range reqs {
		key, op, values := split(q)
		out = append(out, map[string]any{"key": key, "operator": op, "values": values})
	}
	return map[string]any{"requirements": out}, true
}

// unstructured is kube-apiserver's unstructured request
// (convertObjectToUnstructured).
func (v *sarValue) unstructured() any {
	m := map[string]any{
		"user":   v.spec.User,
		"groups": v.spec.Groups,
		"uid":    string(v.spec.UID),
		"extra":  v.extra(),
	}
	if v.spec.ResourceAttributes != nil {
		m["resourceAttributes"] = v.res.unstructured()
	}
	if v.spec.NonResourceAttributes != nil {
		m["nonResourceAttributes"] = v.nonRes.unstructured()
	}
	if v.handled != nil {
		m[authorizationOptionsName] = v.authorizationOptions()
	}
	return m
}

// authorizationOptions is kube-apiserver's unstructured
// spec.authorizationOptions.
func (v *sarValue) authorizationOptions() map[string]any {
	return map[string]any{"handledDecisionTypes": v.handled}
}

func (r *sarResourceValue) unstructured() any {
	a := r.attrs
	m := map[string]any{
		"namespace":   a.Namespace,
		"verb":        a.Verb,
		"group":       a.Group,
		"version":     a.Version,
		"resource":    a.Resource,
		"subresource": a.Subresource,
		"name":        a.Name,
	}
	if fs, ok := r.fieldSelector(); ok {
		m[fieldSelectorVarName] = fs
	}
	if ls, ok := r.labelSelector(); ok {
		m[labelSelectorVarName] = ls
	}
	return m
}

func (n *nonResourceValue) unstructured() any {
	return map[string]string{"verb": n.attrs.Verb, "path": n.attrs.Path}
}

// authorizationOptionsName is the spec's field that offers conditional
// decisions.
const authorizationOptionsName = "authorizationOptions"

// sarDecl declares kubernetes.SubjectAccessReviewSpec and its nested types
// with kube-apiserver's names and field types (buildRequestType), plus the
// typed getters. withOptions declares spec.authorizationOptions, as
// kube-apiserver 1.38 does with the gate ConditionalAuthorization on.
func sarDecl(adapter types.Adapter, withOptions bool) *celdecl.Decl {
	str := celdecl.ScalarDecl(types.StringType)
	strList := func() *celdecl.Decl { return celdecl.ListDecl(str) }

	type res = *sarResourceValue
	type nonRes = *nonResourceValue
	type req = *sarValue

	resString := func(name string, read func(*authorizationv1.ResourceAttributes) string) celdecl.DeclField {
		return celdecl.DeclField{Name: name, Type: str,
			Get:   getter(adapter, name, func(r res) (any, error) { return types.String(read(r.attrs)), nil }),
			IsSet: tester(adapter, name, always[res]),
		}
	}
	nonResString := func(name string, read func(*authorizationv1.NonResourceAttributes) string) celdecl.DeclField {
		return celdecl.DeclField{Name: name, Type: str,
			Get:   getter(adapter, name, func(n nonRes) (any, error) { return types.String(read(n.attrs)), nil }),
			IsSet: tester(adapter, name, always[nonRes]),
		}
	}
	selectorDecl := func(name string) *celdecl.Decl {
		requirement := celdecl.ObjectDecl("kubernetes.SelectorRequirement",
			celdecl.DeclField{Name: "key", Type: str},
			celdecl.DeclField{Name: "operator", Type: str},
			celdecl.DeclField{Name: "values", Type: strList()},
		)
		return celdecl.ObjectDecl(name,
			celdecl.DeclField{Name: "rawSelector", Type: str},
			celdecl.DeclField{Name: "requirements", Type: celdecl.ListDecl(requirement)},
		)
	}

	resourceAttributes := celdecl.ObjectDecl("kubernetes.ResourceAttributes",
		resString("namespace", func(a *authorizationv1.ResourceAttributes) string { return a.Namespace }),
		resString("verb", func(a *authorizationv1.ResourceAttributes) string { return a.Verb }),
		resString("group", func(a *authorizationv1.ResourceAttributes) string { return a.Group }),
		resString("version", func(a *authorizationv1.ResourceAttributes) string { return a.Version }),
		resString("resource", func(a *authorizationv1.ResourceAttributes) string { return a.Resource }),
		resString("subresource", func(a *authorizationv1.ResourceAttributes) string { return a.Subresource }),
		resString("name", func(a *authorizationv1.ResourceAttributes) string { return a.Name }),
		celdecl.DeclField{Name: fieldSelectorVarName, Type: selectorDecl("kubernetes.FieldSelectorAttributes"),
			Get: getter(adapter, fieldSelectorVarName, func(r res) (any, error) {
				if fs, ok := r.fieldSelector(); ok {
					return fs, nil
				}
				return nil, noSuchKey(fieldSelectorVarName)
			}),
			IsSet: tester(adapter, fieldSelectorVarName, res.hasFieldSelector),
		},
		celdecl.DeclField{Name: labelSelectorVarName, Type: selectorDecl("kubernetes.LabelSelectorAttributes"),
			Get: getter(adapter, labelSelectorVarName, func(r res) (any, error) {
				if ls, ok := r.labelSelector(); ok {
					return ls, nil
				}
				return nil, noSuchKey(labelSelectorVarName)
			}),
			IsSet: tester(adapter, labelSelectorVarName, res.hasLabelSelector),
		},
	)
	nonResourceAttributes := celdecl.ObjectDecl("kubernetes.NonResourceAttributes",
		nonResString("path", func(n *authorizationv1.NonResourceAttributes) string { return n.Path }),
		nonResString("verb", func(n *authorizationv1.NonResourceAttributes) string { return n.Verb }),
	)

	fields := []celdecl.DeclField{
		{Name: "resourceAttributes", Type: resourceAttributes,
			Get: getter(adapter, "resourceAttributes", func(v req) (any, error) {
				if v.spec.ResourceAttributes == nil {
					return nil, noSuchKey("resourceAttributes")
				}
				return &v.res, nil
			}),
			IsSet: tester(adapter, "resourceAttributes", func(v req) bool { return v.spec.ResourceAttributes != nil }),
		},
		{Name: "nonResourceAttributes", Type: nonResourceAttributes,
			Get: getter(adapter, "nonResourceAttributes", func(v req) (any, error) {
				if v.spec.NonResourceAttributes == nil {
					return nil, noSuchKey("nonResourceAttributes")
				}
				return &v.nonRes, nil
			}),
			IsSet: tester(adapter, "nonResourceAttributes", func(v req) bool { return v.spec.NonResourceAttributes != nil }),
		},
		{Name: "user", Type: str,
			Get:   getter(adapter, "user", func(v req) (any, error) { return types.String(v.spec.User), nil }),
			IsSet: tester(adapter, "user", always[req]),
		},
		{Name: "groups", Type: strList(),
			Get:   getter(adapter, "groups", func(v req) (any, error) { return &v.groups, nil }),
			IsSet: tester(adapter, "groups", always[req]),
		},
		{Name: "extra", Type: celdecl.MapDecl(str, strList()),
			Get:   getter(adapter, "extra", func(v req) (any, error) { return v.extra(), nil }),
			IsSet: tester(adapter, "extra", always[req]),
		},
		{Name: "uid", Type: str,
			Get:   getter(adapter, "uid", func(v req) (any, error) { return types.String(string(v.spec.UID)), nil }),
			IsSet: tester(adapter, "uid", always[req]),
		},
	}
	if withOptions {
		options := celdecl.ObjectDecl("kubernetes.AuthorizationOptions",
			celdecl.DeclField{Name: "handledDecisionTypes", Type: strList()},
		)
		fields = append(fields, celdecl.DeclField{Name: authorizationOptionsName, Type: options,
			Get: getter(adapter, authorizationOptionsName, func(v req) (any, error) {
				if v.handled == nil {
					return nil, noSuchKey(authorizationOptionsName)
				}
				return v.authorizationOptions(), nil
			}),
			IsSet: tester(adapter, authorizationOptionsName, func(v req) bool { return v.handled != nil }),
		})
	}
	return celdecl.ObjectDecl("kubernetes.SubjectAccessReviewSpec", fields...)
}

// withinSizeBound reports whether every string, list and map of the request
// that an expression can see has at most sizeBound elements (bytes for
// strings), so that the fast path's cost proofs hold.
func (v *sarValue) withinSizeBound() bool {
	return specWithinSizeBound(v.spec, selectorUse{field: v.res.withFieldSelector, label: v.res.withLabelSelector})
}

// specWithinSizeBound is withinSizeBound of a spec, for conditions that use
// the selectors uses tells.
func specWithinSizeBound(s *authorizationv1.SubjectAccessReviewSpec, uses selectorUse) bool {
	if !small(s.User, string(s.UID)) || !smallStrings(s.Groups) || len(s.Extra) > sizeBound {
		return false
	}
	for k, vals := range s.Extra {
		if len(k) > sizeBound || !smallStrings(vals) {
			return false
		}
	}
	if n := s.NonResourceAttributes; n != nil && !small(n.Path, n.Verb) {
		return false
	}
	a := s.ResourceAttributes
	if a == nil {
		return true
	}
	if !small(a.Namespace, a.Verb, a.Group, a.Version, a.Resource, a.Subresource, a.Name) {
		return false
	}
	if fs := a.FieldSelector; uses.field && fs != nil {
		if !small(fs.RawSelector) || len(fs.Requirements) > sizeBound {
			return false
		}
		for _, q := range fs.Requirements {
			if !small(q.Key, string(q.Operator)) || !smallStrings(q.Values) {
				return false
			}
		}
	}
	if ls := a.LabelSelector; uses.label && ls != nil {
		if !small(ls.RawSelector) || len(ls.Requirements) > sizeBound {
			return false
		}
		for _, q := range ls.Requirements {
			if !small(q.Key, string(q.Operator)) || !smallStrings(q.Values) {
				return false
			}
		}
	}
	return true
}

func small(ss ...string) bool {
	for _, s := range ss {
		if len(s) > sizeBound {
			return false
		}
	}
	return true
}

func smallStrings(ss []string) bool { return len(ss) <= sizeBound && small(ss...) }
