package mutation

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FuzzApplyPatch applies arbitrary ApplyConfigurations and JSON Patches to
// arbitrary objects of a built-in kind and of a custom resource: no panic,
// the object is never modified, and a success returns an object.
func FuzzApplyPatch(f *testing.F) {
	f.Add(`{"spec":{"containers":[{"name":"app","image":"x"}]}}`, false, `{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"app"},{"name":"app"}]}}`, false)
	f.Add(`{"spec":{"selector":{"matchLabels":{"a":"b"}}}}`, false, `{"apiVersion":"apps/v1","kind":"Deployment"}`, false)
	f.Add(`[{"op":"copy","from":"/spec","path":"/spec/x"},{"op":"test","path":"/a","value":1}]`, true, `{"apiVersion":"v1","kind":"Pod","spec":{}}`, false)
	f.Add(`[{"op":"add","path":"/spec/size","value":"big"}]`, true, `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"size":1}}`, true)
	f.Add(`{"spec":{"ports":[{"port":1},{"port":1}]}}`, false, `{"apiVersion":"example.com/v1","kind":"Widget"}`, true)
	f.Add(`[{"op":"replace","path":""}]`, true, `{"apiVersion":"v1","kind":"Pod"}`, false)
	schemas := BuiltIn()
	crd, err := os.ReadFile("testdata/widget-crd.yaml")
	if err != nil {
		f.Fatal(err)
	}
	if err := schemas.AddCRD(crd); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, patchJSON string, isJSONPatch bool, objectJSON string, custom bool) {
		var object map[string]any
		if json.Unmarshal([]byte(objectJSON), &object) != nil || object == nil {
			return
		}
		before, _ := json.Marshal(object)
		gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
		if custom {
			gvk = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
		}
		var p patch
		if isJSONPatch {
			p.jsonPatch = []byte(patchJSON)
		} else if json.Unmarshal([]byte(patchJSON), &p.applyConfiguration) != nil || p.applyConfiguration == nil {
			return
		}
		out, err := applyPatch(p, object, gvk, schemas)
		after, _ := json.Marshal(object)
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("the object was modified: %s → %s", before, after)
		}
		if err == nil && out == nil {
			t.Fatal("no object and no error")
		}
	})
}
