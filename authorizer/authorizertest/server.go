package authorizertest

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/internal/fakewebhook"
)

// DecideFunc answers a review. The spec is always in its v1 form (a v1beta1
// review is converted); the answer is sent in the version of the review.
type DecideFunc func(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus

// Options configure a Server. The zero value serves TLS at /authorize and has
// no opinion on anything.
type Options struct {
	// Decide answers each review; nil answers {allowed: false} (no opinion).
	Decide DecideFunc
	// Plain serves HTTP instead of HTTPS.
	Plain bool
	// HTTP2 offers HTTP/2 over TLS. It is off by default because connection
	// resets need HTTP/1.1.
	HTTP2 bool
	// Path is the path the kubeconfig points at; "/authorize" if empty. The
	// server answers on every path and records which one was asked.
	Path string
	// Token, when set, goes into the kubeconfig, and requests without
	// "Authorization: Bearer <Token>" are answered 401.
	Token string
	// ClientCA, PEM, makes the server require client certificates signed
	// by it (see CA).
	ClientCA []byte
	// ClientCertificate and ClientKey, PEM, go into the kubeconfig.
	ClientCertificate, ClientKey []byte
	// Clock times injected latency; nil means the real clock.
	Clock clock.Clock
	// DiscardRequests keeps no record of the requests, for benchmarks.
	DiscardRequests bool
	// Answer, when set, answers each request with the body it returns
	// (nil: the usual review from Decide): for what the review types of
	// k8s.io/api v0.37 cannot say, such as 1.38's conditional decisions and
	// AuthorizationConditionsReview answers (whose uid must echo the
	// request's). A Fault's Body still wins.
	Answer func(request []byte) []byte
}

// Server is a fake authorization webhook. It is safe for concurrent use.
type Server struct {
	opts Options
	srv  *fakewebhook.Server
	clk  clock.Clock

	mu       sync.Mutex
	decide   DecideFunc
	queue    []Fault
	always   *Fault
	requests []Request
}

// Request is a request the server received.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Proto    string
	Header   http.Header
	// Body is the request body as received.
	Body []byte
	// APIVersion is the apiVersion of the review (authorization.k8s.io/v1 or
	// /v1beta1), empty if the body was not a review.
	APIVersion string
	// Spec is the review's spec in its v1 form; nil if the body was not a
	// review.
	Spec *authorizationv1.SubjectAccessReviewSpec
	// ClientCommonName is the common name of the client certificate, if
	// one was presented.
	ClientCommonName string
	// Fault is the fault injected into the answer, if any.
	Fault *Fault
}

// Fault changes how the server answers one request (Inject) or every request
// (InjectAlways). Fields combine: latency first, then the answer.
type Fault struct {
	// Latency delays the answer, on the server's clock. The wait ends early
	// if the client goes away.
	Latency time.Duration
	// Hang never answers: the server waits until the client goes away (its
	// timeout or cancellation).
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
}

// NewServer starts a fake webhook on 127.0.0.1.
func NewServer(opts Options) (*Server, error) {
	if opts.Path == "" {
		opts.Path = "/authorize"
	}
	s := &Server{opts: opts, clk: opts.Clock, decide: opts.Decide}
	if s.clk == nil {
		s.clk = clock.RealClock{}
	}
	srv, err := fakewebhook.StartServer(http.HandlerFunc(s.serve), fakewebhook.ServerOptions{
		Plain: opts.Plain, HTTP2: opts.HTTP2, ClientCA: opts.ClientCA, Owner: "authorizertest",
	})
	if err != nil {
		return nil, err
	}
	s.srv = srv
	return s, nil
}

// Close shuts the server down and closes its connections.
func (s *Server) Close() { s.srv.Close() }

// URL is the URL of the review endpoint.
func (s *Server) URL() string { return s.srv.URL + s.opts.Path }

// Transport returns a transport that trusts the server's certificate, for a
// caller-supplied connection.
func (s *Server) Transport() http.RoundTripper {
	tr := s.srv.Client().Transport.(*http.Transport).Clone()
	return tr
}

// SetDecide replaces the function that answers reviews.
func (s *Server) SetDecide(d DecideFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decide = d
}

// Inject queues faults, used by the next requests, one each, in order.
func (s *Server) Inject(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, faults...)
}

