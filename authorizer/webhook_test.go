package authorizer

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

func status(allowed, denied bool, reason string) authorizationv1.SubjectAccessReviewStatus {
	return authorizationv1.SubjectAccessReviewStatus{Allowed: allowed, Denied: denied, Reason: reason}
}

func TestWebhookInterpretsAnswers(t *testing.T) {
	tests := []struct {
		name       string
		answer     authorizationv1.SubjectAccessReviewStatus
		wantD      Decision
		wantReason string
		wantErr    string
	}{
		{"allowed", status(true, false, "ok"), DecisionAllow, "ok", ""},
		{"denied", status(false, true, "no"), DecisionDeny, "no", ""},
		{"neither", status(false, false, "not mine"), DecisionNoOpinion, "not mine", ""},
		{"both", status(true, true, "confused"), DecisionDeny, "confused", "webhook subject access review returned both allow and deny response"},
		{"evaluation error is ignored", authorizationv1.SubjectAccessReviewStatus{Allowed: true, EvaluationError: "x"}, DecisionAllow, "", ""},
	}
	for _, version := range []string{"v1", "v1beta1"} {
		for _, tt := range tests {
			t.Run(version+"/"+tt.name, func(t *testing.T) {
				srv, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(tt.answer)})
				// failurePolicy Deny shows that "both" is not a failure.
				w := newTestWebhook(t, kc, WebhookOptions{SubjectAccessReviewVersion: version, FailurePolicy: FailurePolicyNoOpinion})
				d, reason, err := w.Authorize(context.Background(), podGet("jane", "devs"))
				assert.Equal(t, tt.wantD, d)
				assert.Equal(t, tt.wantReason, reason)
				if tt.wantErr == "" {
					assert.NoError(t, err)
				} else {
					assert.EqualError(t, err, tt.wantErr)
				}
				reqs := srv.Requests()
				require.Len(t, reqs, 1)
				r := reqs[0]
				assert.Equal(t, http.MethodPost, r.Method)
				assert.Equal(t, "/authorize", r.Path)
				assert.Equal(t, "timeout=30s", r.RawQuery)
				assert.Equal(t, "authorization.k8s.io/"+version, r.APIVersion)
				assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
				assert.Equal(t, "application/json, */*", r.Header.Get("Accept"))
				assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "Go-http-client/"))
				require.NotNil(t, r.Spec)
				assert.Equal(t, "jane", r.Spec.User)
				assert.Equal(t, []string{"devs"}, r.Spec.Groups)
				assert.Equal(t, "pods", r.Spec.ResourceAttributes.Resource)
			})
		}
	}
}

func TestWebhookCachesByAllowed(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	clk := testingclock.NewFakeClock(time.Unix(1_700_000_000, 0))
	w := newTestWebhook(t, kc, WebhookOptions{AuthorizedTTL: 5 * time.Minute, UnauthorizedTTL: 30 * time.Second, Clock: clk})
	ctx := context.Background()
	ask := func(a *Attributes) (Decision, string) {
		d, r, err := w.Authorize(ctx, a)
		require.NoError(t, err)
		return d, r
	}
	requests := func() int { n := len(srv.Requests()); srv.ResetRequests(); return n }

	srv.SetDecide(authorizertest.Always(status(true, false, "first")))
	alice, bob := podGet("alice"), podGet("bob")
	ask(alice)
	assert.Equal(t, 1, requests())
	srv.SetDecide(authorizertest.Always(status(false, false, "second")))
	d, reason := ask(alice)
	assert.Equal(t, DecisionAllow, d, "an allowed answer is cached")
	assert.Equal(t, "first", reason)
	assert.Equal(t, 0, requests())

	ask(bob) // no opinion: cached for 30 s
	assert.Equal(t, 1, requests())
	clk.Step(30 * time.Second)
	ask(bob)
	ask(alice)
	assert.Equal(t, 0, requests(), "both still cached at the expiry instant")
	clk.Step(time.Nanosecond)
	ask(bob)
	ask(alice)
	assert.Equal(t, 1, requests(), "the unauthorized answer expired, the authorized one did not")
	clk.Step(5 * time.Minute)
	d, _ = ask(alice)
	assert.Equal(t, DecisionNoOpinion, d)
	assert.Equal(t, 1, requests(), "the authorized answer expired after 5 minutes")

	// An answer that both allows and denies is cached as allowed.
	srv.SetDecide(authorizertest.Always(status(true, true, "both")))
	carol := podGet("carol")
	_, _, err := w.Authorize(ctx, carol)
	require.Error(t, err)
	clk.Step(time.Minute)
	d, reason, err = w.Authorize(ctx, carol)
	assert.Equal(t, DecisionDeny, d)
	assert.Equal(t, "both", reason)
	assert.Error(t, err)
	assert.Equal(t, 1, requests())
}

