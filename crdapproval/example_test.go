package crdapproval_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/crdapproval"
)

func ExampleIsProtectedGroup() {
	for _, group := range []string{"k8s.io", "gateway.networking.k8s.io", "apps.kubernetes.io", "gateway.networking.x-k8s.io", "xk8s.io", "K8S.IO", "example.com"} {
		fmt.Printf("%-28s %v\n", group, crdapproval.IsProtectedGroup(group))
	}
	// Output:
	// k8s.io                       true
	// gateway.networking.k8s.io    true
	// apps.kubernetes.io           true
	// gateway.networking.x-k8s.io  false
	// xk8s.io                      false
	// K8S.IO                       false
	// example.com                  false
}

func ExampleStateOf() {
	for _, value := range []string{
		"https://github.com/kubernetes/enhancements/pull/1111",
		"unapproved, experimental-only",
		"",
		"github.com/kubernetes/enhancements/pull/1111",
		"Unapproved",
	} {
		annotations := map[string]string{crdapproval.AnnotationKey: value}
		fmt.Printf("%-11v %q\n", crdapproval.StateOf("snapshot.storage.k8s.io", annotations), value)
	}
	fmt.Println(crdapproval.StateOf("example.com", nil))
	// Output:
	// Approved    "https://github.com/kubernetes/enhancements/pull/1111"
	// Unapproved  "unapproved, experimental-only"
	// Missing     ""
	// Invalid     "github.com/kubernetes/enhancements/pull/1111"
	// Invalid     "Unapproved"
	// NotRequired
}

func ExampleValidateCreate() {
	errs := crdapproval.ValidateCreate("externaldns.k8s.io", map[string]string{"controller-gen.kubebuilder.io/version": "v0.17.2"})
	fmt.Println(errs.ToAggregate())

	errs = crdapproval.ValidateCreate("externaldns.k8s.io", map[string]string{crdapproval.AnnotationKey: "approved"})
	fmt.Println(errs.ToAggregate())

	errs = crdapproval.ValidateCreate("externaldns.k8s.io", map[string]string{crdapproval.AnnotationKey: "https://github.com/kubernetes-sigs/external-dns/pull/2007"})
	fmt.Println(len(errs))
	// Output:
	// metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111
	// metadata.annotations[api-approved.kubernetes.io]: Invalid value: "approved": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111
	// 0
}

func ExampleValidateUpdate() {
	approved := map[string]string{crdapproval.AnnotationKey: "https://github.com/kubernetes/enhancements/pull/1111"}
	invalid := map[string]string{crdapproval.AnnotationKey: "approved"}
	invalid2 := map[string]string{crdapproval.AnnotationKey: "approved by sig-storage"}

	// A CRD created before the rule keeps its bad value, or changes it for
	// another bad value...
	fmt.Println(len(crdapproval.ValidateUpdate("x.k8s.io", invalid2, invalid)))
	// ...but an approved CRD cannot lose its approval.
	fmt.Println(crdapproval.ValidateUpdate("x.k8s.io", nil, approved).ToAggregate())
	// Output:
	// 0
	// metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111
}

func ExampleCondition() {
	c, ok := crdapproval.Condition("samplecontroller.k8s.io", map[string]string{crdapproval.AnnotationKey: "unapproved, experimental-only"})
	fmt.Println(ok, c.Type, c.Status, c.Reason)
	fmt.Println(c.Message)

	_, ok = crdapproval.Condition("example.com", nil)
	fmt.Println(ok)
	// Output:
	// true KubernetesAPIApprovalPolicyConformant False UnapprovedAnnotation
	// not approved: "unapproved, experimental-only"
	// false
}

func ExampleSetCondition() {
	clock := clocktesting.NewFakePassiveClock(time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC))
	var conditions []metav1.Condition

	missing, _ := crdapproval.Condition("x.k8s.io", nil)
	fmt.Println(crdapproval.SetCondition(&conditions, missing, metav1.NewTime(clock.Now())))
	// The controller writes nothing when the condition is unchanged.
	clock.SetTime(clock.Now().Add(time.Hour))
	fmt.Println(crdapproval.SetCondition(&conditions, missing, metav1.NewTime(clock.Now())))
	// A new status moves the transition time.
	approved, _ := crdapproval.Condition("x.k8s.io", map[string]string{crdapproval.AnnotationKey: "https://github.com/kubernetes/enhancements/pull/1111"})
	fmt.Println(crdapproval.SetCondition(&conditions, approved, metav1.NewTime(clock.Now())))
	c := conditions[0]
	fmt.Println(c.Status, c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339))
	// Output:
	// true
	// false
	// true
	// True ApprovedAnnotation 2026-07-01T13:00:00Z
}

func ExampleDecode() {
	stream := []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: dnsendpoints.externaldns.k8s.io
  annotations:
    api-approved.kubernetes.io: https://github.com/kubernetes-sigs/external-dns/pull/2007
spec:
  group: externaldns.k8s.io
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: snapshotmetadataservices.cbt.storage.k8s.io
spec:
  group: cbt.storage.k8s.io
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-crd
`)
	crds, err := crdapproval.Decode(stream)
	for _, crd := range crds {
		fmt.Printf("line %d: %s: %v\n", crd.Line, crd.Name, crdapproval.StateOf(crd.Group, crd.Annotations))
		for _, e := range crdapproval.ValidateCreate(crd.Group, crd.Annotations) {
			fmt.Printf("  %s: %s\n", e.Field, e.Type)
		}
	}
	fmt.Println(err)
	// Output:
	// line 1: dnsendpoints.externaldns.k8s.io: Approved
	// line 10: snapshotmetadataservices.cbt.storage.k8s.io: Missing
	//   metadata.annotations[api-approved.kubernetes.io]: Required value
	// document 3 (line 17): not a CustomResourceDefinition of apiextensions.k8s.io/v1 or v1beta1: apiVersion "v1", kind "ConfigMap"
}

func ExampleFromUnstructured() {
	// Unstructured content, as k8s.io/apimachinery's unstructured.Unstructured
	// holds it.
	obj := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata": map[string]any{
			"name":        "roles.rbac.authorization.k8s.io",
			"annotations": map[string]any{"api-approved.kubernetes.io": "https://github.com/kcp-dev/kubernetes/pull/4"},
		},
		"spec": map[string]any{"group": "rbac.authorization.k8s.io"},
	}
	crd, err := crdapproval.FromUnstructured(obj)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, _ := crdapproval.Condition(crd.Group, crd.Annotations)
	fmt.Println(c.Status, c.Message)

	obj["metadata"].(map[string]any)["annotations"] = map[string]any{"api-approved.kubernetes.io": int64(4)}
	_, err = crdapproval.FromUnstructured(obj)
	fmt.Println(err)
	// Output:
	// True approved in https://github.com/kcp-dev/kubernetes/pull/4
	// metadata.annotations[api-approved.kubernetes.io]: must be a string, not a number (4)
}
