package kubeoracle

import (
	"os"
	"testing"
)

// TestMain removes the oracles' binaries once the tests are done: each
// test process builds its own (some hundred megabytes).
func TestMain(m *testing.M) { os.Exit(RunTests(m)) }