func TestWebhookCachingOff(t *testing.T) {
	tests := []struct {
		name               string
		authorized, unauth time.Duration
		answer             authorizationv1.SubjectAccessReviewStatus
		wantRequests       int
	}{
		{"authorized off", 0, time.Minute, status(true, false, ""), 2},
		{"authorized off, unauthorized cached", 0, time.Minute, status(false, true, ""), 1},
		{"unauthorized off", time.Minute, 0, status(false, false, ""), 2},
		{"unauthorized off, authorized cached", time.Minute, 0, status(true, false, ""), 1},
		{"all off", 0, 0, status(true, false, ""), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(tt.answer)})
			w := newTestWebhook(t, kc, WebhookOptions{AuthorizedTTL: tt.authorized, UnauthorizedTTL: tt.unauth, Clock: testingclock.NewFakeClock(time.Now())})
			for range 2 {
				_, _, err := w.Authorize(context.Background(), podGet("x"))
				require.NoError(t, err)
			}
			assert.Len(t, srv.Requests(), tt.wantRequests)
		})
	}
}

func TestWebhookDoesNotCacheErrorsOrLargeRequests(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, ""))})
	w := newTestWebhook(t, kc, WebhookOptions{AuthorizedTTL: time.Hour, UnauthorizedTTL: time.Hour,
		Clock: testingclock.NewFakeClock(time.Now()), Backoff: &Backoff{Steps: 1}})
	ctx := context.Background()

	srv.Inject(authorizertest.Fault{Status: 404})
	_, _, err := w.Authorize(ctx, podGet("x"))
	require.Error(t, err)
	d, _, err := w.Authorize(ctx, podGet("x"))
	require.NoError(t, err)
	assert.Equal(t, DecisionAllow, d)
	assert.Len(t, srv.Requests(), 2, "the error was not cached")

	srv.ResetRequests()
	big := podGet("y")
	big.Name = strings.Repeat("n", attributeSizeLimit)
	for range 2 {
		_, _, err := w.Authorize(ctx, big)
		require.NoError(t, err)
	}
	assert.Len(t, srv.Requests(), 2, "a request of 10000 bytes or more is not cached")

	// A cached entry still serves an uncacheable request with the same key:
	// kube-apiserver looks the key up before it checks the size, and the path
	// is counted in the size but not in a resource request's key.
	srv.ResetRequests()
	small := podGet("z")
	_, _, err = w.Authorize(ctx, small)
	require.NoError(t, err)
	long := *small
	long.Path = "/" + strings.Repeat("p", attributeSizeLimit)
	_, _, err = w.Authorize(ctx, &long)
	require.NoError(t, err)
	assert.Len(t, srv.Requests(), 1)
}

