package authorizer

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
)

func kubeconfigWith(cluster, user string) string {
	return "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n" +
		"clusters:\n- name: k\n  cluster:\n" + cluster + "users:\n- name: u\n  user:\n" + user
}

func TestParseKubeconfig(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name    string
		data    string
		check   func(t *testing.T, kt *kubeconfigTarget)
		wantErr string
	}{
		{name: "minimal", data: kubeconfigWith("    server: https://h/authorize\n", "    token: t\n"), check: func(t *testing.T, kt *kubeconfigTarget) {
			assert.Equal(t, "https://h/authorize", kt.cluster.Server)
			assert.Equal(t, "t", kt.user.Token)
		}},
		{name: "relative paths", data: kubeconfigWith("    server: https://h\n    certificate-authority: ca.pem\n",
			"    client-certificate: certs/c.pem\n    client-key: /abs/k.pem\n    tokenFile: ../token\n"), check: func(t *testing.T, kt *kubeconfigTarget) {
			assert.Equal(t, "/etc/kube/ca.pem", kt.cluster.CertificateAuthority)
			assert.Equal(t, "/etc/kube/certs/c.pem", kt.user.ClientCertificate)
			assert.Equal(t, "/abs/k.pem", kt.user.ClientKey)
			assert.Equal(t, "/etc/token", kt.user.TokenFile)
		}},
		{name: "data fields are base64", data: kubeconfigWith("    server: https://h\n    certificate-authority-data: "+b64([]byte("CA"))+"\n    tls-server-name: name.example\n    insecure-skip-tls-verify: false\n", "    client-certificate-data: "+b64([]byte("C"))+"\n    client-key-data: "+b64([]byte("K"))+"\n"),
			check: func(t *testing.T, kt *kubeconfigTarget) {
				assert.Equal(t, []byte("CA"), kt.cluster.CertificateAuthorityData)
				assert.Equal(t, "name.example", kt.cluster.TLSServerName)
				assert.Equal(t, []byte("C"), kt.user.ClientCertificateData)
			}},
		{name: "json", data: `{"current-context":"c","contexts":[{"name":"c","context":{"cluster":"k"}}],"clusters":[{"name":"k","cluster":{"server":"https://j"}}]}`,
			check: func(t *testing.T, kt *kubeconfigTarget) { assert.Equal(t, "https://j", kt.cluster.Server) }},
		{name: "unknown fields ignored", data: kubeconfigWith("    server: https://h\n    extensions: [{name: x, extension: {}}]\n", "    token: t\n") + "preferences: {colors: true}\n",
			check: func(t *testing.T, kt *kubeconfigTarget) { assert.Equal(t, "https://h", kt.cluster.Server) }},
		{name: "keys are case-sensitive", data: kubeconfigWith("    Server: https://h\n", "    token: t\n"),
			wantErr: `invalid configuration: no server found for cluster "k"`},
		{name: "empty", data: "", wantErr: "invalid configuration: no configuration has been provided: current-context is not set"},
		{name: "no current context", data: strings.Replace(kubeconfigWith("    server: s\n", "    token: t\n"), "current-context: c", "current-context: \"\"", 1),
			wantErr: "invalid configuration: no configuration has been provided: current-context is not set"},
		{name: "unknown context", data: strings.Replace(kubeconfigWith("    server: s\n", "    token: t\n"), "current-context: c", "current-context: x", 1),
			wantErr: "invalid configuration: context was not found for specified context: x"},
		{name: "unknown cluster", data: strings.Replace(kubeconfigWith("    server: s\n", "    token: t\n"), "cluster: k,", "cluster: nope,", 1),
			wantErr: `invalid configuration: cluster "nope" does not exist`},
		{name: "unknown user", data: strings.Replace(kubeconfigWith("    server: s\n", "    token: t\n"), "user: u}", "user: nope}", 1),
			wantErr: `invalid configuration: user "nope" does not exist`},
		{name: "duplicate cluster", data: kubeconfigWith("    server: s\n- name: k\n  cluster: {server: t}\n", "    token: t\n"),
			wantErr: `duplicate name "k" in clusters`},
		{name: "wrong kind", data: "kind: Pod\n", wantErr: `no kind "Pod" is registered for version ""`},
		{name: "two CAs", data: kubeconfigWith("    server: s\n    certificate-authority: /ca\n    certificate-authority-data: "+b64([]byte("x"))+"\n", "    token: t\n"),
			wantErr: "invalid configuration: certificate-authority-data and certificate-authority are both specified for k"},
		{name: "insecure with CA", data: kubeconfigWith("    server: s\n    insecure-skip-tls-verify: true\n    certificate-authority: /ca\n", "    token: t\n"),
			wantErr: "invalid configuration: specifying a root certificates file with the insecure flag is not allowed"},
		{name: "token and basic auth", data: kubeconfigWith("    server: s\n", "    token: t\n    username: a\n    password: b\n"),
			wantErr: "invalid configuration: more than one authentication method found for u; found [token basicAuth], only one is allowed"},
		{name: "certificate without key", data: kubeconfigWith("    server: s\n", "    client-certificate: /c\n"),
			wantErr: "invalid configuration: client-key-data or client-key must be specified for u to use the clientCert authentication method"},
		{name: "exec", data: kubeconfigWith("    server: s\n", "    exec: {command: x, apiVersion: client.authentication.k8s.io/v1}\n"),
			wantErr: "invalid configuration: user u uses an exec credential plugin, which is not supported"},
		{name: "several errors", data: kubeconfigWith("    insecure-skip-tls-verify: true\n    certificate-authority: /ca\n", "    as: admin\n    auth-provider: {name: gcp}\n"),
			wantErr: `invalid configuration: [no server found for cluster "k", specifying a root certificates file with the insecure flag is not allowed, user u uses an auth provider, which is not supported, user u impersonates, which is not supported]`},
		{name: "yaml error", data: "clusters: [", wantErr: "yaml: line 1: did not find expected node content"},
		{name: "wrong type", data: "clusters: 5\n", wantErr: "json: cannot unmarshal number into Go struct field kubeconfig.clusters of type []authorizer.namedCluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kt, err := parseKubeconfig([]byte(tt.data), "/etc/kube")
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, kt)
		})
	}
}

