package builtinschema

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

func TestEveryKindDecodes(t *testing.T) {
	s := New()
	kinds, err := s.Kinds()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(kinds), 200, "the built-in kinds of Kubernetes 1.37")
	for _, gvk := range kinds {
		pt, ok, err := s.Lookup(gvk)
		require.NoError(t, err, gvk)
		require.True(t, ok, gvk)
		require.True(t, pt.IsValid(), gvk)
		_, err = pt.FromUnstructured(map[string]interface{}{"apiVersion": "x", "kind": gvk.Kind})
		require.NoError(t, err, gvk)
	}
}

func TestLookup(t *testing.T) {
	s := New()
	_, ok, err := s.Lookup(GVK{"", "v1", "NoSuchKind"})
	require.NoError(t, err)
	assert.False(t, ok)

	pod, ok, err := s.Lookup(GVK{"", "v1", "Pod"})
	require.NoError(t, err)
	require.True(t, ok)
	_, err = pod.FromYAML(typed.YAMLObject(`{"spec": {"containers": [{"name": "a", "image": "x"}]}}`))
	require.NoError(t, err)
	_, err = pod.FromYAML(typed.YAMLObject(`{"spec": {"containers": [{"name": "a"}, {"name": "a"}]}}`))
	assert.ErrorContains(t, err, `.spec.containers: duplicate entries for key [name="a"]`)
	_, err = pod.FromYAML(typed.YAMLObject(`{"spec": {"replicas": 1}}`))
	assert.ErrorContains(t, err, ".spec.replicas: field not declared in schema")

	again, _, _ := s.Lookup(GVK{"", "v1", "Pod"})
	assert.Same(t, pod.Schema, again.Schema, "decoded once")
	dep, _, _ := s.Lookup(GVK{"apps", "v1", "Deployment"})
	assert.Less(t, len(dep.Schema.Types), 200, "only the closure of the kind is decoded")
}

func TestConcurrentLookups(t *testing.T) {
	s := New()
	var wg sync.WaitGroup
	results := make([]typed.ParseableType, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pt, _, err := s.Lookup(GVK{"apps", "v1", "Deployment"})
			assert.NoError(t, err)
			results[i] = pt
		}()
	}
	wg.Wait()
	for _, pt := range results[1:] {
		assert.Same(t, results[0].Schema, pt.Schema)
	}
}
