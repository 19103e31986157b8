package authorizer

import (
	"slices"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/gatehouse-dev/gatehouse/internal/jsonstring"
)

// This file writes the SubjectAccessReview that kube-apiserver's webhook
// authorizer posts, byte for byte: the JSON encoding/json produces for the
// k8s.io/api types (fields in struct order, omitempty, map keys sorted, HTML
// characters escaped, invalid UTF-8 replaced), followed by the newline of
// json.Encoder. It is written by hand so that a request costs one buffer and
// no reflection.

const (
	sarPrefixV1      = `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":`
	sarPrefixV1beta1 = `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1beta1","metadata":{},"spec":`
	sarSuffix        = `,"status":{"allowed":false}}` + "\n"
)

// appendSAR appends the request body for version ("v1" or "v1beta1").
func appendSAR(dst []byte, a *Attributes, v1beta1 bool) []byte {
	if v1beta1 {
		dst = append(dst, sarPrefixV1beta1...)
	} else {
		dst = append(dst, sarPrefixV1...)
	}
	dst = appendSpec(dst, a, v1beta1)
	return append(dst, sarSuffix...)
}

// appendSpec appends the JSON of the SubjectAccessReviewSpec; v1beta1 names
// the groups "group" instead of "groups".
func appendSpec(dst []byte, a *Attributes, v1beta1 bool) []byte {
	dst = append(dst, '{')
	first := true
	field := func(name string) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
	}
	if a.ResourceRequest {
		field("resourceAttributes")
		dst = appendResourceAttributes(dst, a)
	} else {
		field("nonResourceAttributes")
		dst = append(dst, '{')
		inner := true
		dst, inner = appendStringField(dst, inner, "path", a.Path)
		dst, _ = appendStringField(dst, inner, "verb", a.Verb)
		dst = append(dst, '}')
	}
	if u := a.User; u != nil {
		if u.Name != "" {
			field("user")
			dst = jsonstring.Append(dst, u.Name)
		}
		if len(u.Groups) > 0 {
			if v1beta1 {
				field("group")
			} else {
				field("groups")
			}
			dst = appendStringList(dst, u.Groups)
		}
		if len(u.Extra) > 0 {
			field("extra")
			dst = appendExtra(dst, u.Extra)
		}
		if u.UID != "" {
			field("uid")
			dst = jsonstring.Append(dst, u.UID)
		}
	}
	return append(dst, '}')
}

func appendResourceAttributes(dst []byte, a *Attributes) []byte {
	dst = append(dst, '{')
	first := true
	dst, first = appendStringField(dst, first, "namespace", a.Namespace)
	dst, first = appendStringField(dst, first, "verb", a.Verb)
	dst, first = appendStringField(dst, first, "group", a.APIGroup)
	dst, first = appendStringField(dst, first, "version", a.APIVersion)
	dst, first = appendStringField(dst, first, "resource", a.Resource)
	dst, first = appendStringField(dst, first, "subresource", a.Subresource)
	dst, first = appendStringField(dst, first, "name", a.Name)
	if hasFieldRequirements(a.FieldSelector) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, `"fieldSelector":{"requirements":[`...)
		n := 0
		for _, r := range a.FieldSelector {
			op, ok := fieldOperator(r.Operator)
			if !ok {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = append(dst, `{"key":`...)
			dst = jsonstring.Append(dst, r.Field)
			dst = append(dst, `,"operator":"`...)
			dst = append(dst, op...)
			dst = append(dst, `","values":[`...)
			dst = jsonstring.Append(dst, r.Value)
			dst = append(dst, "]}"...)
		}
		dst = append(dst, "]}"...)
	}
	if hasLabelRequirements(a.LabelSelector) {
		if !first {
			dst = append(dst, ',')
		}
		dst = append(dst, `"labelSelector":{"requirements":[`...)
		n := 0
		for _, r := range a.LabelSelector {
			op, ok := labelOperator(r.Operator)
			if !ok {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = append(dst, `{"key":`...)
			dst = jsonstring.Append(dst, r.Key)
			dst = append(dst, `,"operator":"`...)
			dst = append(dst, op...)
			dst = append(dst, '"')
			if len(r.Values) > 0 {
				dst = append(dst, `,"values":`...)
				dst = appendStringList(dst, r.Values)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, '}')
}

// appendStringField appends "name":"value" unless value is empty
// (omitempty), with a comma unless it is the first field.
func appendStringField(dst []byte, first bool, name, value string) ([]byte, bool) {
	if value == "" {
		return dst, first
	}
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return jsonstring.Append(dst, value), false
}

func appendStringList(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonstring.Append(dst, s)
	}
	return append(dst, ']')
}

func appendExtra(dst []byte, extra map[string][]string) []byte {
	dst = append(dst, '{')
	for i, k := range sortedKeys(extra) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonstring.Append(dst, k)
		dst = append(dst, ':')
		if v := extra[k]; v == nil {
			dst = append(dst, "null"...)
		} else {
			dst = appendStringList(dst, v)
		}
	}
	return append(dst, '}')
}

