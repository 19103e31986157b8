package conformance

import (
	"testing"
)

// TestCELLibrariesMatchKubeAPIServer compiles and evaluates the corpus in
// kube-apiserver's stored-expressions environment and in gatehouse's, and
// compares compile errors, output types, static cost estimates, program
// errors, results, evaluation errors, runtime costs and the authorization
// checks made.
func TestCELLibrariesMatchKubeAPIServer(t *testing.T) {
	cases := allLibraryCases()
	t.Logf("%d expressions", len(cases))
	compareCEL(t, cases, oursSide(t), boundedSide(t))
}
