package admissionwebhook

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func emptyReview(v1 bool) runtime.Object {
	if v1 {
		return &admissionv1.AdmissionReview{}
	}
	return &admissionv1beta1.AdmissionReview{}
}

// checkFastAnswer decodes body with fastDecodeAnswer and, when it takes
// it, checks that the codec reads it without error to the same review, and
// that verifyResponse says the same of both. It reports whether the fast
// path took it.
func checkFastAnswer(t *testing.T, w *wire, body []byte, v1 bool) bool {
	t.Helper()
	fast, exact := emptyReview(v1), emptyReview(v1)
	if !fastDecodeAnswer(body, fast) {
		if !reflect.DeepEqual(fast, emptyReview(v1)) {
			t.Fatalf("%q: the fast path fell back but changed the review to %#v", body, fast)
		}
		return false
	}
	if err := w.decodeExact(body, exact); err != nil {
		t.Fatalf("%q: the fast path decoded %#v, the codec failed: %v", body, fast, err)
	}
	if !reflect.DeepEqual(fast, exact) {
		t.Fatalf("%q: the fast path decoded\n%#v\nthe codec\n%#v", body, fast, exact)
	}
	for _, mutating := range []bool{false, true} {
		fr, ferr := verifyResponse("u", mutating, fast)
		er, eerr := verifyResponse("u", mutating, exact)
		if fmt.Sprint(ferr) != fmt.Sprint(eerr) || !reflect.DeepEqual(fr, er) {
			t.Fatalf("%q, mutating %v: verified to %#v, %v from the fast path, %#v, %v from the codec", body, mutating, fr, ferr, er, eerr)
		}
	}
	return true
}

