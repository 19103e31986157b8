package authorizer

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

func TestDecodeReview(t *testing.T) {
	tests := []struct {
		name       string
		code       int
		ct, ra     string
		body       string
		v1beta1    bool
		want       reviewStatus
		wantErr    string
		wantRetry  bool
		wantStatus int32 // of an API status error
	}{
		{name: "allowed", code: 200, ct: "application/json", body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true,"reason":"r"}}`, want: reviewStatus{allowed: true, reason: "r"}},
		{name: "no type meta", code: 200, body: `{"status":{"denied":true}}`, want: reviewStatus{denied: true}},
		{name: "v1beta1", code: 200, body: `{"apiVersion":"authorization.k8s.io/v1beta1","status":{"allowed":true,"denied":true,"reason":"both"}}`, v1beta1: true, want: reviewStatus{allowed: true, denied: true, reason: "both"}},
		{name: "evaluationError ignored", code: 200, body: `{"status":{"evaluationError":"x"}}`},
		{name: "Kind key any case", code: 200, body: `{"KIND":"SubjectAccessReview","status":{"allowed":true}}`, want: reviewStatus{allowed: true}},
		{name: "field keys case-sensitive", code: 200, body: `{"status":{"Allowed":true}}`},
		{name: "duplicate keys merge", code: 200, body: `{"status":{"allowed":true},"status":{"denied":true}}`, want: reviewStatus{allowed: true, denied: true}},
		{name: "null", code: 200, body: `null`},
		{name: "201 and 206 are success", code: 206, body: `{"status":{"allowed":true}}`, want: reviewStatus{allowed: true}},
		{name: "text/html is decoded as JSON", code: 200, ct: "text/html", body: `{"status":{"allowed":true}}`, want: reviewStatus{allowed: true}},

		{name: "other version", code: 200, body: `{"apiVersion":"authorization.k8s.io/v1beta1","kind":"SubjectAccessReview","status":{"allowed":true}}`,
			wantErr: "converting (v1beta1.SubjectAccessReview) to (v1.SubjectAccessReview): unknown conversion"},
		{name: "status on 200", code: 200, body: `{"apiVersion":"v1","kind":"Status","status":"Failure"}`,
			wantErr: "converting (v1.Status) to (v1.SubjectAccessReview): unknown conversion"},
		{name: "unknown group", code: 200, body: `{"apiVersion":"foo/v1"}`,
			wantErr: `no kind "SubjectAccessReview" is registered for version "foo/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "unknown kind", code: 200, body: `{"KIND":"Foo"}`,
			wantErr: `no kind "Foo" is registered for version "authorization.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "bad apiVersion", code: 200, body: `{"apiVersion":"a/b/c"}`, wantErr: "unexpected GroupVersion string: a/b/c"},
		{name: "wrong type", code: 200, body: `{"status":{"allowed":"true"}}`,
			wantErr: "json: cannot unmarshal string into Go struct field SubjectAccessReviewStatus.status.allowed of type bool"},
		{name: "bad metadata", code: 200, body: `{"metadata":{"creationTimestamp":"bad"}}`,
			wantErr: `parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"`},
		{name: "trailing data", code: 200, body: `{} x`,
			wantErr: "couldn't get version/kind; json parse error: invalid character 'x' after top-level value"},
		{name: "array", code: 200, body: `[1]`,
			wantErr: "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }"},
		{name: "empty 200", code: 200, ct: "application/json", body: ``, wantErr: "0-length response with status code: 200 and content type: application/json"},
		{name: "empty 204 without content type", code: 204, body: ``, wantErr: "0-length response with status code: 204 and content type: application/json"},
		{name: "bad content type", code: 200, ct: "a b", body: `{}`, wantErr: "Internal error occurred: mime: expected slash after first token", wantRetry: true, wantStatus: 500},
		{name: "207", code: 207, body: `{}`, wantErr: "the server responded with the status code 207 but did not return more information", wantStatus: 207},

		{name: "500 text", code: 500, ct: "text/plain", body: "  boom \n", wantErr: `an error on the server ("boom") has prevented the request from succeeding`, wantRetry: true, wantStatus: 500},
		{name: "502 json", code: 502, ct: "application/json", body: "{}", wantErr: `an error on the server ("unknown") has prevented the request from succeeding`, wantRetry: true, wantStatus: 502},
		{name: "500 no content type is text", code: 500, body: "oops", wantErr: `an error on the server ("oops") has prevented the request from succeeding`, wantRetry: true, wantStatus: 500},
		{name: "500 long text is cut", code: 500, ct: "text/plain", body: strings.Repeat("a", 3000), wantErr: `an error on the server ("` + strings.Repeat("a", 2048) + `") has prevented the request from succeeding`, wantRetry: true, wantStatus: 500},
		{name: "503", code: 503, body: "", wantErr: "the server is currently unable to handle the request", wantStatus: 503},
		{name: "503 with retry-after", code: 503, ra: "2", body: "", wantErr: "the server is currently unable to handle the request", wantRetry: true, wantStatus: 503},
		{name: "504", code: 504, body: "", wantErr: "the server was unable to return a response in the time allotted, but may still be processing the request", wantRetry: true, wantStatus: 504},
		{name: "429", code: 429, body: "", wantErr: "the server has received too many requests and has asked us to try again later", wantRetry: true, wantStatus: 429},
		{name: "404", code: 404, body: "", wantErr: "the server could not find the requested resource", wantStatus: 404},
		{name: "404 with retry-after", code: 404, ra: "1", body: "", wantErr: "the server could not find the requested resource", wantRetry: true, wantStatus: 404},
		{name: "403 keeps the message", code: 403, ct: "text/plain", body: "go away", wantErr: "go away", wantStatus: 403},
		{name: "401", code: 401, body: "", wantErr: "the server has asked for the client to provide credentials", wantStatus: 401},
		{name: "status body overrides", code: 403, ct: "application/json", body: `{"kind":"Status","apiVersion":"v1","status":"Failure","code":500,"reason":"InternalError","message":"nope"}`, wantErr: "nope", wantRetry: true, wantStatus: 500},
		{name: "status body without version", code: 403, body: `{"kind":"Status","status":"Failure","code":500,"message":"nope"}`, wantErr: "nope", wantRetry: true, wantStatus: 500},
		{name: "status body not failure", code: 403, ct: "application/json", body: `{"kind":"Status","status":"Success","code":500}`, wantErr: "unknown", wantStatus: 403},
		{name: "status body retry after", code: 400, ct: "application/json", body: `{"kind":"Status","status":"Failure","code":400,"details":{"retryAfterSeconds":1},"message":"later"}`, wantErr: "later", wantRetry: true, wantStatus: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeReview(tt.code, tt.ct, tt.ra, []byte(tt.body), tt.v1beta1, conditionalReading{})
			if tt.wantErr == "" {
				assert.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			assert.EqualError(t, err, tt.wantErr)
			assert.Equal(t, tt.wantRetry, shouldRetry(err), "retried")
			if tt.wantStatus != 0 {
				var se apierrors.APIStatus
				if assert.ErrorAs(t, err, &se) {
					assert.Equal(t, tt.wantStatus, se.Status().Code)
				}
			}
		})
	}
}

