package authorizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	sarv1 "github.com/gatehouse-dev/gatehouse/internal/sarv1"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// This file reads a webhook's answer the way kube-apiserver's REST client
// does (client-go rest.Request.transformResponse and Result.Into, with the
// JSON codec of the webhook's scheme), so that every answer, well-formed or
// not, gives the same decision and, with few exceptions, the same error text:
//
//   - a Content-Type that does not parse is an internal error (retried);
//   - a status outside 200-206 is an API status error built from the code,
//     the Retry-After header and, for text bodies, the body, unless the body
//     is a Status object with status Failure, which then is the error;
//   - an empty 2xx body is an error;
//   - otherwise the body is decoded as a SubjectAccessReview of the
//     configured version: apiVersion and kind may be omitted, keys are
//     case-sensitive, unknown keys are ignored, a duplicate key keeps its
//     last value, and any other kind or version is an error.

// maxResponseBytes bounds the body read from a webhook. kube-apiserver reads
// without limit; a SubjectAccessReview is a few hundred bytes.
const maxResponseBytes = 4 << 20

// maxUnstructuredMessage is client-go's maxUnstructuredResponseTextBytes: the
// part of a text error body kept in the error message.
const maxUnstructuredMessage = 2048

// schemeName is the name client-go's scheme gives itself in its errors.
const schemeName = "pkg/runtime/scheme.go:111"

// decodeReview interprets one HTTP response: its status code, its
// Content-Type and Retry-After headers and its body.
func decodeReview(code int, contentType, retryAfter string, body []byte, v1beta1 bool, cond conditionalReading) (reviewStatus, error) {
	if err := checkResponse(code, contentType, retryAfter, body); err != nil {
		return reviewStatus{}, err
	}
	return decodeReviewBody(body, v1beta1, cond)
}

// checkResponse is what client-go checks before decoding a body: the
// Content-Type, the status code, an empty body.
func checkResponse(code int, contentType, retryAfter string, body []byte) error {
	// A body without a Content-Type counts as text in error messages, and is
	// decoded as the client's own content type, JSON.
	text := contentType == ""
	if contentType == "" {
		contentType = "application/json"
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	text = text || strings.HasPrefix(mediaType, "text/")
	if code != http.StatusSwitchingProtocols && (code < http.StatusOK || code > http.StatusPartialContent) {
		return responseError(code, text, retryAfter, body)
	}
	if len(body) == 0 {
		return fmt.Errorf("0-length response with status code: %d and content type: %s", code, contentType)
	}
	return nil
}

// responseError is the error of a response outside 200-206.
func responseError(code int, text bool, retryAfter string, body []byte) error {
	secs, _ := strconv.Atoi(retryAfter) // an invalid header counts as none
	message := "unknown"
	if text {
		text := body
		if len(text) > maxUnstructuredMessage {
			text = text[:maxUnstructuredMessage]
		}
		message = strings.TrimSpace(string(text))
	}
	generic := apierrors.NewGenericServerResponse(code, http.MethodPost, schema.GroupResource{}, "", message, secs, true)
	if len(body) == 0 {
		return generic
	}
	// A Status object in the body, with status Failure, is the better error.
	// The body's apiVersion defaults to v1; client-go's scheme finds Status
	// whatever the version.
	p, err := readPayload(body)
	if err != nil {
		return generic
	}
	gvk := p.gvk
	if p.proto {
		if gvk.Version == "" {
			gvk.Group, gvk.Version = "", "v1"
		}
	} else if gvk.Version == "" && gvk.Group == "" {
		gvk.Version = "v1"
	}
	if gvk.Kind != "Status" || gvk.Version == "" {
		return generic
	}
	var status metav1.Status
	if err := p.decode(&status); err != nil {
		return generic
	}
	if status.Status != metav1.StatusFailure {
		return generic
	}
	return &apierrors.StatusError{ErrStatus: status}
}

// payload is a body as client-go's universal decoder reads it: JSON (a body
// that starts with "{"), Kubernetes protobuf (a body that starts with
// "k8s\x00"), or else YAML, converted to JSON.
type payload struct {
	gvk   schema.GroupVersionKind
	data  []byte // JSON, or the protobuf message inside the envelope
	proto bool
}

var protobufPrefix = []byte("k8s\x00")

func readPayload(body []byte) (payload, error) {
	switch {
	case isJSONBuffer(body):
		gvk, err := interpretKind(body)
		return payload{gvk: gvk, data: body}, err
	case bytes.HasPrefix(body, protobufPrefix):
		if len(body) == len(protobufPrefix) {
			return payload{}, errors.New("empty body")
		}
		var unk runtime.Unknown
		if err := unk.Unmarshal(body[len(protobufPrefix):]); err != nil {
			return payload{}, err
		}
		return payload{gvk: schema.FromAPIVersionAndKind(unk.APIVersion, unk.Kind), data: unk.Raw, proto: true}, nil
	}
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return payload{}, err
	}
	gvk, err := interpretKind(js)
	return payload{gvk: gvk, data: js}, err
}

// decode unmarshals the payload into obj, a generated API type.
func (p payload) decode(obj interface {
	Reset()
	Unmarshal([]byte) error
}) error {
	if p.proto {
		obj.Reset()
		return obj.Unmarshal(p.data)
	}
	return kjson.UnmarshalCaseSensitivePreserveInts(p.data, obj)
}

// isJSONBuffer is client-go's test for JSON: "{" after leading white space.
func isJSONBuffer(b []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeftFunc(b, unicode.IsSpace), []byte("{"))
}

// typeMeta is the shape client-go's JSON codec first reads a body into, with
// encoding/json (so these two keys are matched without regard to case); the
// same type gives the same error texts.
type typeMeta = struct {
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// +optional
	Kind string `json:"kind,omitempty"`
}

