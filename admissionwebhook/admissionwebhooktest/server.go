package admissionwebhooktest

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/internal/fakewebhook"
)

// Answer is a webhook's answer to one review.
type Answer struct {
	// Allowed admits the request.
	Allowed bool
	// Status is the response's result: a refusal's code, reason and
	// message.
	Status *metav1.Status
	// Patch is a JSON patch, sent with patchType JSONPatch.
	Patch []byte
	// Warnings and AuditAnnotations are sent as they are.
	Warnings         []string
	AuditAnnotations map[string]string
}

// HandleFunc answers a review. The request is always in its v1 form (the
// fields of v1beta1 are the same); the answer is sent in the version of the
// review, with its uid.
type HandleFunc func(req *admissionv1.AdmissionRequest) Answer

// Allow answers every review with allowed: true.
func Allow() HandleFunc {
	return func(*admissionv1.AdmissionRequest) Answer { return Answer{Allowed: true} }
}

// Deny refuses every review with an HTTP status code and a message.
func Deny(code int32, message string) HandleFunc {
	return func(*admissionv1.AdmissionRequest) Answer {
		return Answer{Status: &metav1.Status{Code: code, Message: message}}
	}
}

// Patch allows every review with a JSON patch.
func Patch(jsonPatch string) HandleFunc {
	return func(*admissionv1.AdmissionRequest) Answer { return Answer{Allowed: true, Patch: []byte(jsonPatch)} }
}

// Options configure a Server. The zero value serves TLS and allows every
// review.
type Options struct {
	// Plain serves HTTP instead of HTTPS.
	Plain bool
	// HTTP2 offers HTTP/2 over TLS.
	HTTP2 bool
	// ClientCA, PEM, makes the server require client certificates signed
	// by it (see CA).
	ClientCA []byte
	// Default answers the reviews on paths without a handler (Handle); nil
	// allows them.
	Default HandleFunc
	// Clock times injected latency; nil means the real clock.
	Clock clock.Clock
	// DiscardRequests keeps no record of the requests, for benchmarks.
	DiscardRequests bool
}

// Server is a fake admission webhook: one HTTPS (or HTTP) server on
// 127.0.0.1 whose paths are webhooks with scripted answers. It is safe for
// concurrent use.
type Server struct {
	opts Options
	srv  *fakewebhook.Server
	clk  clock.Clock

	mu       sync.Mutex
	handlers map[string]HandleFunc
	queue    []Fault
	always   []Fault
	requests []Request
}

// Request is a request the server received.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Proto    string
	Host     string
	Header   http.Header
	// Body is the request body as received.
	Body []byte
	// APIVersion is the review's apiVersion (admission.k8s.io/v1 or
	// /v1beta1), empty if the body was not an AdmissionReview.
	APIVersion string
	// Request is the review's request in its v1 form; nil if the body was
	// not a review.
	Request *admissionv1.AdmissionRequest
	// ClientCommonName is the common name of the client certificate, if
	// one was presented.
	ClientCommonName string
	// Fault is the fault injected into the answer, if any.
	Fault *Fault
}

// Fault changes how the server answers. Fields combine: latency first,
// then the answer.
type Fault struct {
	// Path limits the fault to the requests on a path; empty: any path.
	Path string
	// Latency delays the answer, on the server's clock. The wait ends early
	// if the client goes away.
	Latency time.Duration
	// Hang never answers: the server waits until the client goes away.
	Hang bool
	// Reset closes the connection with a TCP reset instead of answering.
	Reset bool
	// Status is the HTTP status of the answer; 0 means 200.
	Status int
	// RetryAfter is the value of a Retry-After header, if not empty.
	RetryAfter string
	// ContentType replaces application/json.
	ContentType string
	// Body replaces the review in the answer (malformed or unexpected
	// bodies); nil keeps the review, which is still sent with any Status.
	Body []byte
	// UID replaces the review's uid in the answer.
	UID types.UID
	// APIVersion sends the answer in this apiVersion instead of the
	// review's.
	APIVersion string
}

// NewServer starts a fake admission webhook on 127.0.0.1.
func NewServer(opts Options) (*Server, error) {
	s := &Server{opts: opts, clk: opts.Clock, handlers: map[string]HandleFunc{}}
	if s.clk == nil {
		s.clk = clock.RealClock{}
	}
	srv, err := fakewebhook.StartServer(http.HandlerFunc(s.serve), fakewebhook.ServerOptions{
		Plain: opts.Plain, HTTP2: opts.HTTP2, ClientCA: opts.ClientCA, Owner: "admissionwebhooktest",
	})
	if err != nil {
		return nil, err
	}
	s.srv = srv
	return s, nil
}

// Close shuts the server down and closes its connections.
func (s *Server) Close() { s.srv.Close() }

// URL is the URL of path on the server.
func (s *Server) URL(path string) string { return s.srv.URL + path }

// Address is the server's host:port.
func (s *Server) Address() string { return s.srv.Listener.Addr().String() }

// ClientConfig is a webhook clientConfig that points at path on the
// server, with the server's certificate as caBundle (none for a plain
// server).
func (s *Server) ClientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	u := s.URL(path)
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: s.CertificatePEM()}
}

