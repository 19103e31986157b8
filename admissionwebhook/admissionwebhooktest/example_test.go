package admissionwebhooktest_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// A fake webhook refuses deletions on one path and fails once with a 503
// on another; any client that trusts the clientConfig's caBundle can call
// it (in tests, usually an admissionwebhook.Dispatcher or kube-apiserver's
// own plugins).
func ExampleServer() {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.Handle("/no-deletes", func(r *admissionv1.AdmissionRequest) admissionwebhooktest.Answer {
		if r.Operation == admissionv1.Delete {
			return admissionwebhooktest.Answer{Status: &metav1.Status{Code: 403, Message: "deletions are frozen"}}
		}
		return admissionwebhooktest.Answer{Allowed: true}
	})
	srv.Inject(admissionwebhooktest.Fault{Path: "/flaky", Status: 503})

	cc := srv.ClientConfig("/no-deletes")
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cc.CABundle)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	post := func(url, operation string) {
		review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"` + operation + `"}}`
		resp, err := client.Post(url, "application/json", strings.NewReader(review))
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		fmt.Println(resp.StatusCode, string(body))
	}
	post(*cc.URL, "DELETE")
	post(srv.URL("/flaky"), "CREATE")
	post(srv.URL("/flaky"), "CREATE")
	fmt.Println(len(srv.Requests()), "requests recorded")
	// Output:
	// 200 {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"1","allowed":false,"status":{"metadata":{},"message":"deletions are frozen","code":403}}}
	// 503 {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"1","allowed":true}}
	// 200 {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"1","allowed":true}}
	// 3 requests recorded
}
