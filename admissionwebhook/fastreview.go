package admissionwebhook

import (
	"encoding/base64"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gatehouse-dev/gatehouse/internal/jsonscan"
)

// fastDecodeAnswer decodes a webhook's 2xx answer into into, an empty
// AdmissionReview of v1 or v1beta1, without reflection, and reports
// whether it did. It decodes only what it is sure the codec (decodeExact)
// reads without error and to the same review:
//
//	{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"...","allowed":true}}
//
// apiVersion and kind both present, naming into's own type; at most
// request: null besides; in response any of uid, allowed, status, patch
// (standard base64), patchType, auditAnnotations (a map of strings) and
// warnings (an array of strings); in status (a metav1.Status) kind,
// apiVersion, metadata (resourceVersion, continue), status,
// message, reason, code and details (name, group, kind, uid,
// retryAfterSeconds and causes of reason, message and field). Every key is
// spelled exactly (the codec is case sensitive), at most once in its
// object; any value but apiVersion's and kind's may be null (the field's
// zero value, as encoding/json leaves it). Strings are read by jsonscan's
// Unquote (valid UTF-8, escapes but surrogates; keys, apiVersion and kind
// without escapes), numbers by its Int32. Anything else (an unknown field,
// a surrogate escape, a duplicate key, another kind, a number out of that
// form) reports false and leaves into untouched: the caller decodes it with
// the codec.
func fastDecodeAnswer(data []byte, into runtime.Object) bool {
	const v1, v1beta1 = "admission.k8s.io/v1", "admission.k8s.io/v1beta1"
	switch r := into.(type) {
	case *admissionv1.AdmissionReview:
		if r.TypeMeta != (metav1.TypeMeta{}) || r.Request != nil || r.Response != nil {
			return false
		}
		resp, ok := fastDecodeReview(data, v1)
		if !ok {
			return false
		}
		r.APIVersion = v1
		r.Kind = "AdmissionReview"
		if resp != nil {
			r.Response = &admissionv1.AdmissionResponse{
				UID:              resp.uid,
				Allowed:          resp.allowed,
				Result:           resp.result,
				Patch:            resp.patch,
				PatchType:        (*admissionv1.PatchType)(resp.patchType),
				AuditAnnotations: resp.auditAnnotations,
				Warnings:         resp.warnings,
			}
		}
		return true
	case *admissionv1beta1.AdmissionReview:
		if r.TypeMeta != (metav1.TypeMeta{}) || r.Request != nil || r.Response != nil {
			return false
		}
		resp, ok := fastDecodeReview(data, v1beta1)
		if !ok {
			return false
		}
		r.APIVersion = v1beta1
		r.Kind = "AdmissionReview"
		if resp != nil {
			r.Response = &admissionv1beta1.AdmissionResponse{
				UID:              resp.uid,
				Allowed:          resp.allowed,
				Result:           resp.result,
				Patch:            resp.patch,
				PatchType:        (*admissionv1beta1.PatchType)(resp.patchType),
				AuditAnnotations: resp.auditAnnotations,
				Warnings:         resp.warnings,
			}
		}
		return true
	}
	return false
}

// fastResponse is an AdmissionResponse of either version (their fields are
// the same).
type fastResponse struct {
	uid              types.UID
	allowed          bool
	result           *metav1.Status
	patch            []byte
	patchType        *string
	auditAnnotations map[string]string
	warnings         []string
}

// fastDecodeReview reads an AdmissionReview of apiVersion; its response is
// nil when there is none (or it is null).
func fastDecodeReview(data []byte, apiVersion string) (*fastResponse, bool) {
	s := jsonscan.New(data)
	var resp *fastResponse
	var seen [4]bool
	ok := s.Object(func(key []byte) bool {
		i := -1
		switch string(key) {
		case "apiVersion":
			i = 0
		case "kind":
			i = 1
		case "response":
			i = 2
		case "request":
			i = 3
		}
		if i < 0 || seen[i] {
			return false
		}
		seen[i] = true
		switch i {
		case 0:
			v, ok := s.Str()
			return ok && string(v) == apiVersion
		case 1:
			v, ok := s.Str()
			return ok && string(v) == "AdmissionReview"
		case 2:
			if s.Null() {
				return true
			}
			resp = &fastResponse{}
			return fastDecodeResponse(s, resp)
		}
		return s.Null()
	})
	if !ok || !seen[0] || !seen[1] || !s.End() {
		return nil, false
	}
	return resp, true
}

