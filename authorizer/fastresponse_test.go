package authorizer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFastDecodeReview(t *testing.T) {
	tests := []struct {
		body    string
		v1beta1 bool
		want    reviewStatus
		ok      bool
	}{
		{`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true,"reason":"yes"}}`, false, reviewStatus{allowed: true, reason: "yes"}, true},
		{" {\n\"status\" : { \"denied\" : true , \"evaluationError\":\"x\"} }\r\n", false, reviewStatus{denied: true}, true},
		{`{}`, false, reviewStatus{}, true},
		{`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","metadata":{},"spec":{},"status":{"denied":true}}`, false, reviewStatus{denied: true}, true},
		{`{"metadata":{"creationTimestamp":null},"spec":{ },"status":{"allowed":true}}`, false, reviewStatus{allowed: true}, true},
		{`{"metadata":{"name":"x"}}`, false, reviewStatus{}, false},
		{`{"metadata":{"creationTimestamp":"2020"}}`, false, reviewStatus{}, false},
		{`{"spec":{"user":"x"}}`, false, reviewStatus{}, false},
		{`{"metadata":{},"metadata":{}}`, false, reviewStatus{}, false},
		{`{"status":{}}`, true, reviewStatus{}, true},
		{`{"apiVersion":"authorization.k8s.io/v1beta1","status":{"allowed":false,"denied":false}}`, true, reviewStatus{}, true},
		{`{"status":{"reason":"日本"}}`, false, reviewStatus{reason: "日本"}, true},
		// Everything else goes the faithful way.
		{`{"apiVersion":"authorization.k8s.io/v1beta1"}`, false, reviewStatus{}, false},
		{`{"kind":"Status"}`, false, reviewStatus{}, false},
		{`{"status":{"allowed":true},"status":{}}`, false, reviewStatus{}, false},
		{`{"status":{"allowed":true,"allowed":false}}`, false, reviewStatus{}, false},
		{`{"status":{"reason":"a\"b"}}`, false, reviewStatus{}, false},
		{"{\"status\":{\"reason\":\"\xff\"}}", false, reviewStatus{}, false},
		{`{"status":{"allowed":1}}`, false, reviewStatus{}, false},
		{`{"status":null}`, false, reviewStatus{}, false},
		{`{"Status":{}}`, false, reviewStatus{}, false},
		{`{"status":{}} x`, false, reviewStatus{}, false},
		{`{"status":{"allowed":truex}}`, false, reviewStatus{}, false},
		{`{"status":{},}`, false, reviewStatus{}, false},
		{`{"status":{"allowed":true}`, false, reviewStatus{}, false},
		{"\u00a0{}", false, reviewStatus{}, false},
	}
	for _, tt := range tests {
		got, ok := fastDecodeReview([]byte(tt.body), tt.v1beta1)
		assert.Equal(t, tt.ok, ok, "%q", tt.body)
		if ok {
			assert.Equal(t, tt.want, got, "%q", tt.body)
			slow, err := decodeReviewSlow([]byte(tt.body), tt.v1beta1, conditionalReading{})
			assert.NoError(t, err)
			assert.Equal(t, tt.want, slow)
		}
	}
}

// FuzzFastDecodeReview: whatever the fast path accepts, the faithful path
// reads the same way.
func FuzzFastDecodeReview(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true,"reason":"r"}}`), false)
	f.Add([]byte(`{"status":{"denied":false,"evaluationError":""}}`), true)
	f.Fuzz(func(t *testing.T, body []byte, v1beta1 bool) {
		fast, ok := fastDecodeReview(body, v1beta1)
		if !ok {
			return
		}
		slow, err := decodeReviewSlow(body, v1beta1, conditionalReading{})
		if err != nil || slow != fast {
			t.Fatalf("%q: fast %+v, faithful %+v %v", body, fast, slow, err)
		}
	})
}
