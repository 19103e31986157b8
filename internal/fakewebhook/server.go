package fakewebhook

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
)

// ServerOptions are how a fake webhook server listens.
type ServerOptions struct {
	// Plain serves HTTP without TLS.
	Plain bool
	// HTTP2 offers HTTP/2 over TLS.
	HTTP2 bool
	// ClientCA, PEM, makes the server require client certificates it
	// issued.
	ClientCA []byte
	// Owner names the package in errors ("authorizertest").
	Owner string
}

// Server is a fake webhook server on 127.0.0.1, with TLS unless Plain: its
// certificate is its own CA.
type Server struct {
	*httptest.Server
	plain bool
}

// StartServer starts h on 127.0.0.1. Its error log is discarded: the faults
// the fakes inject make the server complain by design.
func StartServer(h http.Handler, opts ServerOptions) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &httptest.Server{
		Listener: ln,
		Config:   &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)},
	}
	if opts.Plain {
		srv.Start()
		return &Server{Server: srv, plain: true}, nil
	}
	srv.EnableHTTP2 = opts.HTTP2
	if len(opts.ClientCA) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(opts.ClientCA) {
			ln.Close()
			return nil, errors.New(opts.Owner + ": ClientCA holds no PEM certificate")
		}
		srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	}
	srv.StartTLS()
	return &Server{Server: srv}, nil
}

// Close shuts the server down and closes its connections, idle or not.
func (s *Server) Close() {
	s.CloseClientConnections()
	s.Server.Close()
}

// CertificatePEM is the server's certificate, which is also its CA; empty
// for a plain server.
func (s *Server) CertificatePEM() []byte {
	if s.plain {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

// ResetConnection closes the client's connection with a TCP RST; on HTTP/2,
// which cannot be hijacked, it resets the stream instead.
func ResetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	raw := conn
	if tc, ok := conn.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = raw.Close()
}
