package admissionwebhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/lru"
)

// ServiceResolver resolves a webhook's service reference to the address to
// connect to, as kube-apiserver's service resolver does. The request keeps
// the service's name as its host (https://<name>.<namespace>.svc:<port>)
// and TLS server name; only the connection goes to the resolved address.
type ServiceResolver interface {
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// ServiceResolverFunc adapts a function to a ServiceResolver.
type ServiceResolverFunc func(namespace, name string, port int32) (*url.URL, error)

// ResolveEndpoint calls f.
func (f ServiceResolverFunc) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return f(namespace, name, port)
}

// defaultResolver is kube-apiserver's default service resolver: the
// service's DNS name.
func defaultResolver(namespace, name string, port int32) (*url.URL, error) {
	if len(name) == 0 || len(namespace) == 0 || port == 0 {
		return nil, errors.New("cannot resolve an empty service name or namespace or port")
	}
	return &url.URL{Scheme: "https", Host: fmt.Sprintf("%s.%s.svc:%d", name, namespace, port)}, nil
}

const (
	// userAgent is kube-apiserver's for webhook calls.
	userAgent = "kube-apiserver-admission"
	// clientTimeout bounds every call, as kube-apiserver's webhook client
	// does.
	clientTimeout = 30 * time.Second
	// clientCacheSize is the number of clients kept, as kube-apiserver's
	// client manager keeps them.
	clientCacheSize = 200
)

// client is the HTTP client of one clientConfig.
type client struct {
	http *http.Client
	// base is the URL posted to, without query.
	base *url.URL
}

// ClientCache holds webhooks' HTTP clients, one per distinct clientConfig,
// the 200 most recently used (kube-apiserver's client manager's bound).
// Options.Clients shares one between Dispatchers. It is safe for
// concurrent use.
type ClientCache struct {
	cache *lru.Cache
}

// NewClientCache returns an empty ClientCache.
func NewClientCache() *ClientCache {
	return &ClientCache{cache: lru.New(clientCacheSize)}
}

// clients builds and caches the clients of the webhooks' clientConfigs.
type clients struct {
	o     *Options
	cache *lru.Cache
}

func newClients(o *Options) *clients {
	if o.Clients != nil {
		return &clients{o: o, cache: o.Clients.cache}
	}
	return &clients{o: o, cache: lru.New(clientCacheSize)}
}

// clientFor returns the client of cc, built once per distinct clientConfig.
func (c *clients) clientFor(webhook string, cc *admissionregistrationv1.WebhookClientConfig) (*client, error) {
	key := clientKey(cc)
	if v, ok := c.cache.Get(key); ok {
		return v.(*client), nil
	}
	cl, err := c.build(webhook, cc)
	if err != nil {
		return nil, err
	}
	c.cache.Add(key, cl)
	return cl, nil
}

