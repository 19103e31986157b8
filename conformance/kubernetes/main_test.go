package kubernetes

import (
	"os"
	"testing"

	"github.com/gatehouse-dev/gatehouse/conformance/internal/kubeoracle"
)

// TestMain removes the oracles' binaries once the tests are done: each
// test process builds its own (some hundred megabytes).
func TestMain(m *testing.M) { os.Exit(kubeoracle.RunTests(m)) }
