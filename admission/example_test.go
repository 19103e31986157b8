package admission_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

const exampleMutatingPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: default-team.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  matchConditions:
  - {name: no-team, expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'platform'}}}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: default-team.static.k8s.io}
spec: {policyName: default-team.static.k8s.io}
`

const exampleValidatingPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-secrets-in-configmaps.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"]}
  validations:
  - expression: "!has(object.data) || !object.data.exists(k, k.contains('password'))"
    message: "passwords belong in Secrets"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-secrets-in-configmaps.static.k8s.io}
spec: {policyName: no-secrets-in-configmaps.static.k8s.io, validationActions: [Deny]}
`

const examplePolicies = exampleMutatingPolicies + "---" + exampleValidatingPolicies

func configMapRequest(data map[string]any) *admission.Request {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "settings", "namespace": "default"}, "data": data}}
	return &admission.Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Name: "settings", Namespace: "default", Object: obj}
}

// A chain of policies given as API objects admits a ConfigMap: the
// mutating policy labels it, the validating policy sees the labelled
// object.
func ExampleNew() {
	cfg, err := admission.Decode([]byte(examplePolicies))
	if err != nil {
		panic(err)
	}
	chain, err := admission.New(*cfg, admission.Options{})
	if err != nil {
		panic(err)
	}
	res, err := chain.Admit(context.Background(), configMapRequest(map[string]any{"color": "blue"}))
	fmt.Println(err, res.Changed, res.Object.GetLabels())
	_, err = chain.Admit(context.Background(), configMapRequest(map[string]any{"db-password": "hunter2"}))
	fmt.Println(err)
	// Output:
	// <nil> true map[team:platform]
	// configmaps "settings" is forbidden: ValidatingAdmissionPolicy 'no-secrets-in-configmaps.static.k8s.io' with binding 'no-secrets-in-configmaps.static.k8s.io' denied request: passwords belong in Secrets
}

// A chain that follows static manifests directories, as kube-apiserver
// follows those of its AdmissionConfiguration (ReloaderOptions.AdmissionConfiguration
// names the file; Dirs names directories directly).
func ExampleNewReloader() {
	dir, err := os.MkdirTemp("", "policies")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	mutating, validating := filepath.Join(dir, "mutating"), filepath.Join(dir, "validating")
	for _, d := range []string{mutating, validating} {
		if err := os.Mkdir(d, 0o755); err != nil {
			panic(err)
		}
	}
	// Each plugin reads only its own kinds.
	if err := os.WriteFile(filepath.Join(mutating, "policies.yaml"), []byte(exampleMutatingPolicies), 0o644); err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(validating, "policies.yaml"), []byte(exampleValidatingPolicies), 0o644); err != nil {
		panic(err)
	}

	r, err := admission.NewReloader(admission.ReloaderOptions{Dirs: map[admissionmanifest.Plugin]string{
		admissionmanifest.MutatingAdmissionPolicy:   mutating,
		admissionmanifest.ValidatingAdmissionPolicy: validating,
	}})
	if err != nil {
		panic(err)
	}
	// A server runs r.Run(ctx) and asks r.Chain() for each request.
	res, err := r.Chain().Admit(context.Background(), configMapRequest(nil))
	fmt.Println(err, res.Object.GetLabels())

	// Removing the validating policy takes effect at the next check.
	if err := os.Remove(filepath.Join(validating, "policies.yaml")); err != nil {
		panic(err)
	}
	for _, ev := range r.Check() {
		fmt.Println(ev.Plugin, ev.Status)
	}
	_, err = r.Chain().Admit(context.Background(), configMapRequest(map[string]any{"db-password": "hunter2"}))
	fmt.Println(err)
	// Output:
	// <nil> map[team:platform]
	// ValidatingAdmissionPolicy success
	// <nil>
}
