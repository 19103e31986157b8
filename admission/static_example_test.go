package admission_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// A policy NAME that warns about every object created.
const exampleWarnEverything = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: NAME}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE"], resources: ["*"]}
  validations:
  - {expression: "false", message: "seen"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: NAME}
spec: {policyName: NAME, validationActions: [Warn]}
`

// A server with a static manifests directory and objects registered through
// its API composes them as kube-apiserver does: the static policies run
// first, and only they see admission configuration objects.
func ExampleNew_staticAndAPI() {
	static, err := admission.Decode([]byte(strings.ReplaceAll(exampleWarnEverything, "NAME", "guard.static.k8s.io")))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := admission.Decode([]byte(strings.ReplaceAll(exampleWarnEverything, "NAME", "team-policy")))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.Static = static // in a server: admission.ConfigOf of the loaded directories, or a Reloader
	chain, err := admission.New(*cfg, admission.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	create := func(group, resource, kind string) {
		gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}
		res, err := chain.Admit(context.Background(), &admission.Request{Operation: admissionv1.Create, Kind: gvr.GroupVersion().WithKind(kind), Resource: gvr, Name: "x",
			Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": kind, "metadata": map[string]any{"name": "x"}}}})
		fmt.Println(resource, err)
		for _, w := range res.Warnings {
			fmt.Println("  " + w)
		}
	}
	create("", "namespaces", "Namespace")
	create("admissionregistration.k8s.io", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding")
	// Output:
	// namespaces <nil>
	//   Validation failed for ValidatingAdmissionPolicy 'guard.static.k8s.io' with binding 'guard.static.k8s.io': seen
	//   Validation failed for ValidatingAdmissionPolicy 'team-policy' with binding 'team-policy': seen
	// validatingadmissionpolicybindings <nil>
	//   Validation failed for ValidatingAdmissionPolicy 'guard.static.k8s.io' with binding 'guard.static.k8s.io': seen
}

// A server with a static manifests directory gives the Reloader the objects
// registered through its API as its informers deliver them: the chain in
// force enforces both, the static ones first.
func ExampleReloader_SetAPI() {
	dir, err := os.MkdirTemp("", "static")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "guard.yaml"), []byte(strings.ReplaceAll(exampleWarnEverything, "NAME", "guard.static.k8s.io")), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	r, err := admission.NewReloader(admission.ReloaderOptions{Dirs: map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionPolicy: dir}})
	if err != nil {
		fmt.Println(err)
		return
	}
	warnings := func() []string {
		res, err := r.Chain().Admit(context.Background(), configMapRequest(nil))
		if err != nil {
			return []string{err.Error()}
		}
		return res.Warnings
	}
	fmt.Println(len(warnings()))
	api, err := admission.Decode([]byte(strings.ReplaceAll(exampleWarnEverything, "NAME", "team-policy")))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := r.SetAPI(*api); err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range warnings() {
		fmt.Println(w)
	}
	// Output:
	// 1
	// Validation failed for ValidatingAdmissionPolicy 'guard.static.k8s.io' with binding 'guard.static.k8s.io': seen
	// Validation failed for ValidatingAdmissionPolicy 'team-policy' with binding 'team-policy': seen
}
