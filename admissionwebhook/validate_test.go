package admissionwebhook_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

func TestValidate(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	unknown := admissionregistrationv1.SideEffectClassUnknown
	tests := []struct {
		name    string
		handle  admissionwebhooktest.HandleFunc
		fault   *admissionwebhooktest.Fault
		webhook func(*admissionregistrationv1.ValidatingWebhook)
		dryRun  bool
		// code and message of the error; 0 when admitted.
		code    int32
		reason  metav1.StatusReason
		message string
		// annotations expected in the result.
		annotations map[string]string
		warnings    []string
		// the metrics series of apiserver_admission_webhook_request_total:
		// code, rejected.
		requestCode, rejected string
		rejection             []string
	}{
		{name: "allow", handle: admissionwebhooktest.Allow(), requestCode: "200", rejected: "false"},
		{name: "deny with a status", handle: admissionwebhooktest.Deny(403, "pods are not welcome"),
			code: 403, message: `admission webhook "w.example.com" denied the request: pods are not welcome`,
			requestCode: "403", rejected: "true", rejection: []string{"no_error", "403"}},
		{name: "deny without explanation", handle: func(*admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
			return admissionwebhooktest.Answer{}
		}, code: 400, message: `admission webhook "w.example.com" denied the request without explanation`,
			requestCode: "400", rejected: "true", rejection: []string{"no_error", "400"}},
		{name: "deny with a reason only", handle: func(*admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
			return admissionwebhooktest.Answer{Status: &metav1.Status{Code: 200, Reason: "Forbidden"}}
		}, code: 400, reason: metav1.StatusReasonForbidden, message: `admission webhook "w.example.com" denied the request: Forbidden`,
			requestCode: "400", rejected: "true", rejection: []string{"no_error", "400"}},
		{name: "warnings and audit annotations", handle: func(*admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
			return admissionwebhooktest.Answer{Allowed: true, Warnings: []string{"deprecated"},
				AuditAnnotations: map[string]string{"key": "value", "bad key": "dropped"}}
		}, warnings: []string{"deprecated"}, annotations: map[string]string{"w.example.com/key": "value"},
			requestCode: "200", rejected: "false"},
		{name: "server error fails closed", fault: &admissionwebhooktest.Fault{Status: 500, Body: []byte("boom"), ContentType: "text/plain"},
			code: 500, reason: metav1.StatusReasonInternalError,
			message:     `Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: an error on the server ("boom") has prevented the request from succeeding`,
			requestCode: "500", rejected: "true", rejection: []string{"calling_webhook_error", "500"}},
		{name: "server error fails open", fault: &admissionwebhooktest.Fault{Status: 500}, webhook: ignore,
			annotations: map[string]string{"failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "w.example.com"},
			requestCode: "500", rejected: "false"},
		{name: "retried after Retry-After", fault: &admissionwebhooktest.Fault{Status: 503, RetryAfter: "0"},
			requestCode: "200", rejected: "false"},
		{name: "malformed answer", fault: &admissionwebhooktest.Fault{Body: []byte("{")},
			code: 500, message: `Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: couldn't get version/kind; json parse error: unexpected end of JSON input`,
			requestCode: "503", rejected: "true", rejection: []string{"calling_webhook_error", "503"}},
		{name: "wrong uid", fault: &admissionwebhooktest.Fault{UID: "other"},
			code: 500, message: `Internal error occurred: failed calling webhook "w.example.com": received invalid webhook response: expected response.uid="0b7a6c61-0000-4000-8000-000000000001", got "other"`,
			requestCode: "503", rejected: "true", rejection: []string{"calling_webhook_error", "503"}},
		{name: "a status in the body of an error", fault: &admissionwebhooktest.Fault{Status: 429,
			Body: []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"slow down","reason":"TooManyRequests","code":429}`)},
			code: 500, message: `Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: slow down`,
			requestCode: "429", rejected: "true", rejection: []string{"calling_webhook_error", "429"}},
		{name: "dry run with side effects", dryRun: true, webhook: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.SideEffects = &unknown
			ignore(w)
		}, code: 400, reason: metav1.StatusReasonBadRequest, message: `admission webhook "w.example.com" does not support dry run`,
			requestCode: "0", rejected: "true", rejection: []string{"apiserver_internal_error", "0"}},
		{name: "a validating webhook may not patch", handle: admissionwebhooktest.Patch(`[]`),
			code: 500, message: `Internal error occurred: failed calling webhook "w.example.com": received invalid webhook response: validating webhook may not return response.patch`,
			requestCode: "503", rejected: "true", rejection: []string{"calling_webhook_error", "503"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/" + strings.ReplaceAll(tt.name, " ", "-")
			if tt.handle != nil {
				srv.Handle(path, tt.handle)
			}
			if tt.fault != nil {
				f := *tt.fault
				f.Path = path
				srv.Inject(f)
			}
			var mods []func(*admissionregistrationv1.ValidatingWebhook)
			if tt.webhook != nil {
				mods = append(mods, tt.webhook)
			}
			sink := metrics.NewMemory()
			d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{validating(srv, "w.example.com", path, mods...)},
				admissionwebhook.Options{UID: fixedUID, Metrics: sink})
			require.NoError(t, err)
			req := createPod()
			req.DryRun = tt.dryRun
			res, err := d.Validate(context.Background(), req)
			if tt.code == 0 {
				require.NoError(t, err)
			} else {
				var status *apierrors.StatusError
				require.ErrorAs(t, err, &status)
				assert.Equal(t, tt.code, status.ErrStatus.Code)
				assert.Equal(t, tt.message, status.ErrStatus.Message)
				assert.Equal(t, metav1.StatusFailure, status.ErrStatus.Status)
				if tt.reason != "" {
					assert.Equal(t, tt.reason, status.ErrStatus.Reason)
				}
			}
			assert.Equal(t, tt.annotations, res.AuditAnnotations)
			assert.Equal(t, tt.warnings, res.Warnings)
			assert.Equal(t, 1.0, sink.Value(metrics.AdmissionWebhookRequests, "w.example.com", "validating", "CREATE", tt.requestCode, tt.rejected))
			if tt.rejection != nil {
				assert.Equal(t, 1.0, sink.Value(metrics.AdmissionWebhookRejections, append([]string{"w.example.com", "validating", "CREATE"}, tt.rejection...)...))
			} else {
				assert.Empty(t, sink.Series(metrics.AdmissionWebhookRejections))
			}
			if _, ok := tt.annotations["failed-open.validating.webhook.admission.k8s.io/round_0_index_0"]; ok {
				assert.Equal(t, 1.0, sink.Value(metrics.AdmissionWebhookFailOpen, "w.example.com", "validating"))
			}
		})
	}
}

// The review is kube-apiserver's: the fields, the version, the uid, the
// query and the headers.
func TestValidateSendsTheReview(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	for _, version := range []string{"v1", "v1beta1"} {
		t.Run(version, func(t *testing.T) {
			srv.ResetRequests()
			w := validating(srv, "w.example.com", "/validate/", func(w *admissionregistrationv1.ValidatingWebhook) {
				w.AdmissionReviewVersions = []string{"v2", version, "v1"}
			})
			d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{UID: fixedUID})
			require.NoError(t, err)
			_, err = d.Validate(context.Background(), createPod())
			require.NoError(t, err)
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			r := reqs[0]
			assert.Equal(t, http.MethodPost, r.Method)
			assert.Equal(t, "/validate", r.Path, "the path is cleaned as client-go's")
			assert.Equal(t, "timeout=10s", r.RawQuery)
			assert.Equal(t, "kube-apiserver-admission", r.Header.Get("User-Agent"))
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
			assert.Equal(t, "application/json, */*", r.Header.Get("Accept"))
			assert.Equal(t, "HTTP/1.1", r.Proto)
			assert.Equal(t, "admission.k8s.io/"+version, r.APIVersion)
			want := `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/` + version + `","request":{"uid":"0b7a6c61-0000-4000-8000-000000000001",` +
				`"kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},` +
				`"requestKind":{"group":"","version":"v1","kind":"Pod"},"requestResource":{"group":"","version":"v1","resource":"pods"},` +
				`"name":"p","namespace":"default","operation":"CREATE","userInfo":{"username":"alice","groups":["dev"]},` +
				`"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"default","labels":{"app":"web"}},` +
				`"spec":{"containers":[{"name":"c","image":"nginx","resources":{}}]},"status":{}},"oldObject":null,"dryRun":false,"options":null}}` + "\n"
			assert.Equal(t, want, string(r.Body))
		})
	}
}

