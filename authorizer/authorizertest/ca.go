package authorizertest

import "github.com/gatehouse-dev/gatehouse/internal/testca"

// CA is a certificate authority for tests: it issues client certificates
// (Issue) that a Server configured with Options.ClientCA (its PEM) accepts.
type CA = testca.CA

// NewCA makes a self-signed CA valid for a day.
func NewCA() (*CA, error) { return testca.New("authorizertest CA") }