func FuzzParseKubeconfig(f *testing.F) {
	f.Add([]byte(kubeconfigWith("    server: https://h\n    certificate-authority-data: Q0E=\n", "    token: t\n")))
	f.Add([]byte(kubeconfigWith("    server: h:1\n    insecure-skip-tls-verify: true\n    proxy-url: socks5://p\n", "    client-certificate-data: Qw==\n    client-key-data: Sw==\n")))
	f.Add([]byte(`{"current-context":"c","contexts":[{"name":"c","context":{"cluster":"k"}}],"clusters":[{"name":"k","cluster":{"server":"x"}}]}`))
	f.Add([]byte("clusters: [{name: a, cluster: {server: 'x'}}]\ncurrent-context: a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		kt, err := parseKubeconfig(data, "/base")
		if err != nil {
			return
		}
		if kt.cluster.Server == "" {
			t.Fatal("a kubeconfig without server was accepted")
		}
		// Building the connection reads no file for data-only kubeconfigs
		// and must not crash on any content.
		if kt.cluster.CertificateAuthority == "" && kt.user.ClientCertificate == "" && kt.user.ClientKey == "" && kt.user.TokenFile == "" {
			conn, err := kt.connection(nil)
			if err == nil {
				_, _ = requestURL(conn.Server, conn.defaultTLS, time.Second)
			}
		}
	})
}

// TestKubeconfigTLS connects to a TLS webhook with each way a kubeconfig can
// say whom to trust.
func TestKubeconfigTLS(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Decide: authorizertest.Always(status(true, false, "hi"))})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	writeFile(t, caFile, string(srv.CertificatePEM()))
	caData := base64.StdEncoding.EncodeToString(srv.CertificatePEM())
	u := srv.URL()
	viaName := strings.Replace(u, "127.0.0.1", "localhost", 1)

	tests := []struct {
		name    string
		cluster string
		wantErr string
	}{
		{"CA file", "    server: " + u + "\n    certificate-authority: ca.pem\n", ""},
		{"CA data", "    server: " + u + "\n    certificate-authority-data: " + caData + "\n", ""},
		{"no CA: system roots do not know it", "    server: " + u + "\n", "certificate signed by unknown authority"},
		{"insecure", "    server: " + u + "\n    insecure-skip-tls-verify: true\n", ""},
		{"server name the certificate has", "    server: " + viaName + "\n    certificate-authority-data: " + caData + "\n    tls-server-name: example.com\n", ""},
		{"server name it has not", "    server: " + u + "\n    certificate-authority-data: " + caData + "\n    tls-server-name: other.example\n", "certificate is valid for example.com, *.example.com, not other.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kc := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".kubeconfig")
			writeFile(t, kc, kubeconfigWith(tt.cluster, "    {}\n"))
			w := newTestWebhook(t, kc, WebhookOptions{Backoff: &Backoff{Steps: 1}})
			d, _, err := w.Authorize(context.Background(), podGet("x"))
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, DecisionNoOpinion, d)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, DecisionAllow, d)
		})
	}
}

