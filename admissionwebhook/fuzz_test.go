package admissionwebhook

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
)

// FuzzDecodeResponse feeds arbitrary answers to the decoding and checks of
// a webhook's AdmissionReview: they never panic, and an answer they accept
// has the request's uid in v1.
func FuzzDecodeResponse(f *testing.F) {
	w, err := newWire()
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"W10="}}`,
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"x","allowed":false,"status":{"code":403}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patchType":""}}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`,
		`{"response":{"uid":"u"}}`,
		`{`,
		``,
	} {
		f.Add([]byte(seed), true, false)
	}
	f.Fuzz(func(t *testing.T, body []byte, v1, mutating bool) {
		var into runtime.Object = &admissionv1.AdmissionReview{}
		if !v1 {
			into = &admissionv1beta1.AdmissionReview{}
		}
		out, _, err := w.codec.Decode(body, nil, into)
		if err != nil || out != into {
			return
		}
		res, err := verifyResponse("u", mutating, into)
		if err != nil {
			return
		}
		if r, ok := into.(*admissionv1.AdmissionReview); ok && r.Response.UID != "u" {
			t.Fatalf("accepted uid %q", r.Response.UID)
		}
		if !mutating && (len(res.patch) > 0 || res.patchType != "") {
			t.Fatal("a validating answer kept a patch")
		}
		_ = rejectionStatus("w", res.result)
	})
}