// sortedKeys returns the keys of m in the order encoding/json writes them:
// sorted by their bytes.
func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// fieldOperator maps a field selector operator to the SubjectAccessReview
// operator, as kube-apiserver does; false for operators it drops.
func fieldOperator(op selection.Operator) (string, bool) {
	switch op {
	case selection.Equals, selection.DoubleEquals, selection.In:
		return string(metav1.FieldSelectorOpIn), true
	case selection.NotEquals, selection.NotIn:
		return string(metav1.FieldSelectorOpNotIn), true
	}
	return "", false
}

// labelOperator maps a label selector operator to the SubjectAccessReview
// operator; false for operators kube-apiserver drops (gt, lt).
func labelOperator(op selection.Operator) (string, bool) {
	switch op {
	case selection.Equals, selection.DoubleEquals, selection.In:
		return string(metav1.LabelSelectorOpIn), true
	case selection.NotEquals, selection.NotIn:
		return string(metav1.LabelSelectorOpNotIn), true
	case selection.Exists:
		return string(metav1.LabelSelectorOpExists), true
	case selection.DoesNotExist:
		return string(metav1.LabelSelectorOpDoesNotExist), true
	}
	return "", false
}

// hasFieldRequirements reports whether at least one requirement survives
// translation: only then does kube-apiserver send a fieldSelector.
func hasFieldRequirements(reqs []FieldRequirement) bool {
	for _, r := range reqs {
		if _, ok := fieldOperator(r.Operator); ok {
			return true
		}
	}
	return false
}

func hasLabelRequirements(reqs []LabelRequirement) bool {
	for _, r := range reqs {
		if _, ok := labelOperator(r.Operator); ok {
			return true
		}
	}
	return false
}

// specOf builds the typed SubjectAccessReviewSpec that match conditions see
// (always v1), as kube-apiserver builds it. into is reused.
func specOf(a *Attributes, into *specScratch) *authorizationv1.SubjectAccessReviewSpec {
	*into = specScratch{}
	spec := &into.spec
	if u := a.User; u != nil {
		spec.User = u.Name
		spec.UID = u.UID
		spec.Groups = u.Groups
		if u.Extra != nil {
			spec.Extra = make(map[string]authorizationv1.ExtraValue, len(u.Extra))
			for k, v := range u.Extra {
				spec.Extra[k] = authorizationv1.ExtraValue(v)
			}
		}
	}
	if a.ResourceRequest {
		// Field by field: into was cleared above, and a composite literal
		// would be built aside and copied whole.
		ra := &into.resource
		ra.Namespace = a.Namespace
		ra.Verb = a.Verb
		ra.Group = a.APIGroup
		ra.Version = a.APIVersion
		ra.Resource = a.Resource
		ra.Subresource = a.Subresource
		ra.Name = a.Name
		if hasFieldRequirements(a.FieldSelector) {
			fs := &authorizationv1.FieldSelectorAttributes{}
			for _, r := range a.FieldSelector {
				if op, ok := fieldOperator(r.Operator); ok {
					fs.Requirements = append(fs.Requirements, metav1.FieldSelectorRequirement{
						Key: r.Field, Operator: metav1.FieldSelectorOperator(op), Values: []string{r.Value},
					})
				}
			}
			ra.FieldSelector = fs
		}
		if hasLabelRequirements(a.LabelSelector) {
			ls := &authorizationv1.LabelSelectorAttributes{}
			for _, r := range a.LabelSelector {
				if op, ok := labelOperator(r.Operator); ok {
					req := metav1.LabelSelectorRequirement{Key: r.Key, Operator: metav1.LabelSelectorOperator(op)}
					if len(r.Values) > 0 {
						req.Values = slices.Clone(r.Values)
					}
					ls.Requirements = append(ls.Requirements, req)
				}
			}
			ra.LabelSelector = ls
		}
		spec.ResourceAttributes = ra
	} else {
		into.nonResource = authorizationv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
		spec.NonResourceAttributes = &into.nonResource
	}
	return spec
}

// specScratch holds a spec and the attributes it points to, so that building
// one costs a single allocation, or none when reused.
type specScratch struct {
	spec        authorizationv1.SubjectAccessReviewSpec
	resource    authorizationv1.ResourceAttributes
	nonResource authorizationv1.NonResourceAttributes
}
