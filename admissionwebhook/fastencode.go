package admissionwebhook

import (
	stdjson "encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// fastEncodeReview returns the body the codec writes for review (see
// encode), an AdmissionReview as review builds it, without reflection over
// the review, and reports whether it did. It writes what encoding/json
// writes for the codec's copy of the review (its kind and apiVersion set,
// then request, the fields in their order, omitempty ones left out, extra's
// keys sorted, a newline after): only strings encoding/json writes as they
// are (valid UTF-8 without control characters, '"', '\\', '<', '>', '&',
// U+2028 or U+2029), and RawExtensions of JSON as json.Marshal writes it
// (review's Raw objects, which come from json.Marshal) or of an object
// (written by json.Marshal, whose output encoding/json's compaction keeps
// as it is). For anything else (a response, another string) it reports
// false and the caller encodes with the codec.
func fastEncodeReview(review runtime.Object) ([]byte, bool) {
	var e reviewEncoder
	switch r := review.(type) {
	case *admissionv1.AdmissionReview:
		if r.Request == nil || r.Response != nil {
			return nil, false
		}
		q := r.Request
		e.begin("admission.k8s.io/v1", q.UID, q.Kind, q.Resource, q.SubResource, q.RequestKind, q.RequestResource, q.RequestSubResource, q.Name, q.Namespace, string(q.Operation))
		e.end(&q.UserInfo, &q.Object, &q.OldObject, q.DryRun, &q.Options)
	case *admissionv1beta1.AdmissionReview:
		if r.Request == nil || r.Response != nil {
			return nil, false
		}
		q := r.Request
		e.begin("admission.k8s.io/v1beta1", q.UID, q.Kind, q.Resource, q.SubResource, q.RequestKind, q.RequestResource, q.RequestSubResource, q.Name, q.Namespace, string(q.Operation))
		e.end(&q.UserInfo, &q.Object, &q.OldObject, q.DryRun, &q.Options)
	default:
		return nil, false
	}
	if e.unsure {
		return nil, false
	}
	return e.b, true
}

// reviewEncoder writes an AdmissionReview's request; unsure is set by the
// first value it cannot write as encoding/json does.
type reviewEncoder struct {
	b      []byte
	unsure bool
}

func (e *reviewEncoder) begin(apiVersion string, uid types.UID, kind metav1.GroupVersionKind, resource metav1.GroupVersionResource, subResource string,
	requestKind *metav1.GroupVersionKind, requestResource *metav1.GroupVersionResource, requestSubResource, name, namespace, operation string) {
	e.b = make([]byte, 0, 512)
	e.b = append(e.b, `{"kind":"AdmissionReview","apiVersion":"`...)
	e.b = append(e.b, apiVersion...)
	e.b = append(e.b, `","request":{"uid":`...)
	e.str(string(uid))
	e.b = append(e.b, `,"kind":`...)
	e.gvk(kind)
	e.b = append(e.b, `,"resource":`...)
	e.gvr(resource)
	e.optional("subResource", subResource)
	if requestKind != nil {
		e.b = append(e.b, `,"requestKind":`...)
		e.gvk(*requestKind)
	}
	if requestResource != nil {
		e.b = append(e.b, `,"requestResource":`...)
		e.gvr(*requestResource)
	}
	e.optional("requestSubResource", requestSubResource)
	e.optional("name", name)
	e.optional("namespace", namespace)
	e.b = append(e.b, `,"operation":`...)
	e.str(operation)
}

func (e *reviewEncoder) end(u *authenticationv1.UserInfo, object, oldObject *runtime.RawExtension, dryRun *bool, options *runtime.RawExtension) {
	e.b = append(e.b, `,"userInfo":{`...)
	mark := len(e.b)
	e.optional("username", u.Username)
	e.optional("uid", u.UID)
	if len(u.Groups) > 0 {
		e.b = append(e.b, `,"groups":`...)
		e.strs(u.Groups)
	}
	if len(u.Extra) > 0 {
		e.b = append(e.b, `,"extra":{`...)
		keys := make([]string, 0, len(u.Extra))
		for k := range u.Extra {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.str(k)
			e.b = append(e.b, ':')
			e.strs(u.Extra[k])
		}
		e.b = append(e.b, '}')
	}
	if len(e.b) > mark {
		// The first member's comma.
		e.b = slices.Delete(e.b, mark, mark+1)
	}
	e.b = slices.Grow(e.b, len(object.Raw)+len(oldObject.Raw)+64)
	e.b = append(e.b, `},"object":`...)
	e.raw(object)
	e.b = append(e.b, `,"oldObject":`...)
	e.raw(oldObject)
	if dryRun != nil {
		if *dryRun {
			e.b = append(e.b, `,"dryRun":true`...)
		} else {
			e.b = append(e.b, `,"dryRun":false`...)
		}
	}
	e.b = append(e.b, `,"options":`...)
	e.raw(options)
	e.b = append(e.b, "}}\n"...)
}

func (e *reviewEncoder) gvk(k metav1.GroupVersionKind) {
	e.groupVersion(k.Group, k.Version, "kind", k.Kind)
}

func (e *reviewEncoder) gvr(r metav1.GroupVersionResource) {
	e.groupVersion(r.Group, r.Version, "resource", r.Resource)
}

// groupVersion writes {"group":group,"version":version,"key":value}.
func (e *reviewEncoder) groupVersion(group, version, key, value string) {
	e.b = append(e.b, `{"group":`...)
	e.str(group)
	e.b = append(e.b, `,"version":`...)
	e.str(version)
	e.b = append(e.b, ',', '"')
	e.b = append(e.b, key...)
	e.b = append(e.b, '"', ':')
	e.str(value)
	e.b = append(e.b, '}')
}

// optional writes ,"key":value unless value is empty (omitempty).
func (e *reviewEncoder) optional(key, value string) {
	if value == "" {
		return
	}
	e.b = append(e.b, ',', '"')
	e.b = append(e.b, key...)
	e.b = append(e.b, '"', ':')
	e.str(value)
}

// strs writes a []string: null when nil.
func (e *reviewEncoder) strs(v []string) {
	if v == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, s := range v {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(s)
	}
	e.b = append(e.b, ']')
}

// str writes s quoted if encoding/json writes it without escapes.
func (e *reviewEncoder) str(s string) {
	ascii := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&':
			e.unsure = true
			return
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && (!utf8.ValidString(s) || strings.ContainsRune(s, '\u2028') || strings.ContainsRune(s, '\u2029')) {
		e.unsure = true
		return
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, s...)
	e.b = append(e.b, '"')
}

// raw writes a RawExtension as its MarshalJSON does: its Raw JSON (from
// json.Marshal, compact and escaped), json.Marshal of its Object, or null.
func (e *reviewEncoder) raw(x *runtime.RawExtension) {
	switch {
	case x.Raw != nil:
		if len(x.Raw) == 0 || x.Raw[0] != '{' {
			e.unsure = true
			return
		}
		e.b = append(e.b, x.Raw...)
	case x.Object != nil:
		data, err := stdjson.Marshal(x.Object)
		if err != nil {
			e.unsure = true
			return
		}
		e.b = append(e.b, data...)
	default:
		e.b = append(e.b, "null"...)
	}
}
