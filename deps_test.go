package gatehouse

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// forbiddenModules are the module path prefixes that the design keeps out of
// the main module: each brings a large dependency graph, global registries or
// both.
var forbiddenModules = []string{
	"k8s.io/apiserver",
	"k8s.io/client-go",
	"k8s.io/component-base",
	"go.etcd.io/",
	"google.golang.org/grpc",
	"github.com/prometheus/",
	"go.opentelemetry.io/",
}

// unlinkedRequirements are forbidden modules that the build list cannot
// avoid, each with the reason. The test proves that no package of them is
// needed: they are go.mod requirements, never compiled.
var unlinkedRequirements = map[string]string{
	// cel-go v0.29.2 links google.golang.org/genproto/googleapis/api for its
	// expression protos; that module's go.mod (every version of it) requires
	// grpc, which puts grpc in the module graph. No grpc package is imported.
	"google.golang.org/grpc": "required by the go.mod of google.golang.org/genproto/googleapis/api (cel-go)",
}

func forbidden(path string) bool {
	for _, bad := range forbiddenModules {
		if path == strings.TrimSuffix(bad, "/") || strings.HasPrefix(path, bad) {
			return true
		}
	}
	return false
}

func goTool(t *testing.T, args ...string) string {
	t.Helper()
	// Reading go.mod and go.sum makes them inputs of this test, so that the
	// test cache never hides a change to the build list.
	for _, f := range []string{"go.mod", "go.sum"} {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	path, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the build list: %v", err)
	}
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestBuildListHasNoForbiddenModules(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(goTool(t, "list", "-m", "all")), "\n")
	if len(lines) < 2 {
		t.Fatalf("go list -m all printed too little to be a build list: %q", lines)
	}
	for _, line := range lines {
		path := strings.Fields(line)[0]
		if !forbidden(path) {
			continue
		}
		if reason, ok := unlinkedRequirements[path]; ok {
			why := goTool(t, "mod", "why", "-m", path)
			if !strings.Contains(why, "main module does not need module "+path) {
				t.Errorf("%s is in the build list (%s) and a package of it is now needed:\n%s", line, reason, why)
			}
			continue
		}
		t.Errorf("the build list contains %s, which the design forbids", line)
	}
}

func TestNoForbiddenPackageIsCompiled(t *testing.T) {
	out := goTool(t, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...")
	for _, mod := range strings.Fields(out) {
		if forbidden(mod) {
			t.Errorf("a package of %s is compiled into the main module's packages or tests", mod)
		}
	}
}
