package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// forbiddenModules are the modules the library keeps out of its build
// (../../deps_test.go); the CLI adds only cobra and what it brings, and
// stays as light.
var forbiddenModules = []string{
	"k8s.io/apiserver",
	"k8s.io/client-go",
	"k8s.io/component-base",
	"go.etcd.io/",
	"google.golang.org/grpc",
	"github.com/prometheus/",
	"go.opentelemetry.io/",
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
		if path := strings.Fields(line)[0]; forbidden(path) {
			t.Errorf("the build list contains %s", line)
		}
	}
}

func TestNoForbiddenPackageIsCompiled(t *testing.T) {
	out := goTool(t, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...")
	for _, mod := range strings.Fields(out) {
		if forbidden(mod) {
			t.Errorf("a package of %s is compiled into the CLI or its tests", mod)
		}
	}
}
