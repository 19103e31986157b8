package mutation

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// FuzzAddCRD checks that an untrusted CRD never makes AddCRD, nor typing and
// merging objects with the schemas it adds, panic.
func FuzzAddCRD(f *testing.F) {
	seed, err := os.ReadFile("testdata/widget-crd.yaml")
	require.NoError(f, err)
	f.Add(seed)
	f.Add([]byte(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, versions: [{name: v1, schema: {openAPIV3Schema: {type: object, properties: {a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: string}}}}}}]}}`))
	f.Add([]byte(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, versions: [{name: v1, schema: {openAPIV3Schema: {type: object, properties: {a: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-map-type: atomic, additionalProperties: {x-kubernetes-int-or-string: true}}}}}}]}}`))
	objects := []string{
		`{a: [x, {k: 1}], spec: {ports: [{port: 1}, {port: 1}], size: 1}}`,
		`{a: {apiVersion: v1, kind: K, metadata: {name: n}, b: 1}, spec: {tags: [a], extra: {x: [1]}}}`,
		`{metadata: {labels: {a: b}}, spec: {selector: {a: b}}}`,
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := BuiltIn()
		if err := s.AddCRD(data); err != nil {
			return
		}
		crd, err := yamlCRD(data)
		if err != nil {
			return
		}
		for _, v := range crd.versions {
			sch, err := s.Lookup(schema.GroupVersionKind{Group: crd.group, Version: v, Kind: crd.kind})
			if err != nil {
				t.Fatalf("version %s added but not found: %v", v, err)
			}
			for _, a := range objects {
				for _, b := range objects {
					var x, y map[string]any
					_ = yaml.Unmarshal([]byte(a), &x)
					_ = yaml.Unmarshal([]byte(b), &y)
					tx, err1 := sch.FromUnstructured(x)
					ty, err2 := sch.FromUnstructured(y)
					if err1 == nil && err2 == nil {
						_, _ = tx.Merge(ty)
					}
				}
			}
		}
	})
}

type crdNames struct {
	group, kind string
	versions    []string
}

func yamlCRD(data []byte) (crdNames, error) {
	var c struct {
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind string `json:"kind"`
			} `json:"names"`
			Versions []struct {
				Name string `json:"name"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return crdNames{}, err
	}
	out := crdNames{group: c.Spec.Group, kind: c.Spec.Names.Kind}
	for _, v := range c.Spec.Versions {
		out.versions = append(out.versions, strings.Clone(v.Name))
	}
	return out, nil
}