// referenceCodec decodes as kube-apiserver's webhook client does, with the
// authorization and meta types registered.
func referenceCodec() runtime.Codec {
	scheme := runtime.NewScheme()
	_ = authorizationv1.AddToScheme(scheme)
	_ = authorizationv1beta1.AddToScheme(scheme)
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(scheme).LegacyCodec(authorizationv1.SchemeGroupVersion)
}

// FuzzDecodeReview checks that no answer crashes the decoder, and that a 200
// answer is read as apimachinery's codec reads it: same status, or an error
// on both sides.
func FuzzDecodeReview(f *testing.F) {
	for _, s := range []string{
		`{"status":{"allowed":true}}`, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"denied":true,"reason":"x"}}`,
		`{"kind":"Status","status":"Failure","code":500}`, `null`, `[]`, `{"apiVersion":"a/b/c"}`, `{"status":{"allowed":1}}`,
		`{"metadata":{"name":5}}`, `{"Kind":"Foo"}`, `{"apiVersion":"authorization.k8s.io/v1beta1"}`,
		// 1.38's status.conditionalDecision, unknown to the v0.37 types.
		`{"status":{"allowed":true,"conditionalDecision":{"type":"ConditionsMap","conditionsMap":{"denyConditions":[{"id":"example.com/d"}]}}}}`,
		`{"status":{"conditionalDecision":"yes","reason":"r"}}`,
	} {
		f.Add(200, "application/json", "", []byte(s))
	}
	f.Add(500, "text/plain", "1", []byte("boom"))
	f.Add(429, "", "x", []byte(`{"kind":"Status","status":"Failure","code":429,"details":{"retryAfterSeconds":-3}}`))
	codec := referenceCodec()
	f.Fuzz(func(t *testing.T, code int, ct, ra string, body []byte) {
		got, err := decodeReview(code, ct, ra, body, false, conditionalReading{})
		if err != nil {
			_ = shouldRetry(err)
		}
		if code >= 300 && code < 600 && ct == "application/json" && len(body) > 0 {
			// The error of a failed answer: the body's Status, if it has one.
			want := "generic"
			if obj, _, refErr := codec.Decode(body, &schema.GroupVersionKind{Version: "v1"}, nil); refErr == nil {
				if st, ok := obj.(*metav1.Status); ok && st.Status == metav1.StatusFailure {
					want = st.Message
				}
			}
			var se *apierrors.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("code %d body %q: not a status error: %v", code, body, err)
			}
			isCause := len(se.ErrStatus.Details.Causes) == 1 && se.ErrStatus.Details.Causes[0].Type == metav1.CauseTypeUnexpectedServerResponse
			if want == "generic" != isCause || (want != "generic" && want != se.ErrStatus.Message) {
				t.Fatalf("code %d body %q: gatehouse %+v, apimachinery %q", code, body, se.ErrStatus, want)
			}
		}
		if code != 200 || ct != "application/json" || len(body) == 0 {
			return
		}
		var sar authorizationv1.SubjectAccessReview
		_, _, refErr := codec.Decode(body, nil, &sar)
		if (err == nil) != (refErr == nil) {
			t.Fatalf("body %q: gatehouse error %v, apimachinery error %v", body, err, refErr)
		}
		if err == nil {
			want := reviewStatus{allowed: sar.Status.Allowed, denied: sar.Status.Denied, reason: sar.Status.Reason}
			if got != want {
				t.Fatalf("body %q: gatehouse %+v, apimachinery %+v", body, got, want)
			}
		}
	})
}
