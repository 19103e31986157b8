package podsecurity

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCompilesNoServerPackages: of k8s.io/apiserver, client-go and
// component-base (which k8s.io/pod-security-admission's go.mod requires for
// its webhook and plugin packages), the module compiles one package,
// component-base/version, that pod-security-admission's api package imports.
// It never wraps pod-security-admission's admission package either: that is
// the differential test's oracle.
func TestCompilesNoServerPackages(t *testing.T) {
	path, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	out, err := exec.Command(path, "list", "-deps", "-test", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch {
		case pkg == "k8s.io/component-base/version":
		case strings.HasPrefix(pkg, "k8s.io/apiserver/"), strings.HasPrefix(pkg, "k8s.io/client-go/"), strings.HasPrefix(pkg, "k8s.io/component-base/"),
			strings.HasPrefix(pkg, "k8s.io/pod-security-admission/admission"), strings.HasPrefix(pkg, "go.etcd.io/"),
			strings.HasPrefix(pkg, "google.golang.org/grpc"), strings.HasPrefix(pkg, "github.com/prometheus/"), strings.HasPrefix(pkg, "go.opentelemetry.io/"):
			t.Errorf("%s is compiled into the module or its tests", pkg)
		}
	}
}
