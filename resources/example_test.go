package resources_test

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/resources"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - {name: v1, served: true, storage: true}
  - {name: v1beta1, served: true, storage: false}
`

func ExampleNewNoneConverter() {
	c, err := resources.NewNoneConverter([]byte(crd))
	if err != nil {
		panic(err)
	}
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": "w"},
		"spec":       map[string]any{"size": int64(3)},
	}}
	out, err := c.Convert(widget, schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "Widget"})
	fmt.Println(out.Object, err)
	_, err = c.Convert(widget, schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"})
	fmt.Println(err)

	// The engines' options take it, built-in kinds passed to a converter of
	// one's own (here none: converting them fails).
	_ = mutation.Options{Converter: c.Or(nil), Equivalents: resources.BuiltIn()}
	_ = validatingpolicy.Options{Converter: c}
	// Output:
	// map[apiVersion:example.com/v1beta1 kind:Widget metadata:map[name:w] spec:map[size:3]] <nil>
	// request to convert CR to an invalid group/version: example.com/v2
}

func ExampleBuiltIn() {
	reg := resources.BuiltIn()
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	fmt.Println(reg.EquivalentResourcesFor(deployments, ""), reg.KindFor(deployments, ""))
	fmt.Println(reg.EquivalentResourcesFor(deployments, "scale"), reg.KindFor(deployments, "scale"))
	events := schema.GroupVersionResource{Version: "v1", Resource: "events"}
	for _, r := range reg.EquivalentResourcesFor(events, "") {
		fmt.Println(r, reg.KindFor(r, ""))
	}
	// Output:
	// [apps/v1, Resource=deployments] apps/v1, Kind=Deployment
	// [apps/v1, Resource=deployments] autoscaling/v1, Kind=Scale
	// /v1, Resource=events /v1, Kind=Event
	// events.k8s.io/v1, Resource=events events.k8s.io/v1, Kind=Event
}

func ExampleBuiltInFor() {
	// PodCertificateRequests are certificates.k8s.io/v1 from Kubernetes 1.37.
	pcr := schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "podcertificaterequests"}
	for _, v := range []string{"1.36", "1.37"} {
		target, err := kube.ParseTarget(v)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %q\n", v, resources.BuiltInFor(target).KindFor(pcr, "").Kind)
	}
	// Output:
	// 1.36: ""
	// 1.37: "PodCertificateRequest"
}

func ExampleRegisterCRD() {
	reg := resources.BuiltIn()
	if err := resources.RegisterCRD(reg, []byte(crd)); err != nil {
		panic(err)
	}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	fmt.Println(reg.EquivalentResourcesFor(widgets, ""))
	// Output:
	// [example.com/v1, Resource=widgets example.com/v1beta1, Resource=widgets]
}