func fastDecodeResponse(s *jsonscan.Scanner, r *fastResponse) bool {
	var seen [7]bool
	return s.Object(func(key []byte) bool {
		i := -1
		switch string(key) {
		case "uid":
			i = 0
		case "allowed":
			i = 1
		case "status":
			i = 2
		case "patch":
			i = 3
		case "patchType":
			i = 4
		case "auditAnnotations":
			i = 5
		case "warnings":
			i = 6
		}
		if i < 0 || seen[i] {
			return false
		}
		seen[i] = true
		if s.Null() {
			return true
		}
		switch i {
		case 0:
			v, ok := s.String()
			r.uid = types.UID(v)
			return ok
		case 1:
			v, ok := s.Bool()
			r.allowed = v
			return ok
		case 2:
			r.result = &metav1.Status{}
			return fastDecodeStatus(s, r.result)
		case 3:
			v, ok := s.Unquote()
			if !ok {
				return false
			}
			// As encoding/json decodes a []byte.
			r.patch = make([]byte, base64.StdEncoding.DecodedLen(len(v)))
			n, err := base64.StdEncoding.Decode(r.patch, v)
			r.patch = r.patch[:n]
			return err == nil
		case 4:
			v, ok := s.String()
			r.patchType = &v
			return ok
		case 5:
			r.auditAnnotations = map[string]string{}
			return s.Object(func(key []byte) bool {
				if _, dup := r.auditAnnotations[string(key)]; dup {
					return false
				}
				v, ok := str(s)
				r.auditAnnotations[string(key)] = v
				return ok
			})
		}
		r.warnings = []string{}
		return s.Array(func() bool {
			v, ok := str(s)
			r.warnings = append(r.warnings, v)
			return ok
		})
	})
}

// str reads a string or null (the empty string).
func str(s *jsonscan.Scanner) (string, bool) {
	if s.Null() {
		return "", true
	}
	return s.String()
}

// fastDecodeStatus reads a metav1.Status.
func fastDecodeStatus(s *jsonscan.Scanner, st *metav1.Status) bool {
	var seen [8]bool
	return s.Object(func(key []byte) bool {
		i := -1
		switch string(key) {
		case "kind":
			i = 0
		case "apiVersion":
			i = 1
		case "metadata":
			i = 2
		case "status":
			i = 3
		case "message":
			i = 4
		case "reason":
			i = 5
		case "details":
			i = 6
		case "code":
			i = 7
		}
		if i < 0 || seen[i] {
			return false
		}
		seen[i] = true
		if s.Null() {
			return true
		}
		var ok bool
		switch i {
		case 0:
			st.Kind, ok = str(s)
		case 1:
			st.APIVersion, ok = str(s)
		case 2:
			ok = fastDecodeListMeta(s, &st.ListMeta)
		case 3:
			st.Status, ok = str(s)
		case 4:
			st.Message, ok = str(s)
		case 5:
			var v string
			v, ok = str(s)
			st.Reason = metav1.StatusReason(v)
		case 6:
			st.Details = &metav1.StatusDetails{}
			ok = fastDecodeDetails(s, st.Details)
		case 7:
			st.Code, ok = s.Int32()
		}
		return ok
	})
}

// fastDecodeListMeta reads a Status's metadata, without selfLink
// (deprecated) or remainingItemCount.
func fastDecodeListMeta(s *jsonscan.Scanner, m *metav1.ListMeta) bool {
	var seen [2]bool
	return s.Object(func(key []byte) bool {
		var field *string
		i := -1
		switch string(key) {
		case "resourceVersion":
			i, field = 0, &m.ResourceVersion
		case "continue":
			i, field = 1, &m.Continue
		}
		if i < 0 || seen[i] {
			return false
		}
		seen[i] = true
		var ok bool
		*field, ok = str(s)
		return ok
	})
}

// fastDecodeDetails reads a Status's details.
func fastDecodeDetails(s *jsonscan.Scanner, d *metav1.StatusDetails) bool {
	var seen [6]bool
	return s.Object(func(key []byte) bool {
		i := -1
		switch string(key) {
		case "name":
			i = 0
		case "group":
			i = 1
		case "kind":
			i = 2
		case "uid":
			i = 3
		case "causes":
			i = 4
		case "retryAfterSeconds":
			i = 5
		}
		if i < 0 || seen[i] {
			return false
		}
		seen[i] = true
		if s.Null() {
			return true
		}
		var ok bool
		switch i {
		case 0:
			d.Name, ok = str(s)
		case 1:
			d.Group, ok = str(s)
		case 2:
			d.Kind, ok = str(s)
		case 3:
			var v string
			v, ok = str(s)
			d.UID = types.UID(v)
		case 4:
			d.Causes = []metav1.StatusCause{}
			ok = s.Array(func() bool {
				var c metav1.StatusCause
				if !s.Null() && !fastDecodeCause(s, &c) {
					return false
				}
				d.Causes = append(d.Causes, c)
				return true
			})
		case 5:
			d.RetryAfterSeconds, ok = s.Int32()
		}
		return ok
	})
}

// fastDecodeCause reads one of a Status's causes.
func fastDecodeCause(s *jsonscan.Scanner, c *metav1.StatusCause) bool {
	var seen [3]bool
	return s.Object(func(key []byte) bool {
		i := -1
		switch string(key) {
		case "reason":
			i = 0
		case "message":
			i = 1
		case "field":
			i = 2
		}
		if i < 0 || seen[i] {
			return false
		}
		seen[i] = true
		v, ok := str(s)
		switch i {
		case 0:
			c.Type = metav1.CauseType(v)
		case 1:
			c.Message = v
		default:
			c.Field = v
		}
		return ok
	})
}