// clientKey is cc's key in the client cache: each of its fields, absent or
// length-prefixed, so that two clientConfigs have the same key only when
// they are the same (an empty caBundle counts as none), without the
// reflection and base64 of the JSON that kube-apiserver's client manager
// keys its clients by.
func clientKey(cc *admissionregistrationv1.WebhookClientConfig) string {
	b := make([]byte, 0, 64+len(cc.CABundle))
	str := func(present bool, s string) {
		if !present {
			b = append(b, '-')
			return
		}
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	str(cc.URL != nil, deref(cc.URL))
	if svc := cc.Service; svc != nil {
		b = append(b, 's')
		str(true, svc.Namespace)
		str(true, svc.Name)
		str(svc.Path != nil, deref(svc.Path))
		if svc.Port != nil {
			b = strconv.AppendInt(b, int64(*svc.Port), 10)
		}
		b = append(b, ';')
	} else {
		b = append(b, '-')
	}
	if len(cc.CABundle) > 0 {
		b = strconv.AppendInt(b, int64(len(cc.CABundle)), 10)
		b = append(b, ':')
		b = append(b, cc.CABundle...)
	} else {
		b = append(b, '-')
	}
	return string(b)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (c *clients) build(webhook string, cc *admissionregistrationv1.WebhookClientConfig) (*client, error) {
	tlsConfig := &tls.Config{}
	if c.o.TLSConfig != nil {
		tlsConfig = c.o.TLSConfig.Clone()
	}
	if tlsConfig.MinVersion == 0 {
		tlsConfig.MinVersion = tls.VersionTLS12
	}
	if len(cc.CABundle) > 0 {
		pool, err := rootCertPool(cc.CABundle)
		if err != nil {
			return nil, err
		}
		tlsConfig.RootCAs = pool
	}
	var base *url.URL
	http2 := true
	var resolve func(http.RoundTripper) http.RoundTripper
	switch {
	case cc.Service != nil:
		port := int32(443)
		if cc.Service.Port != nil && *cc.Service.Port != 0 {
			port = *cc.Service.Port
		}
		serverName := cc.Service.Name + "." + cc.Service.Namespace + ".svc"
		host := net.JoinHostPort(serverName, strconv.Itoa(int(port)))
		var p string
		if cc.Service.Path != nil {
			p = *cc.Service.Path
		}
		base = &url.URL{Scheme: "https", Host: host, Path: path.Join("/", p)}
		if tlsConfig.ServerName == "" {
			tlsConfig.ServerName = serverName
		}
		http2 = false
		resolver := c.o.ServiceResolver
		if resolver == nil {
			resolver = ServiceResolverFunc(defaultResolver)
		}
		svc := *cc.Service
		resolve = func(rt http.RoundTripper) http.RoundTripper {
			return &resolvingRoundTripper{delegate: rt, resolver: resolver, namespace: svc.Namespace, name: svc.Name, port: port, host: host}
		}
	case cc.URL != nil && *cc.URL != "":
		u, err := url.Parse(*cc.URL)
		if err != nil {
			//lint:ignore ST1005 kube-apiserver's exact text
			return nil, &callError{webhook: webhook, reason: fmt.Errorf("Unparsable URL: %v", err)}
		}
		base = &url.URL{Scheme: u.Scheme, Host: u.Host, Path: path.Join("/", u.Path)}
		http2 = isLocalHost(u)
	default:
		return nil, &callError{webhook: webhook, reason: errors.New("webhook configuration must have either service or URL")}
	}
	if !http2 {
		tlsConfig.NextProtos = []string{"http/1.1"}
	}
	dial := c.o.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	var rt http.RoundTripper = &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dial,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     90 * time.Second,
		MaxIdleConnsPerHost: 25,
		ForceAttemptHTTP2:   http2,
	}
	if c.o.WrapTransport != nil {
		rt = c.o.WrapTransport(rt)
	}
	if resolve != nil {
		rt = resolve(rt)
	}
	return &client{http: &http.Client{Transport: rt, Timeout: clientTimeout}, base: base}, nil
}

// rootCertPool is the pool of a caBundle, with client-go's errors.
func rootCertPool(ca []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if pool.AppendCertsFromPEM(ca) {
		return pool, nil
	}
	err := errors.New("no valid certificate authority data seems to exist")
	for rest := ca; len(rest) > 0; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			err = errors.New("unable to parse bytes as PEM block")
			break
		}
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		if _, perr := x509.ParseCertificate(block.Bytes); perr != nil {
			err = fmt.Errorf("failed to parse certificate: %w", perr)
			break
		}
	}
	return nil, fmt.Errorf("unable to load root certificates: %w", err)
}

func isLocalHost(u *url.URL) bool {
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return false
}

// resolvingRoundTripper sends the requests to a service's host to the
// address the resolver gives, keeping the Host header.
type resolvingRoundTripper struct {
	delegate        http.RoundTripper
	resolver        ServiceResolver
	namespace, name string
	port            int32
	host            string
}

func (r *resolvingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != r.host {
		return r.delegate.RoundTrip(req)
	}
	u, err := r.resolver.ResolveEndpoint(r.namespace, r.name, r.port)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	if out.Host == "" {
		out.Host = req.URL.Host
	}
	out.URL.Host = u.Host
	return r.delegate.RoundTrip(out)
}

