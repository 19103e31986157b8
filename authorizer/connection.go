package authorizer

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

type passiveClock = clock.PassiveClock

// Connection says where a webhook is and how to reach it.
type Connection struct {
	// Server is the URL the SubjectAccessReview is posted to. Its path is
	// kept (cleaned); its query is replaced by timeout=<timeout>, as
	// kube-apiserver's client does. A host:port without scheme means
	// http://host:port.
	Server string
	// Transport makes the requests and carries TLS and credentials; nil
	// means a transport that verifies TLS against the system's roots.
	Transport http.RoundTripper

	defaultTLS bool     // a host:port server means https
	files      []string // the files the connection was read from
}

// Files returns the files a connection read from ConnectionFromKubeconfig
// depends on: the kubeconfig and the CA, certificate and key files it names.
// A change to one of them calls for a new connection. (A token file is read
// again every minute by the connection itself.)
func (c Connection) Files() []string { return append([]string(nil), c.files...) }

// connection builds the transport a kubeconfig target describes.
func (t *kubeconfigTarget) connection(clk passiveClock) (Connection, error) {
	if clk == nil {
		clk = clock.RealClock{}
	}
	c, u := t.cluster, t.user
	conn := Connection{Server: c.Server}
	tlsConfig := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: c.InsecureSkipTLSVerify, //nolint:gosec // the kubeconfig asks for it
		ServerName:         c.TLSServerName,
	}
	caData := c.CertificateAuthorityData
	if c.CertificateAuthority != "" {
		data, err := os.ReadFile(c.CertificateAuthority)
		if err != nil {
			return Connection{}, fmt.Errorf("unable to read certificate-authority %v for %v due to %w", c.CertificateAuthority, t.clusterName, err)
		}
		caData = data
		conn.files = append(conn.files, c.CertificateAuthority)
	}
	if len(caData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caData) {
			return Connection{}, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		tlsConfig.RootCAs = pool
	}
	switch {
	case len(u.ClientCertificateData) > 0 && len(u.ClientKeyData) > 0:
		cert, err := tls.X509KeyPair(u.ClientCertificateData, u.ClientKeyData)
		if err != nil {
			return Connection{}, err
		}
		tlsConfig.Certificates = []tls.Certificate{cert}
	case u.ClientCertificate != "" || u.ClientKey != "":
		kp, err := newKeyPairFiles(u.ClientCertificate, u.ClientKey, u.ClientCertificateData, u.ClientKeyData)
		if err != nil {
			return Connection{}, err
		}
		tlsConfig.GetClientCertificate = kp.get
		for _, f := range []string{u.ClientCertificate, u.ClientKey} {
			if f != "" {
				conn.files = append(conn.files, f)
			}
		}
	}
	conn.defaultTLS = len(caData) > 0 || c.InsecureSkipTLSVerify || len(u.ClientCertificateData) > 0 || u.ClientCertificate != ""

	var proxy func(*http.Request) (*url.URL, error)
	if c.ProxyURL != "" {
		pu, err := url.Parse(c.ProxyURL)
		if err != nil {
			return Connection{}, fmt.Errorf("invalid 'proxy-url' %q for cluster %q: %w", c.ProxyURL, t.clusterName, err)
		}
		switch pu.Scheme {
		case "http", "https", "socks5":
		default:
			return Connection{}, fmt.Errorf("invalid 'proxy-url' %q for cluster %q: unsupported scheme %q, must be http, https, or socks5", c.ProxyURL, t.clusterName, pu.Scheme)
		}
		proxy = http.ProxyURL(pu)
	}
	tr := newTransport(tlsConfig)
	if proxy != nil {
		tr.Proxy = proxy
	}
	tr.DisableCompression = c.DisableCompression
	var rt http.RoundTripper = tr

	switch {
	case u.TokenFile != "":
		ts, err := newFileToken(u.TokenFile, u.Token, clk)
		if err != nil {
			return Connection{}, err
		}
		// The token file is read again every minute; it is not one of the
		// files whose change calls for a new connection.
		rt = &bearerTransport{token: ts.get, next: rt}
	case u.Token != "":
		token := u.Token
		rt = &bearerTransport{token: func() string { return token }, next: rt}
	case u.Username != "" || u.Password != "":
		rt = &basicAuthTransport{user: u.Username, password: u.Password, next: rt}
	}
	conn.Transport = rt
	return conn, nil
}

