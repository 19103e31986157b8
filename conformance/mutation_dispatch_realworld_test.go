package conformance

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

var mdHasPolicy = regexp.MustCompile(`kind:\s*"?MutatingAdmissionPolicy"?\s*[,\n]`)

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

// mdRealworldWorlds builds a world of each real-world policy file.
func mdRealworldWorlds(t testing.TB) []mdWorld {
	t.Helper()
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
	var worlds []mdWorld
	for _, e := range entries {
		name := e.Name()
		data := read(name)
		if !mdHasPolicy.MatchString(data) {
			continue // resources, params and bindings of other files
		}
		w := mdWorld{name: strings.TrimSuffix(name, ".yaml"), policies: mdWithBindings(t, data), objects: mdRealworldNamespaces, requests: mdRealworldRequests}
		if prefix := strings.TrimSuffix(name, "-policy.yaml"); prefix != name {
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
		worlds = append(worlds, w)
	}
	return worlds
}

// mdRealworldVerdicts are kube-apiserver's verdicts on some real-world
// requests (world / request → code, message): several policies are broken
// as published.
var mdRealworldVerdicts = map[[2]string]struct {
	code int32
	msg  string
}{
	// The website's sidecar policies name a Sidecar paramKind: without its
	// CRD every request they match fails.
	{"kubernetes__website__map-applyconfiguration-example-v1alpha1", "pod"}:     {403, `policy "sidecar-policy.example.com" denied request: failed to configure policy: failed to find resource referenced by paramKind: 'mutations.example.com/v1, Kind=Sidecar'`},
	{"kubernetes__website__map-json-patch-example", "pod with initContainers"}:  {403, "failed to find resource referenced by paramKind: 'mutations.example.com/v1, Kind=Sidecar'"},
	{"kubernetes__website__map-applyconfiguration-example-apps-group", "pod"}:   {}, // its rule names apps/pods: it never matches
	{"kubernetes__website__map-default-pod-security-baseline", "namespace"}:     {},
	{"kubernetes__website__map-default-pod-security-configurable", "namespace"}: {403, "resulted in error: no such key: data"}, // bound without paramRef: params is null
	{"kyverno__kyverno__map-policy-err", "deployment"}:                          {403, "compilation failed: ERROR: <input>:5:39: Syntax error: token recognition error at: '#'"},
	{"kyverno__kyverno__map-with-two-params-policy", "own resource"}:            {403, "resulted in error: no such key: items"},
	{"onedr0p__home-ops__volsync-mutatingadmissionpolicy", "volsync job"}:       {403, "resulted in error: no such key: volumes"},
	{"kyverno__kyverno__map-binding-namespace-selector-policy", "own resource"}: {},
	// KubeVirt's claims copy: a list read from the object does not convert
	// to a JSON Patch value.
	{"kubevirt__kubevirt__dra-sidecar-resource-claims-map", "pod"}: {403, "JSONPath valueExpression evaluated to a type that could not marshal to JSON: type conversion error from 'list(dyn)' to '*structpb.Value'"},
}

// TestMutationDispatchRealWorldKubeVerdicts runs every real-world world
// through kube-apiserver's dispatcher: the verdicts above, and none other
// than a 403 (no internal error, no panic).
func TestMutationDispatchRealWorldKubeVerdicts(t *testing.T) {
	ctx := context.Background()
	seen := 0
	for _, w := range mdRealworldWorlds(t) {
		policies, bindings, objects := mdLoad(t, &w)
		k := newKubeMAP(t, policies, bindings, objects...)
		for i := range w.requests {
			r := &w.requests[i]
			err := k.admit(ctx, mdKubeAttributes(t, r))
			var code int32
			var msg string
			if err != nil {
				status, ok := err.(*apierrors.StatusError)
				if !ok {
					t.Errorf("%s / %s: %v", w.name, r.name, err)
					continue
				}
				code, msg = status.ErrStatus.Code, status.ErrStatus.Message
			}
			t.Logf("%s / %s: %d %s", w.name, r.name, code, msg)
			if want, ok := mdRealworldVerdicts[[2]string{w.name, r.name}]; ok {
				seen++
				if code != want.code || !strings.Contains(msg, want.msg) {
					t.Errorf("%s / %s: got %d %q, want %d ...%q...", w.name, r.name, code, msg, want.code, want.msg)
				}
			} else if code != 0 && code != 403 {
				t.Errorf("%s / %s: unexpected %d %s", w.name, r.name, code, msg)
			}
		}
	}
	if seen != len(mdRealworldVerdicts) {
		t.Errorf("%d of the %d verdicts checked", seen, len(mdRealworldVerdicts))
	}
}

// mdWithBindings adds a binding for each policy of a file that has none.
func mdWithBindings(t testing.TB, docs string) string {
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
