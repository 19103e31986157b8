package servedtable

import (
	"flag"
	"testing"
)

var updateServed = flag.Bool("update-served", false, "rewrite the main module's table of served resources for this build's k8s.io/kubernetes")

// TestServedResourcesTable checks the main module's table of the resources
// the k8s.io/kubernetes of this build serves: 1.36 with go.mod, 1.35 with
// go.v1.35.mod, 1.38 with go.v1.38.mod (conformance/kubernetes checks
// 1.37's). go test -run TestServedResourcesTable -update-served (with the
// modfile) rewrites it.
func TestServedResourcesTable(t *testing.T) {
	Check(t, "../../../../internal/servedresources", *updateServed)
}
