package authorizertest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
)

const v1Review = `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{"resourceAttributes":{"verb":"get","resource":"pods"},"user":"alice","groups":["g"]},"status":{"allowed":false}}`
const v1beta1Review = `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1beta1","metadata":{},"spec":{"nonResourceAttributes":{"path":"/x","verb":"get"},"user":"bob","group":["h"]},"status":{"allowed":false}}`

func post(t *testing.T, srv *authorizertest.Server, body string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"?timeout=3s", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: srv.Transport()}).Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

func TestServerAnswersAndRecords(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{
		Decide: authorizertest.AllowIf(func(spec authorizationv1.SubjectAccessReviewSpec) bool { return spec.User == "alice" }),
	})
	require.NoError(t, err)
	defer srv.Close()

	resp, body, err := post(t, srv, v1Review)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","metadata":{},"spec":{},"status":{"allowed":true}}`, string(body))

	_, body, err = post(t, srv, v1beta1Review)
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion":"authorization.k8s.io/v1beta1","kind":"SubjectAccessReview","metadata":{},"spec":{},"status":{"allowed":false}}`, string(body), "answered in the review's version")

	_, body, err = post(t, srv, `not a review`)
	require.NoError(t, err)
	assert.Contains(t, string(body), `"allowed":false`)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "POST", reqs[0].Method)
	assert.Equal(t, "/authorize", reqs[0].Path)
	assert.Equal(t, "timeout=3s", reqs[0].RawQuery)
	assert.Equal(t, v1Review, string(reqs[0].Body))
	assert.Equal(t, "authorization.k8s.io/v1", reqs[0].APIVersion)
	assert.Equal(t, "alice", reqs[0].Spec.User)
	assert.Equal(t, []string{"g"}, reqs[0].Spec.Groups)
	assert.Equal(t, "authorization.k8s.io/v1beta1", reqs[1].APIVersion)
	assert.Equal(t, []string{"h"}, reqs[1].Spec.Groups, "v1beta1's group is read into the v1 spec")
	assert.Equal(t, "/x", reqs[1].Spec.NonResourceAttributes.Path)
	assert.Nil(t, reqs[2].Spec)
	srv.ResetRequests()
	assert.Empty(t, srv.Requests())
}

func TestServerFaults(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Decide: authorizertest.Always(authorizationv1.SubjectAccessReviewStatus{Allowed: true})})
	require.NoError(t, err)
	defer srv.Close()

	srv.Inject(
		authorizertest.Fault{Status: 503, RetryAfter: "2", ContentType: "text/plain", Body: []byte("busy")},
		authorizertest.Fault{Body: []byte(`{"status":`)},
		authorizertest.Fault{Status: 429},
	)
	resp, body, err := post(t, srv, v1Review)
	require.NoError(t, err)
	assert.Equal(t, 503, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"))
	assert.Equal(t, "text/plain", resp.Header.Get("Content-Type"))
	assert.Equal(t, "busy", string(body))
	_, body, err = post(t, srv, v1Review)
	require.NoError(t, err)
	assert.Equal(t, `{"status":`, string(body))
	resp, body, err = post(t, srv, v1Review)
	require.NoError(t, err)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Contains(t, string(body), `"allowed":true`, "a status alone keeps the review")
	resp, _, err = post(t, srv, v1Review)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode, "the queue is used up")

	srv.InjectAlways(authorizertest.Fault{Reset: true})
	_, _, err = post(t, srv, v1Review)
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ECONNRESET), "%v", err)
	srv.ClearFaults()
	resp, _, err = post(t, srv, v1Review)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	reqs := srv.Requests()
	require.Len(t, reqs, 6)
	assert.Equal(t, 503, reqs[0].Fault.Status)
	assert.Nil(t, reqs[5].Fault)
}

func TestServerLatencyAndHangFollowTheClock(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv, err := authorizertest.NewServer(authorizertest.Options{Plain: true, Clock: clk,
		Decide: authorizertest.Always(authorizationv1.SubjectAccessReviewStatus{Allowed: true})})
	require.NoError(t, err)
	defer srv.Close()

	srv.Inject(authorizertest.Fault{Latency: 5 * time.Second})
	done := make(chan int, 1)
	go func() {
		resp, _, err := post(t, srv, v1Review)
		if err != nil {
			done <- 0
			return
		}
		done <- resp.StatusCode
	}()
	for !clk.HasWaiters() {
		select {
		case <-done:
			t.Fatal("answered before the latency passed")
		default:
		}
	}
	clk.Step(5 * time.Second)
	assert.Equal(t, 200, <-done)

	// A hang ends only when the client gives up; nothing is answered.
	srv.Inject(authorizertest.Fault{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL(), strings.NewReader(v1Review))
		_, err := http.DefaultClient.Do(req)
		errs <- err
	}()
	for len(srv.Requests()) < 2 {
		select {
		case err := <-errs:
			t.Fatalf("returned before the request arrived: %v", err)
		default:
		}
	}
	cancel()
	assert.ErrorIs(t, <-errs, context.Canceled)
}

func TestServerToken(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Token: "t0k"})
	require.NoError(t, err)
	defer srv.Close()
	resp, _, err := post(t, srv, v1Review)
	require.NoError(t, err)
	assert.Equal(t, 401, resp.StatusCode)
	assert.Contains(t, string(srv.Kubeconfig()), "token: t0k")
}

func TestServerKubeconfig(t *testing.T) {
	for _, plain := range []bool{false, true} {
		srv, err := authorizertest.NewServer(authorizertest.Options{Plain: plain, Path: "/review"})
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "kc")
		require.NoError(t, srv.WriteKubeconfig(path))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var kc struct {
			CurrentContext string `json:"current-context"`
			Clusters       []struct {
				Cluster struct {
					Server string `json:"server"`
					CA     []byte `json:"certificate-authority-data"`
				} `json:"cluster"`
			} `json:"clusters"`
		}
		require.NoError(t, yaml.Unmarshal(data, &kc))
		assert.Equal(t, "webhook", kc.CurrentContext)
		assert.Equal(t, srv.URL(), kc.Clusters[0].Cluster.Server)
		assert.True(t, strings.HasSuffix(srv.URL(), "/review"))
		assert.True(t, strings.HasPrefix(srv.URL(), "http://127.0.0.1:") == plain)
		assert.Equal(t, srv.CertificatePEM(), kc.Clusters[0].Cluster.CA)
		assert.Equal(t, plain, len(kc.Clusters[0].Cluster.CA) == 0)
		srv.Close()
	}
}

func TestCA(t *testing.T) {
	ca, err := authorizertest.NewCA()
	require.NoError(t, err)
	cert, key, err := ca.Issue("someone")
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(cert, []byte("-----BEGIN CERTIFICATE-----")))
	assert.True(t, bytes.HasPrefix(key, []byte("-----BEGIN EC PRIVATE KEY-----")))
	_, err = authorizertest.NewServer(authorizertest.Options{ClientCA: []byte("not PEM")})
	assert.EqualError(t, err, "authorizertest: ClientCA holds no PEM certificate")
}