// post sends body to the client's URL and decodes the answer into into,
// as kube-apiserver's REST client does; its errors are the REST client's.
// The query carries the time left before ctx's deadline, rounded up to the
// second, or the client's own timeout. An answer 429 or 5xx with a
// Retry-After header in seconds is retried after that many seconds, 10 times
// at most.
func (c *client) post(ctx context.Context, w *wire, body []byte, into runtime.Object) error {
	timeout := clientTimeout
	if deadline, ok := ctx.Deadline(); ok {
		if t := time.Until(deadline); t > 0 {
			if truncated := t.Truncate(time.Second); truncated != t {
				t = truncated + time.Second
			}
			timeout = t
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := *c.base
	u.RawQuery = url.Values{"timeout": []string{timeout.String()}}.Encode()
	var resp *http.Response
	var wait time.Duration
	for attempt := 0; ; attempt++ {
		// The REST client gives up before an attempt once the context is
		// done, with the context's own error.
		if err := ctx.Err(); err != nil {
			return err
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Accept", "application/json, */*")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", userAgent)
		if resp, err = c.http.Do(req); err != nil {
			return err
		}
		seconds, retry := retryAfter(resp)
		if !retry || attempt >= maxRetries {
			break
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrainBytes))
		resp.Body.Close()
		wait = time.Duration(seconds) * time.Second
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", err)
	}
	contentType := resp.Header.Get("Content-Type")
	if contentType == "" {
		contentType = "application/json"
	}
	if _, _, err := mime.ParseMediaType(contentType); err != nil {
		return apierrors.NewInternalError(err)
	}
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		return responseError(w, resp, data)
	}
	if len(data) == 0 {
		return fmt.Errorf("0-length response with status code: %d and content type: %s", resp.StatusCode, contentType)
	}
	return w.decodeAnswer(data, into)
}

// decodeAnswer decodes a 2xx answer into into, an empty AdmissionReview:
// the common shapes without reflection (fastDecodeAnswer), anything else
// with the codec (decodeExact).
func (w *wire) decodeAnswer(data []byte, into runtime.Object) error {
	if fastDecodeAnswer(data, into) {
		return nil
	}
	return w.decodeExact(data, into)
}

// decodeExact decodes a 2xx answer into into as the REST client does, with
// its errors.
func (w *wire) decodeExact(data []byte, into runtime.Object) error {
	out, _, err := w.codec.Decode(data, nil, into)
	if err != nil || out == into {
		return err
	}
	if s, ok := out.(*metav1.Status); ok && s.Status != metav1.StatusSuccess {
		return apierrors.FromObject(s)
	}
	return nil
}

const (
	// maxRetries is the number of times the REST client retries a call
	// whose answer asks for it.
	maxRetries = 10
	// maxDrainBytes is what is read of an answer before a retry.
	maxDrainBytes = 4 << 10
)

// retryAfter tells whether the REST client retries after resp, and after
// how many seconds: a 429 or a 5xx with a Retry-After header in seconds.
func retryAfter(resp *http.Response) (int, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < http.StatusInternalServerError {
		return 0, false
	}
	h := resp.Header.Get("Retry-After")
	if h == "" {
		return 0, false
	}
	i, err := strconv.Atoi(h)
	if err != nil {
		return 0, false
	}
	return i, true
}

// maxUnstructuredResponseTextBytes is the REST client's bound on the text
// of an error response it quotes.
const maxUnstructuredResponseTextBytes = 2048

// responseError is the REST client's error for a response whose status is
// not 2xx: the Status it carries if it is one with status Failure, a
// generic server response error otherwise.
func responseError(w *wire, resp *http.Response, body []byte) error {
	text := body
	if len(text) > maxUnstructuredResponseTextBytes {
		text = text[:maxUnstructuredResponseTextBytes]
	}
	message := "unknown"
	if isTextResponse(resp) {
		message = strings.TrimSpace(string(text))
	}
	retryAfter := 0
	if h := resp.Header.Get("Retry-After"); h != "" {
		if i, err := strconv.Atoi(h); err == nil {
			retryAfter = i
		}
	}
	err := apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", message, retryAfter, true)
	if !apierrors.IsUnexpectedServerError(err) || len(body) == 0 {
		return err
	}
	out, _, derr := w.codec.Decode(body, &schema.GroupVersionKind{Version: "v1"}, nil)
	if derr != nil {
		return err
	}
	if s, ok := out.(*metav1.Status); ok && s.Status == metav1.StatusFailure {
		return apierrors.FromObject(s)
	}
	return err
}

func isTextResponse(resp *http.Response) bool {
	contentType := resp.Header.Get("Content-Type")
	if contentType == "" {
		return true
	}
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return strings.HasPrefix(media, "text/")
}
