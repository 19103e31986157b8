// Command oracle answers the differential tests' queries whose rules live in
// k8s.io/kubernetes (op restvalidation: the REST validation of admission
// objects, pkg/apis/admissionregistration/validation) with the Kubernetes it
// is built against: one JSON query per line on stdin, one JSON answer per
// line on stdout, in the protocol of ../../oracle/protocol. Its go.mod pins
// Kubernetes 1.36 (built with -tags k8s136); go.v1.35.mod pins 1.35 (-tags
// k8s135); go.v1.38.mod pins 1.38's beta (-tags k8s138, Go 1.27). See
// README.md.
package main

import (
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/conformance/kubernetes/oracle/restvalidation"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

func main() {
	if err := protocol.Serve(os.Stdin, os.Stdout, restvalidation.Answer); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}
