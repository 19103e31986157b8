package mutation

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/util/json"
)

// FuzzApplyPatch checks that applying an untrusted patch to an untrusted
// object never panics, never modifies the object, and gives a result whose
// size is bounded by the inputs' (and json-patch's 3 MiB of copies).
func FuzzApplyPatch(f *testing.F) {
	schemas := testSchemas(f)
	kinds := []schema.GroupVersionKind{podGVKForFuzz, deploymentGVK, {Version: "v1", Kind: "ConfigMap"}, widgetGVK,
		{Group: "example.com", Version: "v1", Kind: "Gadget"}}
	f.Add(uint8(1), []byte(testDeployment), []byte(`{"spec":{"replicas":3}}`), false, true)
	f.Add(uint8(1), []byte(testDeployment), []byte(`{"spec":{"selector":{"matchLabels":{"a":"b"}}}}`), false, true)
	f.Add(uint8(0), []byte(`{"spec":{"containers":[{"name":"a"},{"name":"a"}]}}`), []byte(`{"spec":{"containers":[{"name":"a","image":"b","resources":{"limits":{"cpu":"1"}}}]}}`), false, true)
	f.Add(uint8(3), []byte(testWidget), []byte(`{"spec":{"ports":[{"port":81}],"extra":{"a":[1]}}}`), false, true)
	f.Add(uint8(1), []byte(testDeployment), []byte(`[{"op":"replace","path":"/spec/replicas","value":5},{"op":"test","path":"/spec/replicas","value":7}]`), true, true)
	f.Add(uint8(0), []byte(`{"spec":{"containers":[]}}`), []byte(`[{"op":"add","path":"/spec/containers/-","value":{"name":"x"}},{"op":"copy","from":"/spec/containers/0","path":"/spec/initContainers"}]`), true, true)
	f.Add(uint8(3), []byte(testWidget), []byte(`[{"op":"copy","from":"/spec","path":"/spec/x"},{"op":"move","from":"/spec/x","path":"/status"},{"op":"remove","path":"/kind"}]`), true, false)
	f.Add(uint8(2), []byte(`{"data":{"a":"b"}}`), []byte(`[{"op":"add","path":"/binaryData","value":{"a":"!"}}]`), true, true)
	f.Add(uint8(0), []byte(`{}`), []byte(`[{"op":"replace","path":""}]`), true, true)
	f.Fuzz(func(t *testing.T, kind uint8, objectJSON, patchJSON []byte, jsonPatch, setKind bool) {
		gvk := kinds[int(kind)%len(kinds)]
		var object map[string]any
		if kjson.Unmarshal(objectJSON, &object) != nil || object == nil {
			return
		}
		if setKind {
			object["apiVersion"], object["kind"] = gvk.GroupVersion().String(), gvk.Kind
		}
		var p patch
		if jsonPatch {
			p.jsonPatch = patchJSON
		} else if kjson.Unmarshal(patchJSON, &p.applyConfiguration) != nil {
			return
		}
		before, err := json.Marshal(object)
		if err != nil {
			return
		}
		out, err := applyPatch(p, object, gvk, schemas)
		after, merr := json.Marshal(object)
		if merr != nil || !bytes.Equal(before, after) {
			t.Fatalf("object modified: %s became %s", before, after)
		}
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("an error without text")
			}
			return
		}
		got, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
		if limit := 64*(len(before)+len(patchJSON)+64) + 3<<20; len(got) > limit {
			t.Fatalf("result of %d bytes from %d+%d", len(got), len(before), len(patchJSON))
		}
	})
}

var podGVKForFuzz = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