// Webhooks are called concurrently; the first refusal wins, the others'
// annotations and warnings are kept.
func TestValidateConcurrentWebhooks(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.Handle("/a", func(*admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		return admissionwebhooktest.Answer{Allowed: true, Warnings: []string{"from a"}}
	})
	srv.Handle("/b", admissionwebhooktest.Deny(422, "invalid"))
	srv.InjectAlways(admissionwebhooktest.Fault{Path: "/c", Status: 502})
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{
		validating(srv, "a.example.com", "/a"),
		validating(srv, "b.example.com", "/b"),
		validating(srv, "c.example.com", "/c", ignore),
	}, admissionwebhook.Options{})
	require.NoError(t, err)
	res, err := d.Validate(context.Background(), createPod())
	require.Error(t, err)
	assert.Equal(t, `admission webhook "b.example.com" denied the request: invalid`, err.Error())
	assert.True(t, apierrors.IsInvalid(err) || apierrors.ReasonForError(err) == "", "the webhook's reason is kept")
	assert.Equal(t, []string{"from a"}, res.Warnings)
	assert.Equal(t, map[string]string{"failed-open.validating.webhook.admission.k8s.io/round_0_index_2": "c.example.com"}, res.AuditAnnotations)
	assert.Len(t, srv.Requests(), 3)
}

