package admissionwebhooktest

import "github.com/gatehouse-dev/gatehouse/internal/fakewebhook"

// CA is a certificate authority for tests: it issues client certificates
// (Issue) that a Server configured with Options.ClientCA (its PEM) accepts.
type CA = fakewebhook.CA

// NewCA makes a self-signed CA valid for a day.
func NewCA() (*CA, error) { return fakewebhook.NewCA("admissionwebhooktest CA") }