// CertificatePEM is the server's certificate, which is also its CA; empty
// for a plain server.
func (s *Server) CertificatePEM() []byte { return s.srv.CertificatePEM() }

// Handle makes h answer the reviews posted to path.
func (s *Server) Handle(path string, h HandleFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[path] = h
}

// Inject queues faults, each used by the next request on its path (any
// path if empty), in order.
func (s *Server) Inject(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, faults...)
}

// InjectAlways applies f to every request on its path that has no queued
// fault, until ClearFaults.
func (s *Server) InjectAlways(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always = append(s.always, f)
}

// ClearFaults drops queued and permanent faults.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue, s.always = nil, nil
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// review reads an AdmissionReview of either version: their requests have
// the same fields.
type review struct {
	APIVersion string                        `json:"apiVersion"`
	Kind       string                        `json:"kind"`
	Request    *admissionv1.AdmissionRequest `json:"request"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Proto: r.Proto, Host: r.Host, Body: body,
	}
	if !s.opts.DiscardRequests {
		rec.Header = r.Header.Clone()
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		rec.ClientCommonName = r.TLS.PeerCertificates[0].Subject.CommonName
	}
	var rv review
	if json.Unmarshal(body, &rv) == nil && rv.Kind == "AdmissionReview" && rv.Request != nil &&
		(rv.APIVersion == "admission.k8s.io/v1" || rv.APIVersion == "admission.k8s.io/v1beta1") {
		rec.APIVersion, rec.Request = rv.APIVersion, rv.Request
	}

	s.mu.Lock()
	fault := s.takeFault(r.URL.Path)
	rec.Fault = fault
	handle, ok := s.handlers[r.URL.Path]
	if !ok {
		handle = s.opts.Default
	}
	if handle == nil {
		handle = Allow()
	}
	if !s.opts.DiscardRequests {
		s.requests = append(s.requests, rec)
	}
	s.mu.Unlock()

	if fault != nil {
		if fault.Latency > 0 {
			t := s.clk.NewTimer(fault.Latency)
			select {
			case <-t.C():
			case <-r.Context().Done():
				t.Stop()
				panic(http.ErrAbortHandler)
			}
		}
		if fault.Hang {
			<-r.Context().Done()
			panic(http.ErrAbortHandler)
		}
		if fault.Reset {
			fakewebhook.ResetConnection(w)
			return
		}
	}

	var out []byte
	if rec.Request != nil {
		apiVersion, uid := rec.APIVersion, rec.Request.UID
		if fault != nil && fault.APIVersion != "" {
			apiVersion = fault.APIVersion
		}
		if fault != nil && fault.UID != "" {
			uid = fault.UID
		}
		out = encodeAnswer(apiVersion, uid, handle(rec.Request))
	}
	code := http.StatusOK
	ct := "application/json"
	if rec.Request == nil {
		code = http.StatusBadRequest
		out = []byte("admissionwebhooktest: the body is not an AdmissionReview\n")
		ct = "text/plain; charset=utf-8"
	}
	if fault != nil {
		if fault.Body != nil {
			out = fault.Body
		}
		if fault.Status != 0 {
			code = fault.Status
		}
		if fault.ContentType != "" {
			ct = fault.ContentType
		}
		if fault.RetryAfter != "" {
			w.Header().Set("Retry-After", fault.RetryAfter)
		}
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(code)
	_, _ = w.Write(out)
}

// takeFault returns the fault of the next request on path. s.mu is held.
func (s *Server) takeFault(path string) *Fault {
	for i, f := range s.queue {
		if f.Path == "" || f.Path == path {
			s.queue = append(s.queue[:i:i], s.queue[i+1:]...)
			return &f
		}
	}
	for _, f := range s.always {
		if f.Path == "" || f.Path == path {
			return &f
		}
	}
	return nil
}

// encodeAnswer is the AdmissionReview of an answer.
func encodeAnswer(apiVersion string, uid types.UID, a Answer) []byte {
	var v any
	var patchType *admissionv1.PatchType
	if len(a.Patch) > 0 {
		pt := admissionv1.PatchTypeJSONPatch
		patchType = &pt
	}
	if apiVersion == "admission.k8s.io/v1beta1" {
		var pt *admissionv1beta1.PatchType
		if patchType != nil {
			p := admissionv1beta1.PatchTypeJSONPatch
			pt = &p
		}
		v = &admissionv1beta1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: "AdmissionReview"},
			Response: &admissionv1beta1.AdmissionResponse{
				UID: uid, Allowed: a.Allowed, Result: a.Status, Patch: a.Patch, PatchType: pt,
				AuditAnnotations: a.AuditAnnotations, Warnings: a.Warnings,
			},
		}
	} else {
		v = &admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: "AdmissionReview"},
			Response: &admissionv1.AdmissionResponse{
				UID: uid, Allowed: a.Allowed, Result: a.Status, Patch: a.Patch, PatchType: patchType,
				AuditAnnotations: a.AuditAnnotations, Warnings: a.Warnings,
			},
		}
	}
	data, _ := json.Marshal(v)
	return data
}
