// Command oracle answers the differential tests' queries with the
// k8s.io/apiserver it is built against: one JSON query per line on stdin,
// one JSON answer per line on stdout (package protocol). Its go.mod pins
// Kubernetes 1.36 (k8s.io/apiserver v0.36.6, cel-go v0.26.0); go.v1.35.mod
// pins 1.35; go.v1.38.mod pins 1.38's beta (v0.38.0-beta.0, cel.dev/cel-go
// v0.33.2), built with Go 1.27 and -tags k8s138. See README.md.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/kubeeval"
	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

func main() {
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

// serve answers every line of r on w, in order, until r ends.
func serve(r io.Reader, w io.Writer) error {
	return protocol.Serve(r, w, kubeeval.New().Answer)
}