func TestWebhookFailurePolicy(t *testing.T) {
	faults := []struct {
		name       string
		fault      authorizertest.Fault
		wantResult string
	}{
		{"404", authorizertest.Fault{Status: 404}, resultError},
		{"403", authorizertest.Fault{Status: 403, ContentType: "text/plain", Body: []byte("forbidden")}, resultError},
		{"malformed body", authorizertest.Fault{Body: []byte(`{"status":`)}, resultError},
		{"wrong kind", authorizertest.Fault{Body: []byte(`{"kind":"Pod"}`)}, resultError},
		{"empty body", authorizertest.Fault{Body: []byte{}}, resultError},
	}
	for _, policy := range []string{FailurePolicyNoOpinion, FailurePolicyDeny} {
		for _, f := range faults {
			t.Run(policy+"/"+f.name, func(t *testing.T) {
				srv, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "never"))})
				srv.InjectAlways(f.fault)
				mem := metrics.NewMemory()
				w := newTestWebhook(t, kc, WebhookOptions{FailurePolicy: policy, Metrics: mem, Clock: testingclock.NewFakeClock(time.Now())})
				d, reason, err := w.Authorize(context.Background(), podGet("x"))
				want := DecisionNoOpinion
				if policy == FailurePolicyDeny {
					want = DecisionDeny
				}
				assert.Equal(t, want, d)
				assert.Empty(t, reason)
				assert.Error(t, err)
				assert.Len(t, srv.Requests(), 1, "not retried")
				assert.Equal(t, 1, counter(mem, metrics.AuthorizationWebhookEvaluations, "test", f.wantResult))
				failOpen := 0
				if policy == FailurePolicyNoOpinion {
					failOpen = 1
				}
				assert.Equal(t, failOpen, counter(mem, metrics.AuthorizationWebhookFailOpen, "test", f.wantResult))
			})
		}
	}
}

// TestWebhookRetries steps a fake clock through kube-apiserver's backoff: 5
// calls, waiting 0.5 s, 0.75 s, 1.125 s and 1.6875 s, each plus up to 20%.
func TestWebhookRetries(t *testing.T) {
	faults := []struct {
		name       string
		fault      authorizertest.Fault
		wantResult string
	}{
		{"500", authorizertest.Fault{Status: 500}, resultError},
		{"504", authorizertest.Fault{Status: 504}, resultTimeout},
		{"429", authorizertest.Fault{Status: 429}, resultError},
		{"connection reset", authorizertest.Fault{Reset: true}, resultError},
		{"404 with Retry-After", authorizertest.Fault{Status: 404, RetryAfter: "3"}, resultError},
		{"bad content type", authorizertest.Fault{ContentType: "a b"}, resultError},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			srv, kc := fakeWebhook(t, authorizertest.Options{})
			srv.InjectAlways(f.fault)
			mem := metrics.NewMemory()
			clk := newStepClock()
			w := newTestWebhook(t, kc, WebhookOptions{Metrics: mem, Clock: clk})
			done := authorizeAsync(context.Background(), w, podGet("x"))
			base := []time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond, 1687500 * time.Microsecond}
			for _, b := range base {
				wait := clk.nextWait(t)
				assert.GreaterOrEqual(t, wait, b)
				assert.LessOrEqual(t, wait, b+b/5)
				clk.Step(wait)
			}
			go func() { // the last call's timeout timer
				for range clk.events {
				}
			}()
			res := <-done
			close(clk.events)
			assert.Equal(t, DecisionNoOpinion, res.d)
			assert.Error(t, res.err)
			assert.Len(t, srv.Requests(), 5)
			assert.Equal(t, 5, counter(mem, metrics.AuthorizationWebhookEvaluations, "test", f.wantResult))
			assert.Equal(t, 5, int(mem.HistogramOf(metrics.AuthorizationWebhookDuration, "test", f.wantResult).Count))
			assert.Equal(t, 1, counter(mem, metrics.AuthorizationWebhookFailOpen, "test", f.wantResult))
		})
	}
}

