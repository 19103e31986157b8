package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// forbiddenModules are the modules the library keeps out of its build
// (../../deps_test.go); the CLI adds only cobra and what it brings, and
// contrib/podsecurity (k8s.io/pod-security-admission's api and policy
// packages), and stays as light: see throughPodSecurity.
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

// throughPodSecurity is the one module allowed to bring forbidden modules
// into the build list: k8s.io/pod-security-admission, whose go.mod requires
// k8s.io/apiserver and client-go (and what they bring) for its webhook
// and plugin packages. contrib/podsecurity imports only its api and policy
// packages, which compile one forbidden package, k8s.io/component-base/version
// (a package of version strings; allowedPackages).
const throughPodSecurity = "k8s.io/pod-security-admission"

// allowedPackages are the packages of forbidden modules that may be
// compiled: pod-security-admission's api package imports this one.
var allowedPackages = map[string]bool{"k8s.io/component-base/version": true}

// TestBuildListHasNoForbiddenModules: a forbidden module is in the build
// list only because k8s.io/pod-security-admission (or the module of an
// allowed package) requires it: from the modules of the packages compiled
// into the CLI and its tests, the module graph, without those modules'
// requirements, reaches none.
func TestBuildListHasNoForbiddenModules(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(goTool(t, "list", "-m", "all")), "\n")
	if len(lines) < 2 {
		t.Fatalf("go list -m all printed too little to be a build list: %q", lines)
	}
	root := strings.Fields(lines[0])[0]
	inBuildList := map[string]string{}
	for _, line := range lines {
		inBuildList[strings.Fields(line)[0]] = line
	}
	if _, ok := inBuildList[throughPodSecurity]; !ok {
		t.Errorf("%s is not in the build list: is the exception still needed?", throughPodSecurity)
	}
	// Modules whose requirements are not followed: pod-security-admission,
	// and the go.mods that list a whole build list (the CLI's,
	// contrib/podsecurity's, which holds pod-security-admission's).
	excused := map[string]bool{root: true, throughPodSecurity: true, "github.com/gatehouse-dev/gatehouse/contrib/podsecurity": true}
	for pkg := range allowedPackages {
		for path := range inBuildList {
			if strings.HasPrefix(pkg, path+"/") {
				excused[path] = true
			}
		}
	}
	edges := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(goTool(t, "mod", "graph")), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		from, _, _ := strings.Cut(f[0], "@")
		to, _, _ := strings.Cut(f[1], "@")
		if !excused[from] {
			edges[from] = append(edges[from], to)
		}
	}
	seen := map[string]bool{}
	var queue []string
	for _, mod := range strings.Fields(goTool(t, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...")) {
		if !excused[mod] && !seen[mod] {
			seen[mod] = true
			queue = append(queue, mod)
		}
	}
	for ; len(queue) > 0; queue = queue[1:] {
		for _, next := range edges[queue[0]] {
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	for path, line := range inBuildList {
		if forbidden(path) && seen[path] {
			t.Errorf("the build list contains %s, not only through %s", line, throughPodSecurity)
		}
	}
}

func TestNoForbiddenPackageIsCompiled(t *testing.T) {
	out := goTool(t, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}} {{$.ImportPath}}{{end}}", "./...")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		mod, pkg, _ := strings.Cut(line, " ")
		if forbidden(mod) && !allowedPackages[pkg] {
			t.Errorf("package %s of %s is compiled into the CLI or its tests", pkg, mod)
		}
	}
}