func TestKubeconfigClientCertificates(t *testing.T) {
	ca, err := authorizertest.NewCA()
	require.NoError(t, err)
	cert, key, err := ca.Issue("kube-apiserver")
	require.NoError(t, err)
	srv, err := authorizertest.NewServer(authorizertest.Options{ClientCA: ca.PEM(), ClientCertificate: cert, ClientKey: key,
		Decide: authorizertest.Always(status(true, false, ""))})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()

	// Certificate data, as Kubeconfig writes it.
	kc := filepath.Join(dir, "data.kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kc))
	w := newTestWebhook(t, kc, WebhookOptions{})
	_, _, err = w.Authorize(context.Background(), podGet("x"))
	require.NoError(t, err)
	assert.Equal(t, "kube-apiserver", srv.Requests()[0].ClientCommonName)

	// Certificate files, read again for each new connection.
	writeFile(t, filepath.Join(dir, "c.pem"), string(cert))
	writeFile(t, filepath.Join(dir, "k.pem"), string(key))
	caData := base64.StdEncoding.EncodeToString(srv.CertificatePEM())
	kc = filepath.Join(dir, "files.kubeconfig")
	writeFile(t, kc, kubeconfigWith("    server: "+srv.URL()+"\n    certificate-authority-data: "+caData+"\n", "    client-certificate: c.pem\n    client-key: k.pem\n"))
	w = newTestWebhook(t, kc, WebhookOptions{})
	// A new connection for each request, so that each shows its certificate.
	w.client.Transport.(*x509Metrics).next.(*http.Transport).DisableKeepAlives = true
	_, _, err = w.Authorize(context.Background(), podGet("y"))
	require.NoError(t, err)
	cert2, key2, err := ca.Issue("rotated")
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, "c.pem"), string(cert2))
	writeFile(t, filepath.Join(dir, "k.pem"), string(key2))
	_, _, err = w.Authorize(context.Background(), podGet("z"))
	require.NoError(t, err)
	reqs := srv.Requests()
	assert.Equal(t, "kube-apiserver", reqs[1].ClientCommonName)
	assert.Equal(t, "rotated", reqs[2].ClientCommonName)
	assert.Equal(t, []string{kc, filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")}, w.files)

	// No certificate: the server refuses the handshake.
	kc = filepath.Join(dir, "none.kubeconfig")
	writeFile(t, kc, kubeconfigWith("    server: "+srv.URL()+"\n    certificate-authority-data: "+caData+"\n", "    {}\n"))
	w = newTestWebhook(t, kc, WebhookOptions{Backoff: &Backoff{Steps: 1}})
	_, _, err = w.Authorize(context.Background(), podGet("x"))
	assert.Error(t, err)
	assert.Len(t, srv.Requests(), 3)
}

func TestKubeconfigTokenFileIsReadAgainEveryMinute(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Plain: true, Decide: authorizertest.Always(status(true, false, ""))})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	writeFile(t, tokenFile, "first\n")
	kc := filepath.Join(dir, "kc")
	writeFile(t, kc, kubeconfigWith("    server: "+srv.URL()+"\n", "    tokenFile: token\n"))
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	w := newTestWebhook(t, kc, WebhookOptions{Clock: clk})
	ask := func() string {
		_, _, err := w.Authorize(context.Background(), podGet(fmt.Sprint(clk.Now().Unix())))
		require.NoError(t, err)
		reqs := srv.Requests()
		return reqs[len(reqs)-1].Header.Get("Authorization")
	}
	assert.Equal(t, "Bearer first", ask())
	writeFile(t, tokenFile, "second")
	clk.Step(49 * time.Second)
	assert.Equal(t, "Bearer first", ask(), "kept for a minute less 10 s of leeway")
	clk.Step(time.Second)
	assert.Equal(t, "Bearer second", ask())
	require.NoError(t, os.Remove(tokenFile))
	clk.Step(time.Minute)
	assert.Equal(t, "Bearer second", ask(), "a file that cannot be read keeps the last token")
	assert.NotContains(t, w.files, tokenFile, "a token file is not a reason to rebuild")
}

func TestKubeconfigBasicAuthAndProxy(t *testing.T) {
	srv, err := authorizertest.NewServer(authorizertest.Options{Plain: true, Decide: authorizertest.Always(status(true, false, ""))})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()
	kc := filepath.Join(dir, "kc")
	writeFile(t, kc, kubeconfigWith("    server: "+srv.URL()+"\n", "    username: admin\n    password: s3cret\n"))
	w := newTestWebhook(t, kc, WebhookOptions{})
	_, _, err = w.Authorize(context.Background(), podGet("x"))
	require.NoError(t, err)
	r := &http.Request{Header: srv.Requests()[0].Header}
	user, pass, ok := r.BasicAuth()
	assert.True(t, ok)
	assert.Equal(t, "admin", user)
	assert.Equal(t, "s3cret", pass)

	writeFile(t, kc, kubeconfigWith("    server: "+srv.URL()+"\n    proxy-url: ftp://proxy\n", "    {}\n"))
	_, err = NewWebhook(WebhookOptions{Name: "x", SubjectAccessReviewVersion: "v1", FailurePolicy: "Deny", KubeConfigFile: kc})
	assert.ErrorContains(t, err, `invalid 'proxy-url' "ftp://proxy" for cluster "k": unsupported scheme "ftp", must be http, https, or socks5`)
}