func TestWebhookRecoversAfterRetries(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "third time"))})
	srv.Inject(authorizertest.Fault{Status: 500}, authorizertest.Fault{Reset: true})
	mem := metrics.NewMemory()
	clk := newStepClock()
	w := newTestWebhook(t, kc, WebhookOptions{Metrics: mem, Clock: clk, FailurePolicy: FailurePolicyDeny})
	done := authorizeAsync(context.Background(), w, podGet("x"))
	for range 2 {
		clk.Step(clk.nextWait(t))
	}
	go func() {
		for range clk.events {
		}
	}()
	res := <-done
	close(clk.events)
	assert.Equal(t, DecisionAllow, res.d)
	assert.Equal(t, "third time", res.reason)
	assert.NoError(t, res.err)
	assert.Equal(t, 2, counter(mem, metrics.AuthorizationWebhookEvaluations, "test", resultError))
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationWebhookEvaluations, "test", resultSuccess))
	assert.Empty(t, mem.Series(metrics.AuthorizationWebhookFailOpen))
}

func TestWebhookRetryAfterIsHonouredWithinOneCall(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "finally"))})
	srv.Inject(authorizertest.Fault{Status: 429, RetryAfter: "2"}, authorizertest.Fault{Status: 503, RetryAfter: "1"})
	mem := metrics.NewMemory()
	clk := newStepClock()
	w := newTestWebhook(t, kc, WebhookOptions{Metrics: mem, Clock: clk})
	var tr *Trace
	done := make(chan struct{})
	go func() {
		tr = Explain(context.Background(), w, podGet("x"))
		close(done)
	}()
	for _, want := range []time.Duration{2 * time.Second, time.Second} {
		wait := clk.nextWait(t)
		assert.Equal(t, want, wait)
		clk.Step(wait)
	}
	go func() {
		for range clk.events {
		}
	}()
	<-done
	close(clk.events)
	assert.Equal(t, DecisionAllow, tr.Decision)
	assert.Len(t, srv.Requests(), 3)
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationWebhookEvaluations, "test", resultSuccess), "one call, three requests")
	require.Len(t, tr.Steps, 1)
	require.NotNil(t, tr.Steps[0].Webhook)
	require.Len(t, tr.Steps[0].Webhook.Attempts, 1)
	at := tr.Steps[0].Webhook.Attempts[0]
	assert.Equal(t, 3, at.Requests)
	assert.Equal(t, 200, at.StatusCode)
	assert.Equal(t, 3*time.Second, at.Duration)
}

func TestWebhookRetryAfterGivesUpAfterTenRetries(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.InjectAlways(authorizertest.Fault{Status: 503, RetryAfter: "0", ContentType: "text/plain", Body: []byte("busy")})
	w := newTestWebhook(t, kc, WebhookOptions{Clock: testingclock.NewFakeClock(time.Now())})
	_, _, err := w.Authorize(context.Background(), podGet("x"))
	assert.EqualError(t, err, "the server is currently unable to handle the request")
	assert.Len(t, srv.Requests(), 11, "1 request and 10 retries, then a 503 without delay is not retried")
}

func TestWebhookTimeout(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.InjectAlways(authorizertest.Fault{Hang: true})
	mem := metrics.NewMemory()
	clk := newStepClock()
	w := newTestWebhook(t, kc, WebhookOptions{Metrics: mem, Clock: clk, Timeout: 3 * time.Second})
	done := authorizeAsync(context.Background(), w, podGet("x"))
	ev := <-clk.events
	require.True(t, ev.afterFun)
	assert.Equal(t, 3*time.Second, ev.d)
	for len(srv.Requests()) == 0 { // the request must reach the server first
		select {
		case res := <-done:
			t.Fatalf("returned before the request arrived: %+v", res)
		default:
		}
	}
	clk.Step(3 * time.Second)
	res := <-done
	close(clk.events)
	assert.Equal(t, DecisionNoOpinion, res.d)
	assert.ErrorIs(t, res.err, context.DeadlineExceeded)
	assert.Len(t, srv.Requests(), 1, "a timeout is not retried")
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationWebhookEvaluations, "test", resultTimeout))
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationWebhookFailOpen, "test", resultTimeout))
	assert.Equal(t, 3.0, mem.HistogramOf(metrics.AuthorizationWebhookDuration, "test", resultTimeout).Sum)
}

