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
	var tm *metav1.TypeMeta
	var apiVersion string
	switch r := into.(type) {
	case *admissionv1.AdmissionReview:
		if r.Request != nil || r.Response != nil {
			return false
		}
		tm, apiVersion = &r.TypeMeta, v1
	case *admissionv1beta1.AdmissionReview:
		if r.Request != nil || r.Response != nil {
			return false
		}
		tm, apiVersion = &r.TypeMeta, v1beta1
	default:
		return false
	}
	if *tm != (metav1.TypeMeta{}) {
		return false
	}
	resp, ok := fastDecodeReview(data, apiVersion)
	if !ok {
		return false
	}
	tm.APIVersion, tm.Kind = apiVersion, "AdmissionReview"
	if resp == nil {
		return true
	}
	switch r := into.(type) {
	case *admissionv1.AdmissionReview:
		r.Response = resp
	case *admissionv1beta1.AdmissionReview:
		// The same fields, but for the type of patchType.
		r.Response = &admissionv1beta1.AdmissionResponse{UID: resp.UID, Allowed: resp.Allowed, Result: resp.Result, Patch: resp.Patch, PatchType: (*admissionv1beta1.PatchType)(resp.PatchType), AuditAnnotations: resp.AuditAnnotations, Warnings: resp.Warnings}
	}
	return true
}

// fastDecodeReview reads an AdmissionReview of apiVersion, its response in
// v1's type (v1beta1's has the same fields); nil when there is none (or it
// is null).
func fastDecodeReview(data []byte, apiVersion string) (*admissionv1.AdmissionResponse, bool) {
	s := jsonscan.New(data)
	var resp *admissionv1.AdmissionResponse
	var seenAPIVersion, seenKind bool
	ok := s.Fields([]string{"apiVersion", "kind", "response", "request"}, func(i int) bool {
		switch i {
		case 0:
			seenAPIVersion = true
			v, ok := s.Str()
			return ok && string(v) == apiVersion
		case 1:
			seenKind = true
			v, ok := s.Str()
			return ok && string(v) == "AdmissionReview"
		case 2:
			if s.Null() {
				return true
			}
			resp = &admissionv1.AdmissionResponse{}
			return fastDecodeResponse(s, resp)
		}
		return s.Null()
	})
	if !ok || !seenAPIVersion || !seenKind || !s.End() {
		return nil, false
	}
	return resp, true
}

func fastDecodeResponse(s *jsonscan.Scanner, r *admissionv1.AdmissionResponse) bool {
	return s.Fields([]string{"uid", "allowed", "status", "patch", "patchType", "auditAnnotations", "warnings"}, func(i int) bool {
		if s.Null() {
			return true
		}
		switch i {
		case 0:
			v, ok := s.String()
			r.UID = types.UID(v)
			return ok
		case 1:
			v, ok := s.Bool()
			r.Allowed = v
			return ok
		case 2:
			r.Result = &metav1.Status{}
			return fastDecodeStatus(s, r.Result)
		case 3:
			v, ok := s.Unquote()
			if !ok {
				return false
			}
			// As encoding/json decodes a []byte.
			r.Patch = make([]byte, base64.StdEncoding.DecodedLen(len(v)))
			n, err := base64.StdEncoding.Decode(r.Patch, v)
			r.Patch = r.Patch[:n]
			return err == nil
		case 4:
			v, ok := s.String()
			t := admissionv1.PatchType(v)
			r.PatchType = &t
			return ok
		case 5:
			r.AuditAnnotations = map[string]string{}
			return s.Object(func(key []byte) bool {
				if _, dup := r.AuditAnnotations[string(key)]; dup {
					return false
				}
				v, ok := str(s)
				r.AuditAnnotations[string(key)] = v
				return ok
			})
		}
		r.Warnings = []string{}
		return s.Array(func() bool {
			v, ok := str(s)
			r.Warnings = append(r.Warnings, v)
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
	return s.Fields([]string{"kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code"}, func(i int) bool {
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
			// Without selfLink (deprecated) or remainingItemCount.
			ok = s.Fields([]string{"resourceVersion", "continue"}, func(i int) bool {
				var ok bool
				if i == 0 {
					st.ResourceVersion, ok = str(s)
				} else {
					st.Continue, ok = str(s)
				}
				return ok
			})
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

// fastDecodeDetails reads a Status's details.
func fastDecodeDetails(s *jsonscan.Scanner, d *metav1.StatusDetails) bool {
	return s.Fields([]string{"name", "group", "kind", "uid", "causes", "retryAfterSeconds"}, func(i int) bool {
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
	return s.Fields([]string{"reason", "message", "field"}, func(i int) bool {
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
