package mutation_test

import (
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/mutation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

func ExampleSchemas() {
	schemas := mutation.BuiltIn()
	crd, err := os.ReadFile("testdata/widget-crd.yaml")
	if err != nil {
		panic(err)
	}
	if err := schemas.AddCRD(crd); err != nil {
		panic(err)
	}
	widget, err := schemas.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	if err != nil {
		panic(err)
	}
	typedOf := func(y string) map[string]any {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(y), &obj); err != nil {
			panic(err)
		}
		return obj
	}
	live, err := widget.FromUnstructured(typedOf(`{spec: {ports: [{port: 80, name: http}, {port: 443}], tags: [a, b]}}`))
	if err != nil {
		panic(err)
	}
	patch, err := widget.FromUnstructured(typedOf(`{spec: {ports: [{port: 80, name: web}], tags: [c]}}`))
	if err != nil {
		panic(err)
	}
	merged, err := live.Merge(patch)
	if err != nil {
		panic(err)
	}
	out, _ := yaml.Marshal(merged.AsValue().Unstructured())
	fmt.Print(string(out))

	_, err = schemas.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"})
	fmt.Println(err)
	// Output:
	// spec:
	//   ports:
	//   - name: web
	//     port: 80
	//   - port: 443
	//   tags:
	//   - c
	// no schema for example.com/v2, Kind=Widget
}
