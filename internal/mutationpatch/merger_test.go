package mutationpatch_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
)

var (
	podGVK    = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	gadgetGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}
	widgetGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
)

// TestMergerRules merges with the Merger and with structured-merge-diff:
// same outcome, and the Merger handles what it should.
func TestMergerRules(t *testing.T) {
	schemas := mergeSchemas(t)
	tests := []struct {
		name          string
		gvk           schema.GroupVersionKind
		object, patch string
		handled       bool
	}{
		// Structs and granular maps merge field by field.
		{"struct fields merge", podGVK,
			`{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"restartPolicy":"Always"}}`,
			`{"metadata":{"labels":{"y":"2"}},"spec":{"dnsPolicy":"None"}}`, true},
		{"scalar replaced", podGVK, `{"metadata":{"name":"a"}}`, `{"metadata":{"name":"b"}}`, true},
		{"granular map keys merge", gadgetGVK, `{"spec":{"config":{"a":"1","b":"2"}}}`, `{"spec":{"config":{"b":"3","c":"4"}}}`, true},
		// Atomic maps and lists are replaced (the patch may not set them at
		// a declared field: the atomics error).
		{"atomic map in patch", gadgetGVK, `{"spec":{"selector":{"a":"1"}}}`, `{"spec":{"selector":{"b":"2"}}}`, true},
		{"atomic struct in patch", gadgetGVK, `{"spec":{"nested":{"a":"x"}}}`, `{"spec":{"nested":{"b":1}}}`, true},
		{"atomic list in patch", gadgetGVK, `{"spec":{"plain":["a"]}}`, `{"spec":{"plain":["b"]}}`, true},
		{"atomic list of containers", podGVK, `{"spec":{"containers":[{"name":"a","args":["x"]}]}}`, `{"spec":{"containers":[{"name":"a","args":["y"]}]}}`, true},
		{"atomic list kept when absent", gadgetGVK, `{"spec":{"plain":["a"],"enabled":true}}`, `{"spec":{"enabled":false}}`, true},
		// Associative lists merge by key.
		{"containers merged by name", podGVK,
			`{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}}`,
			`{"spec":{"containers":[{"name":"b","image":"b:2"},{"name":"c","image":"c:1"}]}}`, true},
		{"new items after the ones they follow", podGVK,
			`{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			`{"spec":{"containers":[{"name":"x"},{"name":"c"},{"name":"y"},{"name":"a"},{"name":"z"}]}}`, true},
		{"shared items reordered", gadgetGVK,
			`{"spec":{"items":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"}]}}`,
			`{"spec":{"items":[{"name":"d","value":"1"},{"name":"b"},{"name":"e"},{"name":"a"}]}}`, true},
		{"two keys and a default", gadgetGVK,
			`{"spec":{"ports":[{"port":80},{"port":80,"protocol":"UDP"},{"port":53,"protocol":"UDP"}]}}`,
			`{"spec":{"ports":[{"port":80,"protocol":"TCP","name":"http"},{"port":53,"name":"dns"}]}}`, true},
		{"container ports default protocol", podGVK,
			`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}}`,
			`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP","name":"http"}]}]}}`, true},
		{"sidecar init container", podGVK,
			`{"spec":{"containers":[{"name":"app","image":"app"}],"initContainers":[{"name":"init","image":"busybox"}]}}`,
			`{"spec":{"initContainers":[{"name":"mesh-proxy","image":"mesh/proxy:v1.0.0","restartPolicy":"Always"}]}}`, true},
		{"nested lists in items", gadgetGVK,
			`{"spec":{"items":[{"name":"a","tags":["x","y"],"labels":{"k":"v"}}]}}`,
			`{"spec":{"items":[{"name":"a","tags":["z","x"],"labels":{"l":"w"}}]}}`, true},
		// Sets are unioned.
		{"set union", gadgetGVK, `{"spec":{"tags":["a","b","c"]}}`, `{"spec":{"tags":["d","b","e"]}}`, true},
		{"integer set", gadgetGVK, `{"spec":{"numbers":[3,1]}}`, `{"spec":{"numbers":[2,3]}}`, true},
		{"finalizers set", podGVK, `{"metadata":{"finalizers":["a"]}}`, `{"metadata":{"finalizers":["b","a"]}}`, true},
		// Nulls and empties.
		{"null over a struct keeps it", podGVK, `{"spec":{"securityContext":{"runAsUser":1}}}`, `{"spec":{"securityContext":null}}`, true},
		{"null over an empty struct", podGVK, `{"spec":{"securityContext":{}}}`, `{"spec":{"securityContext":null}}`, true},
		{"null over a scalar", podGVK, `{"spec":{"hostname":"h"}}`, `{"spec":{"hostname":null}}`, true},
		{"null over an atomic list", gadgetGVK, `{"spec":{"plain":["a"]}}`, `{"spec":{"plain":null}}`, true},
		{"null over an associative list keeps it", podGVK, `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":null}}`, true},
		{"null over a set keeps it", gadgetGVK, `{"spec":{"tags":["a"]}}`, `{"spec":{"tags":null}}`, true},
		{"null over null", podGVK, `{"spec":{"hostname":null}}`, `{"spec":{"hostname":null}}`, true},
		{"value over null", podGVK, `{"spec":{"securityContext":null}}`, `{"spec":{"securityContext":{"runAsUser":1}}}`, true},
		{"empty map over a map keeps it", podGVK, `{"metadata":{"labels":{"a":"b"}}}`, `{"metadata":{"labels":{}}}`, true},
		{"empty over empty", podGVK, `{"metadata":{"labels":{}}}`, `{"metadata":{"labels":{}}}`, true},
		{"empty list over a list keeps it", podGVK, `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[]}}`, true},
		{"empty lists", gadgetGVK, `{"spec":{"tags":[]}}`, `{"spec":{"tags":[]}}`, true},
		{"null in the object", gadgetGVK, `{"spec":{"items":[{"name":"a","value":null}]}}`, `{"spec":{"items":[{"name":"a","count":1.5}]}}`, true},
		// Scalars of several kinds.
		{"int-or-string", gadgetGVK, `{"spec":{"size":"10%"}}`, `{"spec":{"size":3}}`, true},
		{"float and integer numbers", gadgetGVK, `{"spec":{"ratio":1}}`, `{"spec":{"ratio":0.5}}`, true},
		// Preserved unknown fields: the deduced type.
		{"deduced maps merge", gadgetGVK, `{"spec":{"extra":{"a":{"b":1},"l":[1]}}}`, `{"spec":{"extra":{"a":{"c":2},"l":[2]}}}`, true},
		{"deduced kinds differ", gadgetGVK, `{"spec":{"extra":{"a":{"b":1},"l":[1]}}}`, `{"spec":{"extra":{"a":[1],"l":{"x":1}}}}`, true},
		{"deduced null over a map", gadgetGVK, `{"spec":{"extra":{"a":{"b":1}}}}`, `{"spec":{"extra":{"a":null}}}`, true},
		{"deduced null over a list", gadgetGVK, `{"spec":{"extra":{"a":[1]}}}`, `{"spec":{"extra":{"a":null}}}`, true},
		{"deduced null over a scalar", gadgetGVK, `{"spec":{"extra":{"a":1}}}`, `{"spec":{"extra":{"a":null}}}`, true},
		{"deduced null over an empty map", gadgetGVK, `{"spec":{"extra":{"a":{}}}}`, `{"spec":{"extra":{"a":null}}}`, true},
		{"deduced value over null", gadgetGVK, `{"spec":{"extra":{"a":null}}}`, `{"spec":{"extra":{"a":{"b":[1]}}}}`, true},
		{"embedded resource", widgetGVK, `{"spec":{"template":{"metadata":{"name":"x"},"spec":{"a":1}}}}`, `{"spec":{"template":{"spec":{"b":2}}}}`, true},
		// Not handled: the exact path gives kube-apiserver's result or error.
		{"duplicate keys in the patch", podGVK, `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"name":"b"},{"name":"b"}]}}`, false},
		{"duplicate keys in the object", podGVK, `{"spec":{"containers":[{"name":"a"},{"name":"a","image":"x"}]}}`, `{"spec":{"containers":[{"name":"a","image":"y"}]}}`, false},
		{"duplicate set items in the object", gadgetGVK, `{"spec":{"tags":["a","a"]}}`, `{"spec":{"tags":["b"]}}`, false},
		{"missing key with a default", podGVK, `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"image":"b"}]}}`, true},
		{"missing key", gadgetGVK, `{"spec":{"items":[{"name":"a"}]}}`, `{"spec":{"items":[{"value":"b"}]}}`, false},
		{"null item", podGVK, `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[null]}}`, false},
		{"float key", gadgetGVK, `{"spec":{"ports":[{"port":80}]}}`, `{"spec":{"ports":[{"port":80.0,"name":"x"}]}}`, false},
		{"wrong scalar kind", podGVK, `{"spec":{"hostname":"a"}}`, `{"spec":{"hostname":1}}`, false},
		{"wrong kind in the object", podGVK, `{"spec":{"hostname":{"a":1}}}`, `{"spec":{"hostname":"a"}}`, false},
		{"unknown field in the patch", podGVK, `{"spec":{}}`, `{"spec":{"nope":1}}`, false},
		{"unknown field in the object", podGVK, `{"spec":{"nope":1}}`, `{"spec":{"hostname":"a"}}`, false},
		{"unknown field untouched", podGVK, `{"status":{"nope":1},"spec":{}}`, `{"spec":{"hostname":"a"}}`, false},
		{"map where a list is", podGVK, `{"spec":{"containers":{"a":1}}}`, `{"spec":{"containers":[{"name":"a"}]}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := schemas.Lookup(tt.gvk)
			require.NoError(t, err)
			obj := withGVK(jsonMap(t, tt.object), tt.gvk)
			p := withGVK(jsonMap(t, tt.patch), tt.gvk)
			assert.Equal(t, tt.handled, checkMerge(t, s, p, obj), "handled")
		})
	}
}

// TestMergerCached: a kind's Merger is made once, and used.
func TestMergerCached(t *testing.T) {
	schemas := mergeSchemas(t)
	for _, gvk := range mergeKinds {
		a, err := schemas.Lookup(gvk)
		require.NoError(t, err)
		b, err := schemas.Lookup(gvk)
		require.NoError(t, err)
		require.NotNil(t, mutationpatch.MergerOf(a), gvk)
		assert.Same(t, mutationpatch.MergerOf(a), mutationpatch.MergerOf(b), gvk)
	}
}

// TestMergerConcurrent merges with Mergers compiled on first use by
// concurrent merges (run with -race).
func TestMergerConcurrent(t *testing.T) {
	schemas := mergeSchemas(t)
	obj := withGVK(jsonMap(t, benchPod), podGVK)
	p := withGVK(jsonMap(t, mergeSeeds[0].patch), podGVK)
	s, err := schemas.Lookup(podGVK)
	require.NoError(t, err)
	want, err := mutationpatch.MergeExact(p, obj, s)
	require.NoError(t, err)
	var wg sync.WaitGroup
	got := make([]map[string]any, 8)
	for i := range got {
		wg.Go(func() {
			s, err := schemas.Lookup(podGVK)
			if err == nil {
				got[i], _ = mutationpatch.MergeApplyConfiguration(p, obj, s)
			}
		})
	}
	wg.Wait()
	for _, g := range got {
		assert.Equal(t, want, g)
	}
}

// BenchmarkMergeApplyConfiguration merges the sidecar of the conformance
// benchmark into its Pod with the Merger and with structured-merge-diff.
func BenchmarkMergeApplyConfiguration(b *testing.B) {
	schemas := mergeSchemas(b)
	obj := withGVK(jsonMap(b, benchPod), podGVK)
	p := withGVK(jsonMap(b, mergeSeeds[0].patch), podGVK)
	s, err := schemas.Lookup(podGVK)
	require.NoError(b, err)
	for _, impl := range []struct {
		name  string
		merge func(p, object map[string]any, s mutationpatch.Typer) (map[string]any, error)
	}{{"merger", mutationpatch.MergeApplyConfiguration}, {"smd", mutationpatch.MergeExact}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := impl.merge(p, obj, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
