package crdschema

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModelName(t *testing.T) {
	assert.Equal(t, "com.example.stable.v1.Foo", ModelName("stable.example.com", "v1", "Foo"))
	assert.Equal(t, "g.v1.K", ModelName("g", "v1", "K"))
}

// FuzzConvert checks that no CRD, however malformed, makes the conversion
// panic or hang.
func FuzzConvert(f *testing.F) {
	seed, err := os.ReadFile("../../mutation/testdata/widget-crd.yaml")
	require.NoError(f, err)
	f.Add(seed)
	f.Add([]byte(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, versions: [{name: v1, schema: {openAPIV3Schema: {type: object, properties: {a: {type: array, x-kubernetes-list-type: map}}}}}]}}`))
	f.Add([]byte(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: g, names: {kind: K}, versions: [{name: v1, schema: {openAPIV3Schema: {type: object, additionalProperties: true, properties: {a: {x-kubernetes-int-or-string: true, items: {type: object}}}}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		crd, err := Decode(data)
		if err != nil {
			return
		}
		_, _ = Convert(crd)
	})
}
