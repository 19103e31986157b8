package gatehouse

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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

// exprProtosVersion is the upstream version of
// google.golang.org/genproto/googleapis/api whose expr/v1alpha1 package
// third_party/googleapis-api holds (see its README): the go.mod of every
// version of that module requires grpc.
const exprProtosVersion = "v0.0.0-20240826202546-f6391c0de4c7"

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
			t.Errorf("the build list contains %s, which the design forbids", line)
		}
	}
}

// TestVendoredExprProtosAreUpstream checks that third_party/googleapis-api,
// which replaces google.golang.org/genproto/googleapis/api, holds upstream's
// files unchanged: its LICENSE and the package expr/v1alpha1, and nothing
// else but its go.mod and README.
func TestVendoredExprProtosAreUpstream(t *testing.T) {
	const local = "third_party/googleapis-api"
	var dl struct{ Dir string }
	if err := json.Unmarshal([]byte(goTool(t, "mod", "download", "-json", "google.golang.org/genproto/googleapis/api@"+exprProtosVersion)), &dl); err != nil || dl.Dir == "" {
		t.Fatalf("downloading the upstream module: %v", err)
	}
	var files []string
	err := filepath.WalkDir(local, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(local, path)
		if err != nil {
			return err
		}
		switch {
		case rel == "go.mod" || rel == "README.md":
			return nil
		case rel != "LICENSE" && filepath.Dir(rel) != filepath.Join("expr", "v1alpha1"):
			t.Errorf("%s: only upstream's LICENSE and expr/v1alpha1 belong here", path)
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := filepath.Glob(filepath.Join(dl.Dir, "expr", "v1alpha1", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(upstream)+1 {
		t.Errorf("%d files here, upstream has %d in expr/v1alpha1 and a LICENSE", len(files), len(upstream))
	}
	for _, rel := range files {
		ours, err := os.ReadFile(filepath.Join(local, rel))
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := os.ReadFile(filepath.Join(dl.Dir, rel))
		if err != nil {
			t.Errorf("%s is not upstream's: %v", rel, err)
			continue
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s differs from upstream %s", rel, exprProtosVersion)
		}
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

// TestAuthorizerLinksFewAPIPackages guards the footprint of a program that
// only authorizes (conformance/authorizer_size): package authorizer links
// the k8s.io/api packages of the reviews it exchanges, not the built-in
// kinds. One import of the admission machinery once pulled in 52 more
// (12 MB of a stripped binary).
func TestAuthorizerLinksFewAPIPackages(t *testing.T) {
	allowed := map[string]bool{
		"k8s.io/api/authorization/v1":      true,
		"k8s.io/api/authorization/v1beta1": true,
		"k8s.io/api/authentication/v1":     true, // the conditions review's admission request
		"k8s.io/api/admission/v1":          true,
	}
	out := goTool(t, "list", "-deps", "./authorizer")
	for _, pkg := range strings.Fields(out) {
		if strings.HasPrefix(pkg, "k8s.io/api/") && !allowed[pkg] {
			t.Errorf("package authorizer links %s", pkg)
		}
	}
}
