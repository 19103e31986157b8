package admissioncel

import (
	"time"

	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestTypedToValScalars(t *testing.T) {
	type myString string
	tests := []struct {
		name string
		in   any
		want ref.Val
	}{
		{"nil", nil, types.NullValue},
		{"nil pointer", (*corev1.Pod)(nil), types.NullValue},
		{"nil slice", []string(nil), types.NullValue},
		{"nil bytes", []byte(nil), types.NullValue},
		{"bytes are base64", []byte("hi"), types.String("aGk=")},
		{"named bytes", json([]byte("hi")), types.String("aGk=")},
		{"int-or-string int", intstr.FromInt32(8), types.Int(8)},
		{"int-or-string string", intstr.FromString("50%"), types.String("50%")},
		{"named string", myString("x"), types.String("x")},
		{"uint", uint32(7), types.Int(7)},
		{"float32", float32(0.5), types.Double(0.5)},
		{"quantity, by its JSON", resource.MustParse("1Gi"), types.String("1Gi")},
		{"time, by its JSON", metav1.Date(2020, 1, 2, 3, 4, 5, 0, time0()), types.String("2020-01-02T03:04:05Z")},
		{"zero time", metav1.Time{}, types.NullValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, TypedToVal(tt.in))
		})
	}
}

type json []byte

func TestTypedToValErrors(t *testing.T) {
	assert.EqualError(t, TypedToVal(uint64(1<<63)).(*types.Err), "unsigned value 9223372036854775808 does not fit into int64 (overflow)")
	assert.EqualError(t, TypedToVal(make(chan int)).(*types.Err), "unsupported Go type for CEL: chan int")
}

func TestTypedStruct(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}},
	}
	v, ok := TypedToVal(pod).(traits.Mapper)
	require.True(t, ok)
	assert.Equal(t, types.MapType, v.Type())

	meta := v.Get(types.String("metadata")).(traits.Mapper)
	assert.Equal(t, types.String("web"), meta.Get(types.String("name")))
	// omitempty fields are absent.
	_, found := meta.Find(types.String("namespace"))
	assert.False(t, found)
	assert.EqualError(t, meta.Get(types.String("namespace")).(*types.Err), "no such key: namespace")
	assert.Equal(t, types.False, meta.(traits.FieldTester).IsSet(types.String("namespace")))
	// A field that is not a JSON field.
	_, found = meta.Find(types.String("Name"))
	assert.False(t, found)
	// A key of another type.
	assert.EqualError(t, meta.Get(types.Int(1)).(*types.Err), "unsupported map key type: types.Int")
	assert.Equal(t, types.Int(2), meta.Size()) // name, labels; creationTimestamp is null... omitted

	containers := v.Get(types.String("spec")).(traits.Mapper).Get(types.String("containers")).(traits.Lister)
	assert.Equal(t, types.Int(2), containers.Size())
	assert.EqualError(t, containers.Get(types.Int(2)).(*types.Err), "index out of bounds: 2")
	assert.EqualError(t, containers.Get(types.String("x")).(*types.Err), "unsupported index type: types.String")
	assert.Equal(t, types.True, containers.Equal(containers))

	labels := meta.Get(types.String("labels")).(traits.Mapper)
	assert.Equal(t, types.True, labels.Contains(types.String("app")))
	assert.Equal(t, types.False, labels.Contains(types.String("tier")))
	assert.EqualError(t, labels.Get(types.String("tier")).(*types.Err), "no such key: tier")
	assert.Equal(t, types.True, labels.Equal(types.DefaultTypeAdapter.NativeToValue(map[string]any{"app": "web"})))

	// Two structs compare semantically; a struct and a map key by key.
	other := TypedToVal(pod.DeepCopy())
	assert.Equal(t, types.True, v.Equal(other))
	assert.Equal(t, types.True, meta.Equal(types.DefaultTypeAdapter.NativeToValue(map[string]any{"name": "web", "labels": map[string]any{"app": "web"}})))
	assert.Equal(t, types.False, meta.Equal(types.DefaultTypeAdapter.NativeToValue(map[string]any{"name": "web"})))
}

func TestUnescapeFieldName(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"plain", "plain", true},
		{"a__dash__b", "a-b", true},
		{"a__dot__b__slash__c", "a.b/c", true},
		{"__underscores__x", "__x", true},
		{"___dot__", "_.", true},
		{"__in__", "in", true},
		{"x__in__", "", false},
		{"a__b__c", "", false},
		{"a__", "a__", true},
		{"a____b", "a____b", true},
	}
	for _, tt := range tests {
		got, ok := UnescapeFieldName(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func time0() *time.Location { return time.UTC }
