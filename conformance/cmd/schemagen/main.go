// Command schemagen writes the schemas of Kubernetes' built-in types that the
// main module embeds (internal/builtinschema/types.smdz).
//
// Its source is the structured-merge-diff schema that client-go's
// applyconfigurations embed (k8s.io/client-go/applyconfigurations/internal),
// the one applyconfigurations.NewTypeConverter(scheme.Scheme) — the static
// type converter of kube-apiserver's mutating admission policies — uses. The
// kinds are those of client-go's scheme.Scheme whose OpenAPI model name the
// schema defines, which is how that converter maps a kind to its type.
//
// Run from the conformance directory after changing the client-go version:
//
//	go run ./cmd/schemagen
//
// TestBuiltinSchemaIsGenerated fails while the embedded file differs from
// what this command writes.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/conformance/schemagen"
)

func main() {
	out := flag.String("o", "../internal/builtinschema/types.smdz", "file to write")
	flag.Parse()
	data, err := schemagen.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s (%d bytes)\n", *out, len(data))
}