// newTransport is client-go's default transport for a TLS configuration: a
// proxy from the environment, HTTP/2 when the server offers it with the same
// health checks, 25 idle connections per host.
func newTransport(tlsConfig *tls.Config) *http.Transport {
	if tlsConfig == nil {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
		HTTP2: &http.HTTP2Config{
			SendPingTimeout: 30 * time.Second,
			PingTimeout:     15 * time.Second,
		},
	}
}

// keyPairFiles serves a client certificate read from files, read again for
// each new connection so that a rotated certificate is used without a
// restart; when the files cannot be read or do not match, the last good pair
// is kept.
type keyPairFiles struct {
	certFile, keyFile string
	certData, keyData []byte

	mu   sync.Mutex
	last *tls.Certificate
}

func newKeyPairFiles(certFile, keyFile string, certData, keyData []byte) (*keyPairFiles, error) {
	kp := &keyPairFiles{certFile: certFile, keyFile: keyFile, certData: certData, keyData: keyData}
	cert, err := kp.load()
	if err != nil {
		return nil, err
	}
	kp.last = cert
	return kp, nil
}

func (kp *keyPairFiles) load() (*tls.Certificate, error) {
	certPEM, keyPEM := kp.certData, kp.keyData
	if kp.certFile != "" {
		data, err := os.ReadFile(kp.certFile)
		if err != nil {
			return nil, fmt.Errorf("unable to read client-cert %v due to %w", kp.certFile, err)
		}
		certPEM = data
	}
	if kp.keyFile != "" {
		data, err := os.ReadFile(kp.keyFile)
		if err != nil {
			return nil, fmt.Errorf("unable to read client-key %v due to %w", kp.keyFile, err)
		}
		keyPEM = data
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	return &cert, nil
}

func (kp *keyPairFiles) get(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	if cert, err := kp.load(); err == nil {
		kp.last = cert
	}
	return kp.last, nil
}

// fileToken is client-go's cached file token source: the token file is read
// again once its copy is 50 s old (a minute less 10 s of leeway); a failed
// read keeps the previous token.
type fileToken struct {
	path  string
	clock passiveClock

	mu      sync.Mutex
	token   string
	expires time.Time
}

const (
	tokenFilePeriod = time.Minute
	tokenFileLeeway = 10 * time.Second
)

func newFileToken(path, initial string, clk passiveClock) (*fileToken, error) {
	ft := &fileToken{path: path, clock: clk}
	tok, err := ft.read()
	if err != nil {
		if initial == "" {
			return nil, err
		}
		tok = initial
	}
	ft.token = tok
	ft.expires = clk.Now().Add(tokenFilePeriod)
	return ft, nil
}

func (ft *fileToken) read() (string, error) {
	data, err := os.ReadFile(ft.path)
	if err != nil {
		return "", fmt.Errorf("failed to read token file %q: %w", ft.path, err)
	}
	tok := strings.TrimSpace(string(data))
	if tok == "" {
		return "", fmt.Errorf("read empty token from file %q", ft.path)
	}
	return tok, nil
}

func (ft *fileToken) get() string {
	now := ft.clock.Now()
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if ft.expires.Add(-tokenFileLeeway).After(now) {
		return ft.token
	}
	if tok, err := ft.read(); err == nil {
		ft.token = tok
		ft.expires = now.Add(tokenFilePeriod)
	}
	return ft.token
}

// bearerTransport sets the Authorization header unless the request has one.
type bearerTransport struct {
	token func() string
	next  http.RoundTripper
}

func (b *bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return b.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token())
	return b.next.RoundTrip(req)
}

type basicAuthTransport struct {
	user, password string
	next           http.RoundTripper
}

func (b *basicAuthTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return b.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.SetBasicAuth(b.user, b.password)
	return b.next.RoundTrip(req)
}
