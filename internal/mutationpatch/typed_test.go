package mutationpatch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestNormalizeTypedKinds checks which kinds are held as Go types: a field
// that the Go type lacks is dropped by the round trip through it, and kept
// in the content of a kind without one. The kinds of lifecycle/v1alpha1,
// scheduling/v1alpha3 and storagemigration/v1, new in k8s.io/api v0.37, are
// typed as in kube-apiserver 1.37.
func TestNormalizeTypedKinds(t *testing.T) {
	tests := []struct {
		gvk   schema.GroupVersionKind
		typed bool
	}{
		{schema.GroupVersionKind{Group: "lifecycle.k8s.io", Version: "v1alpha1", Kind: "Eviction"}, true},
		{schema.GroupVersionKind{Group: "lifecycle.k8s.io", Version: "v1alpha1", Kind: "EvictionRequest"}, true},
		{schema.GroupVersionKind{Group: "scheduling.k8s.io", Version: "v1alpha3", Kind: "Workload"}, true},
		{schema.GroupVersionKind{Group: "scheduling.k8s.io", Version: "v1alpha3", Kind: "PodGroup"}, true},
		{schema.GroupVersionKind{Group: "scheduling.k8s.io", Version: "v1alpha3", Kind: "CompositePodGroup"}, true},
		{schema.GroupVersionKind{Group: "storagemigration.k8s.io", Version: "v1", Kind: "StorageVersionMigration"}, true},
		{schema.GroupVersionKind{Group: "storagemigration.k8s.io", Version: "v1beta1", Kind: "StorageVersionMigration"}, true},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true},
		{schema.GroupVersionKind{Group: "scheduling.k8s.io", Version: "v1alpha9", Kind: "Workload"}, false},
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.gvk.String(), func(t *testing.T) {
			apiVersion, kind := tt.gvk.ToAPIVersionAndKind()
			object := map[string]any{
				"apiVersion": apiVersion,
				"kind":       kind,
				"metadata":   map[string]any{"name": "x"},
				"notAField":  int64(1),
			}
			got, err := Normalize(object, tt.gvk, true)
			require.NoError(t, err)
			assert.Equal(t, apiVersion, got["apiVersion"])
			assert.Equal(t, kind, got["kind"])
			assert.Equal(t, map[string]any{"name": "x"}, got["metadata"].(map[string]any), "metadata")
			_, kept := got["notAField"]
			assert.Equal(t, !tt.typed, kept, "an unknown field is kept only if the kind is not typed")
			assert.Contains(t, object, "notAField", "the object is not modified")
		})
	}
}
