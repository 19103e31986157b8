package authorizer

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// certWithoutSAN is a self-signed server certificate that names its host
// only in the legacy common name.
func certWithoutSAN(t *testing.T) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestWebhookCountsCertificatesWithoutSAN(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"status":{"allowed":true}}`))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{certWithoutSAN(t)}}
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()

	for _, insecure := range []bool{true, false} {
		kc := filepath.Join(dir, "kc")
		cluster := "    server: " + srv.URL + "\n    insecure-skip-tls-verify: true\n"
		if !insecure {
			cluster = "    server: " + srv.URL + "\n    certificate-authority-data: " + pemBase64(srv.Certificate().Raw) + "\n"
		}
		writeFile(t, kc, kubeconfigWith(cluster, "    {}\n"))
		mem := metrics.NewMemory()
		w := newTestWebhook(t, kc, WebhookOptions{Metrics: mem, Backoff: &Backoff{Steps: 1}})
		d, _, err := w.Authorize(context.Background(), podGet("x"))
		if insecure {
			require.NoError(t, err, "the certificate is not verified: the connection succeeds")
			assert.Equal(t, DecisionAllow, d)
		} else {
			assert.ErrorContains(t, err, "x509: certificate relies on legacy Common Name field")
		}
		assert.Equal(t, 1, counter(mem, metrics.WebhookX509MissingSAN), "insecure=%v", insecure)
		assert.Equal(t, 0, counter(mem, metrics.WebhookX509InsecureSHA1))
	}
}
