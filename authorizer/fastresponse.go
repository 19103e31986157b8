package authorizer

import "github.com/gatehouse-dev/gatehouse/internal/jsonscan"

// fastDecodeReview reads the usual answer of a webhook,
//
//	{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true,"reason":"..."}}
//
// without reflection. It accepts only what it is sure to read as
// decodeReviewBody does: the keys apiVersion, kind, status, and metadata and
// spec when empty, each at most once, with the expected values; in status
// the keys allowed and denied
// (true or false) and reason and evaluationError (strings without escapes,
// in valid UTF-8), each at most once; JSON white space anywhere. For
// anything else it reports false and the caller takes the faithful path.
func fastDecodeReview(body []byte, v1beta1 bool) (reviewStatus, bool) {
	apiVersion := "authorization.k8s.io/v1"
	if v1beta1 {
		apiVersion = "authorization.k8s.io/v1beta1"
	}
	p := jsonscan.New(body)
	var st reviewStatus
	ok := p.Fields([]string{"metadata", "spec", "apiVersion", "kind", "status"}, func(i int) bool {
		switch i {
		case 0:
			// Empty metadata, as encoding/json writes it for an answer built
			// from the API types (older versions write a null timestamp).
			if p.EmptyObject() {
				return true
			}
			return p.Fields([]string{"creationTimestamp"}, func(int) bool { return p.Null() })
		case 1:
			return p.EmptyObject()
		case 2:
			v, ok := p.Str()
			return ok && string(v) == apiVersion
		case 3:
			v, ok := p.Str()
			return ok && string(v) == "SubjectAccessReview"
		}
		return p.Fields([]string{"allowed", "denied", "reason", "evaluationError"}, func(i int) bool {
			switch i {
			case 0:
				b, ok := p.Bool()
				st.allowed = b
				return ok
			case 1:
				b, ok := p.Bool()
				st.denied = b
				return ok
			case 2:
				v, ok := p.Str()
				st.reason = string(v)
				return ok
			}
			_, ok := p.Str()
			return ok
		})
	})
	if !ok {
		return reviewStatus{}, false
	}
	return st, p.End()
}
