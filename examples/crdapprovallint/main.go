// Command crdapprovallint checks, offline, the api-approved.kubernetes.io
// annotation of the CustomResourceDefinitions in YAML or JSON files, with the
// answers kube-apiserver 1.37 gives when they are created: for a CI pipeline,
// before the CRDs reach a cluster.
//
//	go run ./examples/crdapprovallint crdapproval/testdata/realworld/*.yaml
//	kustomize build config | go run ./examples/crdapprovallint
//
// It prints one line per CRD (file, line, name, group, approval state, and
// the message of the condition the cluster will set), then the errors a
// cluster would return on create. It exits with status 1 if a CRD would be
// rejected or a file cannot be read, and 0 otherwise.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gatehouse-dev/gatehouse/crdapproval"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout))
}

// run lints the named files, or standard input if there are none, and
// returns the exit status.
func run(files []string, stdin io.Reader, out io.Writer) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, file := range files {
		if !lintFile(file, stdin, out) {
			status = 1
		}
	}
	return status
}

// lintFile reports on one file and says whether all of it passes.
func lintFile(file string, stdin io.Reader, out io.Writer) bool {
	var (
		data []byte
		err  error
	)
	if file == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		fmt.Fprintf(out, "%s: %v\n", file, err)
		return false
	}
	crds, err := crdapproval.Decode(data)
	ok := err == nil
	for _, crd := range crds {
		fmt.Fprintf(out, "%s:%d: %s (%s): %v", file, crd.Line, crd.Name, crd.Group, crdapproval.StateOf(crd.Group, crd.Annotations))
		if c, has := crdapproval.Condition(crd.Group, crd.Annotations); has {
			fmt.Fprintf(out, ": %s", c.Message)
		}
		if crd.APIVersion == crdapproval.APIVersionV1beta1 {
			fmt.Fprint(out, " (apiextensions.k8s.io/v1beta1 is not served since Kubernetes 1.22; checked as v1)")
		}
		fmt.Fprintln(out)
		for _, e := range crdapproval.ValidateCreate(crd.Group, crd.Annotations) {
			fmt.Fprintf(out, "  %v\n", e)
			ok = false
		}
	}
	if err != nil {
		for _, e := range unjoin(err) {
			fmt.Fprintf(out, "%s: %v\n", file, e)
		}
	}
	return ok
}

// unjoin returns the errors that err joins, or err alone.
func unjoin(err error) []error {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		return joined.Unwrap()
	}
	return []error{err}
}
