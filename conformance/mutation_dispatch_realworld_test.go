//go:build mutwired

package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission"
)

// The real-world policies (testdata/mutation-realworld, copied from
// ../shared/realworld/mutating-admission-policy: the Kubernetes website's
// examples, Kyverno's MAP tests, home-ops and KubeVirt policies), each file
// a world of its own (a policy without a binding in its file is bound to
// every request), admitting the file's own resources when it has some
// (Kyverno's <name>-resource.yaml, with its <name>-param*.yaml params) and
// a fixed set of objects their rules select.
const mdRealworldDir = "testdata/mutation-realworld"

var mdRealworldRequests = []mdRequest{
	{name: "pod", operation: admission.Create, resource: "pods", object: `apiVersion: v1
kind: Pod
metadata: {name: virt-launcher, namespace: default, labels: {kubevirt.io: virt-launcher}}
spec:
  containers:
  - name: compute
    image: c
    resources: {claims: [{name: gpu}]}
  - {name: hook-sidecar-0, image: h}
`},
	{name: "pod with initContainers", operation: admission.Create, resource: "pods", object: mdPodWithInit("default", nil)},
	{name: "namespace", operation: admission.Create, resource: "namespaces", object: "apiVersion: v1\nkind: Namespace\nmetadata: {name: test-namespace, labels: {env: test}}\n"},
	{name: "system namespace", operation: admission.Create, resource: "namespaces", object: "apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-x}\n"},
	{name: "deployment", operation: admission.Create, resource: "deployments", object: mdDeploymentLabelled("test-ns", "color", "red")},
	{name: "configmap", operation: admission.Create, resource: "configmaps", object: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"},
	{name: "volsync job", operation: admission.Create, resource: "jobs", object: `apiVersion: batch/v1
kind: Job
metadata: {name: volsync-src-data, namespace: default, labels: {app.kubernetes.io/created-by: volsync}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: mover, image: m}]
`},
}

const mdRealworldNamespaces = `
apiVersion: v1
kind: Namespace
metadata: {name: default}
---
apiVersion: v1
kind: Namespace
metadata: {name: test-ns, labels: {env: test}}
`

func TestMutationDispatchRealWorldMatchesKubeAPIServer(t *testing.T) {
	entries, err := os.ReadDir(mdRealworldDir)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(mdRealworldDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for _, e := range entries {
		name := e.Name()
		data := read(name)
		if !strings.Contains(data, "kind: MutatingAdmissionPolicy\n") {
			continue // resources, params and bindings of other files
		}
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			w := mdWorld{name: name, policies: mdWithBindings(t, data), objects: mdRealworldNamespaces, requests: mdRealworldRequests}
			prefix := strings.TrimSuffix(name, "-policy.yaml")
			if prefix != name {
				for _, f := range entries {
					rest, ok := strings.CutPrefix(f.Name(), prefix+"-")
					switch {
					case !ok:
					case strings.HasPrefix(rest, "param") && mdDecodes(read(f.Name())):
						w.objects += "\n---\n" + read(f.Name())
					case rest == "resource.yaml":
						w.requests = append([]mdRequest{{name: "own resource", operation: admission.Create, resource: mdResourceOf(read(f.Name())), object: read(f.Name())}}, w.requests...)
					}
				}
			}
			s := newMDSetup(t, &w)
			for _, r := range w.requests {
				t.Run(r.name, func(t *testing.T) { mdCompare(t, s, &r) })
			}
		})
	}
}

// mdWithBindings adds a binding for each policy of a file that has none.
func mdWithBindings(t *testing.T, docs string) string {
	var policies []string
	bound := map[string]bool{}
	for _, o := range mdDecode(t, docs) {
		switch o := o.(type) {
		case *admissionregistrationv1.MutatingAdmissionPolicy:
			policies = append(policies, o.Name)
		case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
			bound[o.Spec.PolicyName] = true
		}
	}
	for _, p := range policies {
		if !bound[p] {
			docs += "\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: " + p + "-binding}\nspec: {policyName: " + p + "}\n"
		}
	}
	return docs
}

// mdDecodes tells whether a param file decodes as a typed object (Kyverno's
// two-params ConfigMap has an integer in data, which kube-apiserver refuses).
func mdDecodes(doc string) bool {
	_, err := mdTypedErr(doc)
	return err == nil
}

func mdResourceOf(doc string) string {
	switch {
	case strings.Contains(doc, "kind: Deployment"):
		return "deployments"
	case strings.Contains(doc, "kind: Namespace"):
		return "namespaces"
	case strings.Contains(doc, "kind: ConfigMap"):
		return "configmaps"
	}
	return "pods"
}
