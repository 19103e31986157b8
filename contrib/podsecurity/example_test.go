package podsecurity_test

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/contrib/podsecurity"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// A privileged pod in a namespace that enforces the restricted level is
// denied as kube-apiserver denies it; in one that only warns at baseline,
// it is admitted with the warning.
func Example() {
	namespaces := mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
		labels := map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}
		if name == "dev" {
			labels = map[string]string{"pod-security.kubernetes.io/warn": "baseline"}
		}
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, nil
	})
	plugin, err := podsecurity.New(nil, podsecurity.Options{Namespaces: namespaces})
	if err != nil {
		panic(err)
	}
	chain, err := admission.New(admission.Config{}, admission.Options{Namespaces: namespaces, PodSecurity: plugin})
	if err != nil {
		panic(err)
	}
	for _, ns := range []string{"prod", "dev"} {
		pod := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "web", "namespace": ns},
			"spec": map[string]any{"containers": []any{map[string]any{
				"name": "app", "image": "nginx", "securityContext": map[string]any{"privileged": true}}}},
		}}
		res, err := chain.Admit(context.Background(), &admission.Request{
			Operation: admissionv1.Create, Name: "web", Namespace: ns, Object: pod,
			Kind:     schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		})
		fmt.Println(ns+":", err)
		for _, w := range res.Warnings {
			fmt.Println("  warning:", w)
		}
		fmt.Println("  enforce-policy:", res.AuditAnnotations["pod-security.kubernetes.io/enforce-policy"])
	}
	// Output:
	// prod: pods "web" is forbidden: violates PodSecurity "restricted:latest": privileged (container "app" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")
	//   enforce-policy: restricted:latest
	// dev: <nil>
	//   warning: would violate PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)
	//   enforce-policy: privileged:latest
}
