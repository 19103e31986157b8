package authorizer

import (
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"net/http"
	"reflect"
	"strings"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// x509Metrics wraps a webhook's transport, as kube-apiserver wraps the
// transport of every webhook, to count servers whose certificates rely on
// deprecated features: no subject alternative name
// (apiserver_webhooks_x509_missing_san_total) and SHA-1 signatures
// (apiserver_webhooks_x509_insecure_sha1_total), whether the connection
// succeeded (certificates seen) or failed because of them.
type x509Metrics struct {
	next       http.RoundTripper
	missingSAN metrics.Series
	sha1       metrics.Series
}

func (x *x509Metrics) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := x.next.RoundTrip(req)
	if err != nil {
		if missingSANError(err) {
			x.missingSAN.Add(1)
		}
		if sha1Error(err) {
			x.sha1.Add(1)
		}
		return resp, err
	}
	if resp != nil && resp.TLS != nil && len(resp.TLS.PeerCertificates) > 0 {
		certs := resp.TLS.PeerCertificates
		if !hasSAN(certs[0]) {
			x.missingSAN.Add(1)
		}
		if sha1Signed(certs) {
			x.sha1.Add(1)
		}
	}
	return resp, err
}

var oidSubjectAltName = asn1.ObjectIdentifier{2, 5, 29, 17}

func hasSAN(c *x509.Certificate) bool {
	for _, e := range c.Extensions {
		if e.Id.Equal(oidSubjectAltName) {
			return true
		}
	}
	return false
}

// sha1Signed reports a certificate signed with SHA-1 other than a
// self-signed root.
func sha1Signed(certs []*x509.Certificate) bool {
	for _, c := range certs {
		if c.SignatureAlgorithm == x509.SHA1WithRSA || c.SignatureAlgorithm == x509.ECDSAWithSHA1 {
			if !reflect.DeepEqual(c.Issuer, c.Subject) {
				return true
			}
		}
	}
	return false
}

func missingSANError(err error) bool {
	var he x509.HostnameError
	return errors.As(err, &he) && strings.Contains(err.Error(), "x509: certificate relies on legacy Common Name field")
}

func sha1Error(err error) bool {
	var ua x509.UnknownAuthorityError
	if !errors.As(err, &ua) {
		return false
	}
	msg := err.Error()
	i := strings.Index(msg, "x509: cannot verify signature: insecure algorithm")
	return i >= 0 && strings.Contains(msg[i:], "SHA1")
}
