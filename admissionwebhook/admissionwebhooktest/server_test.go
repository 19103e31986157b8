package admissionwebhooktest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func post(t *testing.T, srv *Server, path, body string) (int, map[string]any) {
	t.Helper()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(srv.ClientConfig(path).CABundle))
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Post(*srv.ClientConfig(path).URL, "application/json", bytes.NewBufferString(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return resp.StatusCode, out
}

const reviewV1 = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","operation":"CREATE","kind":{"group":"","version":"v1","kind":"Pod"}}}`

func TestServerAnswers(t *testing.T) {
	srv, err := NewServer(Options{})
	require.NoError(t, err)
	defer srv.Close()
	srv.Handle("/deny", func(r *admissionv1.AdmissionRequest) Answer {
		return Answer{Status: &metav1.Status{Code: 403, Message: "no " + string(r.Operation)}, Warnings: []string{"w"},
			AuditAnnotations: map[string]string{"k": "v"}}
	})
	srv.Handle("/patch", Patch(`[{"op":"add","path":"/x","value":1}]`))

	tests := []struct {
		name, path, body string
		fault            *Fault
		code             int
		response         map[string]any
		apiVersion       string
	}{
		{name: "allow by default", path: "/any", body: reviewV1, code: 200, apiVersion: "admission.k8s.io/v1",
			response: map[string]any{"uid": "u1", "allowed": true}},
		{name: "deny", path: "/deny", body: reviewV1, code: 200, apiVersion: "admission.k8s.io/v1",
			response: map[string]any{"uid": "u1", "allowed": false, "status": map[string]any{"metadata": map[string]any{}, "code": 403.0, "message": "no CREATE"},
				"warnings": []any{"w"}, "auditAnnotations": map[string]any{"k": "v"}}},
		{name: "patch", path: "/patch", body: reviewV1, code: 200, apiVersion: "admission.k8s.io/v1",
			response: map[string]any{"uid": "u1", "allowed": true, "patchType": "JSONPatch", "patch": "W3sib3AiOiJhZGQiLCJwYXRoIjoiL3giLCJ2YWx1ZSI6MX1d"}},
		{name: "v1beta1", path: "/any", body: `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u2"}}`, code: 200,
			apiVersion: "admission.k8s.io/v1beta1", response: map[string]any{"uid": "u2", "allowed": true}},
		{name: "wrong uid and version", path: "/any", body: reviewV1, fault: &Fault{UID: "other", APIVersion: "admission.k8s.io/v1beta1"}, code: 200,
			apiVersion: "admission.k8s.io/v1beta1", response: map[string]any{"uid": "other", "allowed": true}},
		{name: "server error", path: "/any", body: reviewV1, fault: &Fault{Status: 503}, code: 503, apiVersion: "admission.k8s.io/v1",
			response: map[string]any{"uid": "u1", "allowed": true}},
		{name: "a fault for another path", path: "/any", body: reviewV1, fault: &Fault{Path: "/other", Status: 503}, code: 200,
			apiVersion: "admission.k8s.io/v1", response: map[string]any{"uid": "u1", "allowed": true}},
		{name: "not a review", path: "/any", body: `{}`, code: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.ClearFaults()
			srv.ResetRequests()
			if tt.fault != nil {
				srv.Inject(*tt.fault)
			}
			code, out := post(t, srv, tt.path, tt.body)
			assert.Equal(t, tt.code, code)
			if tt.response != nil {
				assert.Equal(t, tt.apiVersion, out["apiVersion"])
				assert.Equal(t, "AdmissionReview", out["kind"])
				assert.Equal(t, tt.response, out["response"])
			}
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, tt.path, reqs[0].Path)
			assert.Equal(t, tt.body, string(reqs[0].Body))
			if tt.code == 400 {
				assert.Nil(t, reqs[0].Request)
			} else {
				assert.NotNil(t, reqs[0].Request)
			}
		})
	}
}

func TestServerMalformedBodyAndReset(t *testing.T) {
	srv, err := NewServer(Options{})
	require.NoError(t, err)
	defer srv.Close()
	srv.Inject(Fault{Body: []byte("{"), ContentType: "text/plain"}, Fault{Reset: true})
	code, out := post(t, srv, "/x", reviewV1)
	assert.Equal(t, 200, code)
	assert.Nil(t, out)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.CertificatePEM())
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	_, err = c.Post(srv.URL("/x"), "application/json", bytes.NewBufferString(reviewV1))
	assert.Error(t, err)
}

func TestServerPlain(t *testing.T) {
	srv, err := NewServer(Options{Plain: true})
	require.NoError(t, err)
	defer srv.Close()
	cc := srv.ClientConfig("/p")
	assert.Empty(t, cc.CABundle)
	assert.Equal(t, "http://"+srv.Address()+"/p", *cc.URL)
}
