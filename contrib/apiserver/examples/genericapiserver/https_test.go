package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdmissionOverHTTPS serves the example on a port, as `go run` does,
// and creates widgets over HTTPS: the mutating policy colors the one
// admitted, the validating policy denies the big one with kube-apiserver's
// status.
func TestAdmissionOverHTTPS(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())

	certDir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := newServer(ctx, serverOptions{AuthorizationConfig: "authorization-config.yaml", AdmissionManifests: "admission", SecurePort: port, CertDir: certDir})
	require.NoError(t, err)
	stopped := make(chan error, 1)
	go func() { stopped <- s.PrepareRun().RunWithContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})

	// The server's self-signed certificate is the client's only root.
	pem, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt"))
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(pem))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "localhost"}}, Timeout: 10 * time.Second}
	base := fmt.Sprintf("https://127.0.0.1:%d", port)
	require.Eventually(t, func() bool {
		resp, err := client.Get(base + "/hello") // 401: anonymous, but served
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}, 30*time.Second, 50*time.Millisecond)

	create := func(name string, size int) (int, map[string]any) {
		body := fmt.Sprintf(`{"apiVersion":"example.gatehouse.dev/v1","kind":"Widget","metadata":{"name":%q},"spec":{"size":%d}}`, name, size)
		req, err := http.NewRequest(http.MethodPost, base+"/apis/example.gatehouse.dev/v1/namespaces/default/widgets", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer alice-token")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return resp.StatusCode, out
	}
	code, w := create("small", 3)
	assert.Equal(t, http.StatusCreated, code)
	assert.Equal(t, map[string]any{"size": float64(3), "color": "blue"}, w["spec"])

	code, status := create("big", 50)
	assert.Equal(t, http.StatusUnprocessableEntity, code)
	assert.Equal(t, "Status", status["kind"])
	assert.Equal(t, "Invalid", status["reason"])
	assert.Equal(t, `widgets.example.gatehouse.dev "big" is forbidden: ValidatingAdmissionPolicy 'widget-size.static.k8s.io' with binding 'widget-size.static.k8s.io' denied request: a widget is at most 10 in size, not 50`, status["message"])
}