func interpretKind(body []byte) (schema.GroupVersionKind, error) {
	var tm typeMeta
	if err := json.Unmarshal(body, &tm); err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gv.WithKind(tm.Kind), nil
}

// decodeReviewBody decodes a 2xx body.
// The fast path reads no conditionalDecision: it leaves an answer with one
// to the faithful path.
func decodeReviewBody(body []byte, v1beta1 bool, cond conditionalReading) (reviewStatus, error) {
	if st, ok := fastDecodeReview(body, v1beta1); ok {
		return st, nil
	}
	return decodeReviewSlow(body, v1beta1, cond)
}

// decodeReviewSlow decodes a 2xx body step by step as client-go does.
func decodeReviewSlow(body []byte, v1beta1 bool, cond conditionalReading) (reviewStatus, error) {
	full, err := decodeFullReview(body, v1beta1, cond.on)
	if err != nil {
		return reviewStatus{}, err
	}
	st := reviewStatus{allowed: full.allowed, denied: full.denied, reason: full.reason}
	st.conditional = cond.failure(full.decision)
	return st, nil
}

// decodeFullReview decodes a 2xx body step by step as client-go does,
// keeping the whole status; readConditional reads status.conditionalDecision
// (1.38's v1, which k8s.io/api v0.37's type lacks).
func decodeFullReview(body []byte, v1beta1, readConditional bool) (conditionalStatus, error) {
	p, err := readPayload(body)
	if err != nil {
		return conditionalStatus{}, err
	}
	want := authorizationv1.SchemeGroupVersion.WithKind("SubjectAccessReview")
	if v1beta1 {
		want = authorizationv1beta1.SchemeGroupVersion.WithKind("SubjectAccessReview")
	}
	if err := p.checkKind(body, want); err != nil {
		return conditionalStatus{}, err
	}
	if v1beta1 {
		var sar authorizationv1beta1.SubjectAccessReview
		if err := p.decode(&sar); err != nil {
			return conditionalStatus{}, err
		}
		s := sar.Status
		return conditionalStatus{allowed: s.Allowed, denied: s.Denied, reason: s.Reason, evaluationError: s.EvaluationError}, nil
	}
	var sar authorizationv1.SubjectAccessReview
	if err := p.decode(&sar); err != nil {
		return conditionalStatus{}, err
	}
	s := sar.Status
	st := conditionalStatus{allowed: s.Allowed, denied: s.Denied, reason: s.Reason, evaluationError: s.EvaluationError}
	if readConditional {
		// Read on its own, with the same decoder.
		if st.decision, err = p.conditionalDecision(); err != nil {
			return conditionalStatus{}, err
		}
	}
	return st, nil
}

// checkKind checks the payload's kind and version against want, the
// missing parts coming from want as client-go fills them in from the type
// decoded into (the JSON and protobuf decoders do it slightly differently).
func (p payload) checkKind(body []byte, want schema.GroupVersionKind) error {
	gvk := p.gvk
	if gvk.Kind == "" {
		gvk.Kind = want.Kind
	}
	if p.proto {
		if gvk.Version == "" {
			gvk.Group, gvk.Version = want.Group, want.Version
		}
	} else {
		if gvk.Version == "" && gvk.Group == "" {
			gvk.Group, gvk.Version = want.Group, want.Version
		}
		if gvk.Version == "" && gvk.Group == want.Group {
			gvk.Version = want.Version
		}
	}
	if gvk.Version == "" {
		//lint:ignore ST1005 apimachinery's exact text
		return fmt.Errorf("Object 'apiVersion' is missing in '%s'", body)
	}
	if gvk != want {
		return wrongKindError(gvk, want)
	}
	return nil
}

// conditionalDecision reads a v1 SubjectAccessReview payload's
// status.conditionalDecision, as decode would with k8s.io/api v0.38.
func (p payload) conditionalDecision() (*sarv1.ConditionsAwareDecision, error) {
	if p.proto {
		return protoConditionalDecision(p.data)
	}
	var extra sarv1.SubjectAccessReview
	if err := kjson.UnmarshalCaseSensitivePreserveInts(p.data, &extra); err != nil {
		return nil, err
	}
	return extra.Status.ConditionalDecision, nil
}

// unversionedKinds are found by client-go's scheme whatever the apiVersion.
var unversionedKinds = map[string]bool{
	"Status": true, "APIVersions": true, "APIGroupList": true, "APIGroup": true, "APIResourceList": true,
}

// authorizationKinds are the kinds of the authorization.k8s.io versions.
var authorizationKinds = map[string]bool{
	"SubjectAccessReview": true, "SelfSubjectAccessReview": true,
	"LocalSubjectAccessReview": true, "SelfSubjectRulesReview": true,
}

// wrongKindError is the error client-go gives for a body of another kind or
// version than the one expected: a conversion error for a kind its scheme
// knows, "no kind ... is registered" otherwise. Only the authorization kinds
// and the unversioned meta kinds are known here; for the other kinds of
// client-go's scheme the text differs, the outcome (an error) does not.
func wrongKindError(got, want schema.GroupVersionKind) error {
	gv := got.GroupVersion()
	known := unversionedKinds[got.Kind] ||
		(got.Group == "authorization.k8s.io" && (got.Version == "v1" || got.Version == "v1beta1") && authorizationKinds[got.Kind])
	if known {
		from := got.Version
		if unversionedKinds[got.Kind] {
			from = "v1"
		}
		return fmt.Errorf("converting (%s.%s) to (%s.%s): unknown conversion", from, got.Kind, want.Version, want.Kind)
	}
	return fmt.Errorf("no kind %q is registered for version %q in scheme %q", got.Kind, gv.String(), schemeName)
}