// InjectAlways applies f to every request that has no queued fault, until
// ClearFaults.
func (s *Server) InjectAlways(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always = &f
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

// Kubeconfig returns a kubeconfig that points at the server (and trusts its
// certificate), with the token if one was configured.
func (s *Server) Kubeconfig() []byte {
	cluster := map[string]any{"server": s.URL()}
	if !s.opts.Plain {
		cluster["certificate-authority-data"] = s.CertificatePEM()
	}
	user := map[string]any{}
	if s.opts.Token != "" {
		user["token"] = s.opts.Token
	}
	if len(s.opts.ClientCertificate) > 0 {
		user["client-certificate-data"] = s.opts.ClientCertificate
		user["client-key-data"] = s.opts.ClientKey
	}
	kc := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"clusters":        []any{map[string]any{"name": "webhook", "cluster": cluster}},
		"users":           []any{map[string]any{"name": "apiserver", "user": user}},
		"contexts":        []any{map[string]any{"name": "webhook", "context": map[string]any{"cluster": "webhook", "user": "apiserver"}}},
		"current-context": "webhook",
	}
	data, err := yaml.Marshal(kc)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return data
}

// WriteKubeconfig writes Kubeconfig to path.
func (s *Server) WriteKubeconfig(path string) error {
	return os.WriteFile(path, s.Kubeconfig(), 0o600)
}

// CertificatePEM is the server's certificate, which is also its CA; empty for
// a plain server.
func (s *Server) CertificatePEM() []byte { return s.srv.CertificatePEM() }

// review reads a SubjectAccessReview of either version.
type review struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		authorizationv1.SubjectAccessReviewSpec
		Group []string `json:"group"` // v1beta1
	} `json:"spec"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Proto: r.Proto, Body: body,
	}
	if !s.opts.DiscardRequests {
		rec.Header = r.Header.Clone()
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		rec.ClientCommonName = r.TLS.PeerCertificates[0].Subject.CommonName
	}
	// One pass for both versions: v1beta1 names the groups "group".
	var rv review
	var spec *authorizationv1.SubjectAccessReviewSpec
	if json.Unmarshal(body, &rv) == nil && rv.Kind == "SubjectAccessReview" {
		switch rv.APIVersion {
		case "authorization.k8s.io/v1":
			spec = &rv.Spec.SubjectAccessReviewSpec
		case "authorization.k8s.io/v1beta1":
			spec = &rv.Spec.SubjectAccessReviewSpec
			spec.Groups = rv.Spec.Group
		}
		if spec != nil {
			rec.APIVersion = rv.APIVersion
		}
	}
	rec.Spec = spec

	s.mu.Lock()
	var fault *Fault
	if len(s.queue) > 0 {
		f := s.queue[0]
		s.queue = s.queue[1:]
		fault = &f
	} else if s.always != nil {
		f := *s.always
		fault = &f
	}
	rec.Fault = fault
	decide := s.decide
	if !s.opts.DiscardRequests {
		s.requests = append(s.requests, rec)
	}
	s.mu.Unlock()

	if s.opts.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.Token {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if fault != nil {
		if fault.Latency > 0 {
			t := s.clk.NewTimer(fault.Latency)
			select {
			case <-t.C():
			case <-r.Context().Done():
				t.Stop()
				// Answer nothing: the client has gone, and a late answer could
				// still race its way to it.
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

	var status authorizationv1.SubjectAccessReviewStatus
	if decide != nil && spec != nil {
		status = decide(*spec)
	}
	out := answer(rec.APIVersion, status)
	if s.opts.Answer != nil {
		if raw := s.opts.Answer(body); raw != nil {
			out = raw
		}
	}
	code := http.StatusOK
	ct := "application/json"
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

func answer(apiVersion string, status authorizationv1.SubjectAccessReviewStatus) []byte {
	if apiVersion == "" {
		apiVersion = "authorization.k8s.io/v1"
	}
	var v any
	if apiVersion == "authorization.k8s.io/v1beta1" {
		v = authorizationv1beta1.SubjectAccessReview{
			Status: authorizationv1beta1.SubjectAccessReviewStatus{
				Allowed: status.Allowed, Denied: status.Denied, Reason: status.Reason, EvaluationError: status.EvaluationError,
			},
		}
	} else {
		v = authorizationv1.SubjectAccessReview{Status: status}
	}
	data, _ := json.Marshal(v)
	// Put the type first, as a server would.
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"apiVersion":%q,"kind":"SubjectAccessReview",`, apiVersion)
	b.Write(data[1:])
	return b.Bytes()
}

// Always answers every review with status.
func Always(status authorizationv1.SubjectAccessReviewStatus) DecideFunc {
	return func(authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus { return status }
}

// AllowIf allows the reviews pred accepts and has no opinion on the others.
func AllowIf(pred func(authorizationv1.SubjectAccessReviewSpec) bool) DecideFunc {
	return func(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
		return authorizationv1.SubjectAccessReviewStatus{Allowed: pred(spec)}
	}
}

var errNotTLS = errors.New("authorizertest: the server is plain HTTP")

// TLSConfig returns a client TLS configuration that trusts the server.
func (s *Server) TLSConfig() (*tls.Config, error) {
	if s.opts.Plain {
		return nil, errNotTLS
	}
	return s.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(), nil
}