// A webhook that hangs is given up after its timeoutSeconds.
func TestValidateTimeout(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	srv.InjectAlways(admissionwebhooktest.Fault{Hang: true})
	one := int32(1)
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{validating(srv, "w.example.com", "/hang", func(w *admissionregistrationv1.ValidatingWebhook) {
		w.TimeoutSeconds = &one
	})}, admissionwebhook.Options{})
	require.NoError(t, err)
	_, err = d.Validate(context.Background(), createPod())
	require.Error(t, err)
	assert.True(t, apierrors.IsInternalError(err))
	assert.Contains(t, err.Error(), `failed calling webhook "w.example.com": failed to call webhook: Post "`+srv.URL("/hang")+`?timeout=1s": context deadline exceeded`)
	assert.Equal(t, "timeout=1s", srv.Requests()[0].RawQuery)
}

// A service reference is posted to https://<name>.<namespace>.svc:<port>,
// connecting to the address the resolver gives.
func TestValidateService(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	var resolved []string
	port := int32(8443)
	path := "/svc"
	w := validating(srv, "w.example.com", "", func(w *admissionregistrationv1.ValidatingWebhook) {
		w.ClientConfig.URL = nil
		w.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "hooks", Name: "checker", Port: &port, Path: &path}
	})
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{w}, admissionwebhook.Options{
		// The test server's certificate is for example.com.
		TLSConfig: &tls.Config{ServerName: "example.com"},
		ServiceResolver: admissionwebhook.ServiceResolverFunc(func(namespace, name string, port int32) (*url.URL, error) {
			resolved = append(resolved, namespace+"/"+name)
			return url.Parse("https://" + srv.Address())
		}),
	})
	require.NoError(t, err)
	_, err = d.Validate(context.Background(), createPod())
	require.NoError(t, err)
	assert.Equal(t, []string{"hooks/checker"}, resolved)
	r := srv.Requests()[0]
	assert.Equal(t, "checker.hooks.svc:8443", r.Host)
	assert.Equal(t, "/svc", r.Path)
}

// A request no webhook matches calls none.
func TestValidateNoMatch(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{validating(srv, "w.example.com", "/w")}, admissionwebhook.Options{})
	require.NoError(t, err)
	req := createPod()
	req.Resource.Resource = "configmaps"
	req.Kind.Kind = "ConfigMap"
	res, err := d.Validate(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, admissionwebhook.Result{}, res)
	assert.Empty(t, srv.Requests())
}

// Match conditions decide with the webhook's failure policy, and their
// metrics go to the dispatcher's sink.
func TestValidateMatchConditions(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	sink := metrics.NewMemory()
	d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{
		validating(srv, "skipped.example.com", "/skipped", func(w *admissionregistrationv1.ValidatingWebhook) {
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "not-alice", Expression: "request.userInfo.username != 'alice'"}}
		}),
		validating(srv, "called.example.com", "/called", func(w *admissionregistrationv1.ValidatingWebhook) {
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "alice", Expression: "request.userInfo.username == 'alice'"}}
		}),
	}, admissionwebhook.Options{Metrics: sink})
	require.NoError(t, err)
	_, err = d.Validate(context.Background(), createPod())
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/called", reqs[0].Path)
	assert.Equal(t, 1.0, sink.Value(metrics.AdmissionMatchConditionExclusions, "skipped.example.com", "webhook", "validate", "CREATE"))
}

type panickingTransport struct{}

func (panickingTransport) RoundTrip(*http.Request) (*http.Response, error) { panic("boom") }

// TestValidatePanic: a validating webhook whose call panics fails the
// request with an internal error, or fails open under failurePolicy
// Ignore, whether it is the only webhook called (on the caller's
// goroutine) or one of several (each on its own).
func TestValidatePanic(t *testing.T) {
	srv := newServer(t, admissionwebhooktest.Options{})
	for _, n := range []int{1, 2} {
		for _, ignored := range []bool{false, true} {
			var hooks []admissionmanifest.Webhook
			for i := range n {
				var mod []func(*admissionregistrationv1.ValidatingWebhook)
				if ignored {
					mod = append(mod, ignore)
				}
				hooks = append(hooks, validating(srv, string(rune('a'+i))+".example.com", "/allow", mod...))
			}
			d, err := admissionwebhook.NewDispatcher(hooks, admissionwebhook.Options{
				Metrics:       metrics.NewMemory(),
				WrapTransport: func(http.RoundTripper) http.RoundTripper { return panickingTransport{} },
			})
			require.NoError(t, err)
			res, err := d.Validate(context.Background(), createPod())
			if ignored {
				require.NoError(t, err, "%d webhooks", n)
				require.Len(t, res.FailedOpen, n)
				assert.EqualError(t, res.FailedOpen[0].Err, "ValidatingAdmissionWebhook/a.example.com has panicked: boom")
				continue
			}
			require.Error(t, err, "%d webhooks", n)
			assert.True(t, apierrors.IsInternalError(err), "%v", err)
			assert.Contains(t, err.Error(), "has panicked: boom")
		}
	}
}
