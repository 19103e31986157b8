// Package authorizertest is a fake SubjectAccessReview webhook for tests: an
// HTTP server on the loopback interface, with TLS or without, that answers
// reviews with decisions scripted by a function, records every request it
// receives byte for byte, can inject faults (latency, hangs until the client
// times out, HTTP errors, 429 with Retry-After, malformed bodies, connection
// resets), and writes a kubeconfig file that points at itself.
//
//	srv, err := authorizertest.NewServer(authorizertest.Options{
//		Decide: authorizertest.AllowIf(func(spec authorizationv1.SubjectAccessReviewSpec) bool {
//			return spec.User == "alice"
//		}),
//	})
//	...
//	defer srv.Close()
//	kubeconfig := filepath.Join(t.TempDir(), "webhook.kubeconfig")
//	err = srv.WriteKubeconfig(kubeconfig)
//
// Latency and hangs wait on the server's clock, so that a test with a fake
// clock steps time instead of sleeping.
package authorizertest
