package gatehouse

import (
	"os/exec"
	"strings"
	"testing"
)

// forbiddenModules are the module path prefixes that the design keeps out of
// the main module's build list: each brings a large dependency graph, global
// registries or both.
var forbiddenModules = []string{
	"k8s.io/apiserver",
	"k8s.io/client-go",
	"k8s.io/component-base",
	"go.etcd.io/",
	"google.golang.org/grpc",
	"github.com/prometheus/",
	"go.opentelemetry.io/",
}

func TestBuildListHasNoForbiddenModules(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the build list: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-m", "all").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, out)
	}
	modules := strings.Fields(string(out))
	if len(modules) < 2 {
		t.Fatalf("go list -m all printed too little to be a build list:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path := strings.Fields(line)[0]
		for _, bad := range forbiddenModules {
			if path == strings.TrimSuffix(bad, "/") || strings.HasPrefix(path, bad) {
				t.Errorf("the build list contains %s, which the design forbids (%s)", line, bad)
			}
		}
	}
}