func TestWebhookCancellationStopsRetries(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.InjectAlways(authorizertest.Fault{Status: 500})
	mem := metrics.NewMemory()
	clk := newStepClock()
	w := newTestWebhook(t, kc, WebhookOptions{Metrics: mem, Clock: clk})
	ctx, cancel := context.WithCancel(context.Background())
	done := authorizeAsync(ctx, w, podGet("x"))
	clk.nextWait(t) // waiting after the first call
	cancel()
	res := <-done
	close(clk.events)
	assert.Equal(t, DecisionNoOpinion, res.d)
	assert.EqualError(t, res.err, `an error on the server ("unknown") has prevented the request from succeeding`, "the last webhook error")
	assert.Len(t, srv.Requests(), 1)
	assert.Equal(t, 1, counter(mem, metrics.AuthorizationWebhookEvaluations, "test", resultError))
	assert.Empty(t, mem.Series(metrics.AuthorizationWebhookFailOpen), "no fail-open when the caller gave up")

	// A context canceled before the first call: no call at all.
	d, _, err := w.Authorize(ctx, podGet("y"))
	assert.Equal(t, DecisionNoOpinion, d)
	assert.EqualError(t, err, "webhook call failed: context canceled")
	assert.Len(t, srv.Requests(), 1)
}

func TestWebhookBearerToken(t *testing.T) {
	srv, kc := fakeWebhook(t, authorizertest.Options{Token: "s3cret", Decide: authorizertest.Always(status(true, false, ""))})
	w := newTestWebhook(t, kc, WebhookOptions{})
	d, _, err := w.Authorize(context.Background(), podGet("x"))
	require.NoError(t, err)
	assert.Equal(t, DecisionAllow, d)
	assert.Equal(t, "Bearer s3cret", srv.Requests()[0].Header.Get("Authorization"))
}

func TestWebhookCallerConnection(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Path: "/apis/authorization.k8s.io/v1/subjectaccessreviews", Decide: authorizertest.Always(status(false, true, "in-cluster says no"))})
	require.NoError(t, err)
	defer srv.Close()
	w, err := NewWebhook(WebhookOptions{
		Name: "in-cluster", SubjectAccessReviewVersion: "v1", FailurePolicy: FailurePolicyNoOpinion,
		Connection: &Connection{Server: srv.URL(), Transport: srv.Transport()}, UserAgent: "my-apiserver/1.0",
	})
	require.NoError(t, err)
	d, reason, err := w.Authorize(context.Background(), podGet("x"))
	require.NoError(t, err)
	assert.Equal(t, DecisionDeny, d)
	assert.Equal(t, "in-cluster says no", reason)
	r := srv.Requests()[0]
	assert.Equal(t, "/apis/authorization.k8s.io/v1/subjectaccessreviews", r.Path)
	assert.Equal(t, "my-apiserver/1.0", r.Header.Get("User-Agent"))
}

func TestWebhookVerifiesTLSByDefault(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Decide: authorizertest.Always(status(true, false, ""))})
	require.NoError(t, err)
	defer srv.Close()
	w, err := NewWebhook(WebhookOptions{
		Name: "x", SubjectAccessReviewVersion: "v1", FailurePolicy: FailurePolicyDeny,
		Connection: &Connection{Server: srv.URL()}, // no transport: system roots
	})
	require.NoError(t, err)
	d, _, err := w.Authorize(context.Background(), podGet("x"))
	assert.Equal(t, DecisionDeny, d)
	assert.ErrorContains(t, err, "certificate")
	assert.Empty(t, srv.Requests())
}