func TestFastDecodeAnswer(t *testing.T) {
	w, err := newWire()
	if err != nil {
		t.Fatal(err)
	}
	const v1, v1beta1 = true, false
	tests := []struct {
		name string
		body string
		v1   bool
		fast bool
	}{
		{"allowed", `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","allowed":true}}`, v1, true},
		{"allowed, controller-runtime's status", `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","allowed":true,"status":{"metadata":{},"code":200}}}`, v1, true},
		{"denied with a status", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":false,"status":{"kind":"Status","apiVersion":"v1","metadata":{"resourceVersion":"1","continue":"c"},"status":"Failure","message":"no","reason":"Forbidden","code":403,"details":{"name":"n","group":"g","kind":"k","uid":"x","causes":[{"reason":"FieldValueInvalid","message":"m","field":"spec"},null,{}],"retryAfterSeconds":5}}}}`, v1, true},
		{"patch", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscy90ZWFtIiwidmFsdWUiOiJhIn1d"}}`, v1, true},
		{"empty patch and patchType", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patchType":"","patch":""}}`, v1, true},
		{"warnings and audit annotations", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"warnings":["w1","日本",null],"auditAnnotations":{"a":"1","b":null}}}`, v1, true},
		{"empty collections", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"warnings":[],"auditAnnotations":{},"status":{"details":{"causes":[]}}}}`, v1, true},
		{"nulls", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null,"response":{"uid":null,"allowed":null,"status":null,"patch":null,"patchType":null,"auditAnnotations":null,"warnings":null}}`, v1, true},
		{"null status fields", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","status":{"kind":null,"metadata":null,"code":null,"details":null,"message":null}}}`, v1, true},
		{"null response", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":null}`, v1, true},
		{"no response", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, v1, true},
		{"wrong uid", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"other","allowed":true}}`, v1, true},
		{"odd white space", " \r\n\t{ \"apiVersion\" :\"admission.k8s.io/v1\" ,\n\"kind\":\t\"AdmissionReview\", \"response\" : { \"uid\" : \"u\" , \"allowed\" : true } }\n", v1, true},
		{"v1beta1", `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"x","allowed":false,"status":{"code":403,"message":"no"},"patch":"W10="}}`, v1beta1, true},
		{"escapes", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"\u0075","status":{"message":"pod \"p\" \u003cdenied\u003e \\ \/ \b\f\n\r\t \u00e9\u65e5"},"patchType":"JSON\u0050atch","patch":"W10\u003d","auditAnnotations":{"a":"\"1\""},"warnings":["\u2713 ok"]}}`, v1, true},
		{"negative code", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","status":{"code":-1}}}`, v1, true},

		{"no apiVersion", `{"kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`, v1, false},
		{"no kind", `{"apiVersion":"admission.k8s.io/v1","response":{"uid":"u","allowed":true}}`, v1, false},
		{"v1beta1 answer to v1", `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`, v1, false},
		{"v1 answer to v1beta1", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`, v1beta1, false},
		{"a Status", `{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`, v1, false},
		{"null apiVersion", `{"apiVersion":null,"kind":"AdmissionReview"}`, v1, false},
		{"request echoed", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u"},"response":{"uid":"u","allowed":true}}`, v1, false},
		{"unknown field", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"extra":1}}`, v1, false},
		{"key in another case", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"UID":"u","allowed":true}}`, v1, false},
		{"top key in another case", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","Kind":"Status","response":{"uid":"u","allowed":true}}`, v1, false},
		{"duplicate key", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":false,"allowed":true}}`, v1, false},
		{"duplicate response", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u"},"response":{"allowed":true}}`, v1, false},
		{"duplicate annotation", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","auditAnnotations":{"a":"1","a":"2"}}}`, v1, false},
		{"surrogate escape", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","warnings":["\ud83d\ude00"]}}`, v1, false},
		{"invalid escape", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","warnings":["\x"]}}`, v1, false},
		{"escape in a key", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"\u0075id":"u"}}`, v1, false},
		{"escape in kind", `{"apiVersion":"admission.k8s.io/v1","kind":"Admission\u0052eview"}`, v1, false},
		{"invalid UTF-8", "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"\xff\"}}", v1, false},
		{"code as a string", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","status":{"code":"403"}}}`, v1, false},
		{"code with a fraction", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","status":{"code":403.0}}}`, v1, false},
		{"code out of int32", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","status":{"code":2147483648}}}`, v1, false},
		{"allowed as a string", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":"true"}}`, v1, false},
		{"selfLink", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","status":{"metadata":{"selfLink":"/x"}}}}`, v1, false},
		{"remainingItemCount", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","status":{"metadata":{"remainingItemCount":1}}}}`, v1, false},
		{"bad base64", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patch":"W10"}}`, v1, false},
		{"trailing data", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"} {}`, v1, false},
		{"trailing comma", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",}`, v1, false},
		{"no-break space", "\u00a0{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}", v1, false},
		{"YAML", "apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\n", v1, false},
		{"empty", ``, v1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkFastAnswer(t, w, []byte(tt.body), tt.v1); got != tt.fast {
				t.Errorf("fast path taken: %v, want %v", got, tt.fast)
			}
		})
	}
}

// TestFastDecodeAnswerKeepsAFilledReview: the fast path decodes only into
// an empty review (the codec would merge into a filled one).
func TestFastDecodeAnswerKeepsAFilledReview(t *testing.T) {
	body := []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`)
	r := &admissionv1.AdmissionReview{Response: &admissionv1.AdmissionResponse{Warnings: []string{"w"}}}
	if fastDecodeAnswer(body, r) {
		t.Fatal("decoded into a filled review")
	}
	if fastDecodeAnswer(body, &metav1.Status{}) {
		t.Fatal("decoded into a Status")
	}
}

// FuzzAdmissionReviewAnswer: whatever answer the fast path takes, the
// codec reads without error to the same review, which verifyResponse
// checks to the same response or error; an answer it does not take, it
// leaves untouched.
func FuzzAdmissionReviewAnswer(f *testing.F) {
	w, err := newWire()
	if err != nil {
		f.Fatal(err)
	}
	code := func(c int32) *metav1.Status { return &metav1.Status{Code: c} }
	jsonPatch := admissionv1.PatchTypeJSONPatch
	for _, r := range []*admissionv1.AdmissionResponse{
		{UID: "u", Allowed: true},
		{UID: "u", Allowed: true, Result: code(200)},
		{UID: "u", Result: &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Message: "denied <by> policy & \"rule\"", Reason: "Forbidden", Code: 403,
			Details: &metav1.StatusDetails{Name: "p", Kind: "pods", Causes: []metav1.StatusCause{{Type: "FieldValueInvalid", Message: "bad", Field: "spec.containers[0]"}}, RetryAfterSeconds: 1}}},
		{UID: "u", Allowed: true, PatchType: &jsonPatch, Patch: []byte(`[{"op":"add","path":"/metadata/labels/team","value":"a"}]`)},
		{UID: "u", Allowed: true, Warnings: []string{"deprecated", "ünïcode ✓"}, AuditAnnotations: map[string]string{"k": "v", "policy": "p"}},
	} {
		for _, v := range []string{"admission.k8s.io/v1", "admission.k8s.io/v1beta1"} {
			data, err := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: v, Kind: "AdmissionReview"}, Response: r})
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data, v == "admission.k8s.io/v1")
		}
	}
	for _, seed := range []string{
		" \n{ \"kind\" : \"AdmissionReview\" ,\t\"apiVersion\":\"admission.k8s.io/v1\",\r\n\"response\":{\"uid\":\"u\",\"allowed\":true}}\n",
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"\u0075","allowed":true,"warnings":["\ud800"]}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","allowed":false,"allowed":true}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u"},"response":{"allowed":true}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"Allowed":true,"UID":"u","Status":{"Code":1}}}`,
		`{"KIND":"Status","kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u"}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":null,"response":{"uid":null,"allowed":null,"status":null,"patch":null,"patchType":null,"warnings":[null],"auditAnnotations":{"a":null}}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","status":{"code":"403","details":{"retryAfterSeconds":"1"}}}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","status":{"code":4e2,"metadata":{"remainingItemCount":-0}}}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","status":{"code":-2147483648,"details":{"causes":[null,{},{"reason":""}]}}}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","patch":"","patchType":"","warnings":[],"auditAnnotations":{}}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"u","patch":"W10","patchType":"JSONPatch"}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","response":{"uid":"u","allowed":true}}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"}`,
		`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":null}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`,
		`{"response":{"uid":"u"}}`,
		"kind: AdmissionReview\napiVersion: admission.k8s.io/v1\n",
		`{`,
		``,
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, v1 bool) {
		checkFastAnswer(t, w, body, v1)
	})
}
