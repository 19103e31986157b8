// Package admissionwebhooktest is a fake admission webhook for tests, as
// package authorizer/authorizertest is for SubjectAccessReview webhooks: an
// HTTP server on the loopback interface, with TLS (its certificate is the
// caBundle of the clientConfig it gives) or without, whose paths are
// webhooks answering AdmissionReviews (v1 and v1beta1) from scripts — allow,
// deny with a status, a JSON patch, warnings, audit annotations — that
// records every request byte for byte and can inject faults: latency, hangs
// until the client gives up, HTTP errors (with Retry-After), malformed bodies, a wrong uid or
// apiVersion, connection resets.
//
//	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
//	...
//	defer srv.Close()
//	srv.Handle("/deny", admissionwebhooktest.Deny(403, "no"))
//	webhook := admissionregistrationv1.ValidatingWebhook{
//		Name:         "deny.example.com",
//		ClientConfig: srv.ClientConfig("/deny"),
//		...
//	}
//
// Latency waits on the server's clock, so that a test with a fake clock
// steps time instead of sleeping.
package admissionwebhooktest