func TestNewWebhookRejectsBadOptions(t *testing.T) {
	_, kc := fakeWebhook(t, authorizertest.Options{})
	good := WebhookOptions{Name: "x", SubjectAccessReviewVersion: "v1", FailurePolicy: FailurePolicyDeny, KubeConfigFile: kc}
	tests := []struct {
		name    string
		mutate  func(o *WebhookOptions)
		wantErr string
	}{
		{"version", func(o *WebhookOptions) { o.SubjectAccessReviewVersion = "v2" }, `unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"`},
		{"no version", func(o *WebhookOptions) { o.SubjectAccessReviewVersion = "" }, `unsupported webhook authorizer version "", supported versions are "v1", "v1beta1"`},
		{"failure policy", func(o *WebhookOptions) { o.FailurePolicy = "Allow" }, `unknown failurePolicy "Allow"`},
		{"backoff steps", func(o *WebhookOptions) { o.Backoff = &Backoff{Steps: 0} }, "number of webhook retry attempts must be greater than 0, but is: 0"},
		{"negative ttl", func(o *WebhookOptions) { o.AuthorizedTTL = -1 }, "webhook timeout and TTLs must not be negative"},
		{"no connection", func(o *WebhookOptions) { o.KubeConfigFile = "" }, "a webhook authorizer needs a kubeconfig file or a connection"},
		{"missing kubeconfig", func(o *WebhookOptions) { o.KubeConfigFile = "/nonexistent/kc" }, "open /nonexistent/kc: no such file or directory"},
		{"bad server", func(o *WebhookOptions) {
			o.KubeConfigFile = ""
			o.Connection = &Connection{Server: "host:1/path"}
		}, `host must be a URL or a host:port pair: "host:1/path"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.mutate(&o)
			_, err := NewWebhook(o)
			assert.EqualError(t, err, tt.wantErr)
		})
	}
	_, err := NewWebhook(good)
	assert.NoError(t, err)
}

func TestRequestURL(t *testing.T) {
	tests := []struct {
		server     string
		defaultTLS bool
		timeout    time.Duration
		want       string
		wantErr    string
	}{
		{"https://h:8443/authorize", false, 30 * time.Second, "https://h:8443/authorize?timeout=30s", ""},
		{"https://h", false, 3 * time.Second, "https://h/?timeout=3s", ""},
		{"https://h/a//b/../c/", false, 1500 * time.Millisecond, "https://h/a/c?timeout=1.5s", ""},
		{"https://h/x?keep=no#frag", false, time.Second, "https://h/x?timeout=1s#frag", ""},
		{"h:8443", true, time.Second, "https://h:8443/?timeout=1s", ""},
		{"h:8443", false, time.Second, "http://h:8443/?timeout=1s", ""},
		{"h:8443/p", false, time.Second, "", `host must be a URL or a host:port pair: "h:8443/p"`},
		{"", false, time.Second, "", "host must be a URL or a host:port pair"},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			got, err := requestURL(tt.server, tt.defaultTLS, tt.timeout)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestWebhookDifferencesFromKubeAPIServer shows the documented differences
// of the webhook.
func TestWebhookDifferencesFromKubeAPIServer(t *testing.T) {
	t.Run("an answer with a zero TTL takes no room in the cache", func(t *testing.T) {
		srv, kc := fakeWebhook(t, authorizertest.Options{Decide: func(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
			return authorizationv1.SubjectAccessReviewStatus{Allowed: spec.User == "alice"}
		}})
		clk := testingclock.NewFakeClock(time.Now())
		w := newTestWebhook(t, kc, WebhookOptions{AuthorizedTTL: time.Hour, UnauthorizedTTL: 0, Clock: clk})
		w.cache = newDecisionCache(clk, 1) // a full cache after one entry
		ctx := context.Background()
		for _, user := range []string{"alice", "bob", "alice"} {
			_, _, err := w.Authorize(ctx, podGet(user))
			require.NoError(t, err)
		}
		// kube-apiserver would have stored bob's answer, already expired, in
		// alice's place, and asked again for alice.
		assert.Len(t, srv.Requests(), 2)
	})
	t.Run("an answer over 4 MiB is an error", func(t *testing.T) {
		srv, kc := fakeWebhook(t, authorizertest.Options{})
		srv.InjectAlways(authorizertest.Fault{Body: []byte(`{"status":{"allowed":true,"reason":"` + strings.Repeat("x", maxResponseBytes) + `"}}`)})
		w := newTestWebhook(t, kc, WebhookOptions{FailurePolicy: FailurePolicyDeny})
		d, _, err := w.Authorize(context.Background(), podGet("x"))
		assert.Equal(t, DecisionDeny, d)
		assert.EqualError(t, err, "the webhook's response is larger than 4194304 bytes")
	})
}

// On the real clock a decision reads it once: the cache takes the reading
// that ended the match conditions' timing (or the call's, on a miss).
// Lookups and stores on those readings expire entries as before.
func TestWebhookCacheOnTheRealClockReadings(t *testing.T) {
	for _, instrumented := range []bool{false, true} {
		t.Run(fmt.Sprint("metrics=", instrumented), func(t *testing.T) {
			srv, kc := fakeWebhook(t, authorizertest.Options{})
			opts := WebhookOptions{AuthorizedTTL: time.Hour, UnauthorizedTTL: time.Nanosecond, MatchConditions: []string{"request.user != 'mallory'"}}
			if instrumented {
				opts.Metrics = metrics.NewMemory()
			}
			w := newTestWebhook(t, kc, opts)
			ctx := context.Background()
			requests := func() int { n := len(srv.Requests()); srv.ResetRequests(); return n }

			srv.SetDecide(authorizertest.Always(status(true, false, "yes")))
			for range 3 {
				d, _, err := w.Authorize(ctx, podGet("alice"))
				require.NoError(t, err)
				assert.Equal(t, DecisionAllow, d)
			}
			assert.Equal(t, 1, requests(), "allowed for an hour: cached")

			srv.SetDecide(authorizertest.Always(status(false, false, "")))
			for range 3 {
				_, _, err := w.Authorize(ctx, podGet("bob"))
				require.NoError(t, err)
			}
			assert.Equal(t, 3, requests(), "no opinion for a nanosecond: expired by the next request")

			d, _, err := w.Authorize(ctx, podGet("mallory"))
			require.NoError(t, err)
			assert.Equal(t, DecisionNoOpinion, d, "excluded by the match conditions")
			assert.Equal(t, 0, requests())
		})
	}
}

// A cached decision and a request excluded by match conditions of the
// native shapes allocate nothing.
func TestWebhookHotPathsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items")
	}
	srv, kc := fakeWebhook(t, authorizertest.Options{})
	srv.SetDecide(authorizertest.Always(status(false, true, "kube-system is protected")))
	w := newTestWebhook(t, kc, WebhookOptions{AuthorizedTTL: time.Hour, UnauthorizedTTL: time.Hour, MatchConditions: []string{
		"has(request.resourceAttributes)",
		"request.resourceAttributes.namespace == 'kube-system'",
		"!('system:serviceaccounts:kube-system' in request.groups)",
	}})
	ctx := context.Background()
	cached, excluded := podGet("jane", "devs"), podGet("jane", "devs")
	cached.Namespace = "kube-system"
	d, _, err := w.Authorize(ctx, cached)
	require.NoError(t, err)
	require.Equal(t, DecisionDeny, d)
	for _, a := range []*Attributes{cached, excluded} {
		allocs := testing.AllocsPerRun(100, func() { _, _, _ = w.Authorize(ctx, a) })
		assert.Zero(t, allocs, a.Namespace)
	}
	assert.Len(t, srv.Requests(), 1)
}
