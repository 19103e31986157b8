package typednormal

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// TestNormalizeStrict checks NormalizeStrict declines what strict decoding
// rejects and otherwise gives its result.
func TestNormalizeStrict(t *testing.T) {
	w := newWorld(t)
	strict := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, w.scheme, w.scheme, kjson.SerializerOptions{Strict: true})
	pod := func(spec string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"Any":"x"}},"spec":` + spec + `}`
	}
	tests := []struct {
		name    string
		doc     string
		handled bool
	}{
		{"known fields", pod(`{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"1"}}}]}`), true},
		{"unknown top-level field", `{"apiVersion":"v1","kind":"Pod","nope":1}`, false},
		{"unknown field in a list of structs", pod(`{"containers":[{"name":"c","nope":null}]}`), false},
		{"managed fields and secret data", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","managedFields":[{"fieldsV1":{"f:x":{}}}]},"data":{"a":"YQ=="}}`, true},
		{"case mismatch", pod(`{"NodeName":"n"}`), false},
		{"case mismatch in metadata", `{"apiVersion":"v1","kind":"Pod","metadata":{"Name":"p"}}`, false},
		{"inlined names", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := decode(t, tt.doc)
			got, ok := w.norm.NormalizeStrict(podKind.GroupVersion().WithKind(obj["kind"].(string)), obj)
			require.Equal(t, tt.handled, ok)
			doc, err := json.Marshal(obj)
			require.NoError(t, err)
			into, err := w.scheme.New(podKind.GroupVersion().WithKind(obj["kind"].(string)))
			require.NoError(t, err)
			typed, _, err := strict.Decode(doc, nil, into)
			if !ok {
				// Every decline of this table is a strict error.
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}
