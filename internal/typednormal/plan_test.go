package typednormal

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The types below are not API types: they hold the shapes the API types
// could (fields named "-", unsigned and float fields, embedded pointers,
// duplicate names, interfaces, custom marshalling), to check the plan of
// each against the converter.

type Inner struct {
	A string `json:"a"`
	B int32  `json:"b,omitempty"`
}

type EmbeddedPtr struct {
	C string `json:"c,omitempty"`
}

type named string

type custom struct{ V string }

func (c custom) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

type shapes struct {
	Inner        `json:",inline"`
	*EmbeddedPtr `json:",inline"`
	Skipped      string                `json:"-"`
	NoTag        string                //nolint:unused
	EmptyName    int64                 `json:",omitempty"`
	U8           uint8                 `json:"u8,omitempty"`
	U64          uint64                `json:"u64"`
	F32          float32               `json:"f32"`
	F64          *float64              `json:"f64,omitempty"`
	Bytes        []byte                `json:"bytes"`
	BytesPtr     *[]byte               `json:"bytesPtr,omitempty"`
	Named        named                 `json:"named"`
	Any          any                   `json:"any,omitempty"`
	Custom       custom                `json:"custom"`
	Ptrs         map[string]*Inner     `json:"ptrs"`
	Quantities   []resource.Quantity   `json:"quantities"`
	QPtr         *resource.Quantity    `json:"qPtr,omitempty"`
	IOS          intstr.IntOrString    `json:"ios"`
	IOSPtr       *intstr.IntOrString   `json:"iosPtr,omitempty"`
	Time         metav1.Time           `json:"time"`
	TimePtr      *metav1.Time          `json:"timePtr,omitempty"`
	Dur          metav1.Duration       `json:"dur"`
	Raw          runtime.RawExtension  `json:"raw"`
	RawPtr       *runtime.RawExtension `json:"rawPtr,omitempty"`
	Lists        [][]string            `json:"lists"`
	Dup          string                `json:"a,omitempty"`
}

// convertShapes is the exact round trip of in through shapes.
func convertShapes(in map[string]any) (map[string]any, error) {
	var s shapes
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(in, &s); err != nil {
		return nil, err
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(&s)
}

func TestPlanShapes(t *testing.T) {
	p := planner{types: map[reflect.Type]*node{}}
	n := p.plan(reflect.TypeFor[shapes]())
	require.Equal(t, structKind, n.kind)
	tests := []struct {
		name    string
		in      string
		handled bool
	}{
		{"empty", `{}`, true},
		{"inline and embedded pointer", `{"a":"x","b":2,"c":"y"}`, true},
		{"duplicate name: the later field wins", `{"a":"x"}`, true},
		{"field named - read from -", `{"-":"x"}`, false},
		{"field without a tag", `{"NoTag":"x","EmptyName":3}`, true},
		{"unsigned", `{"u8":255,"u64":9223372036854775807}`, true},
		{"unsigned overflow fails", `{"u8":256}`, false},
		{"negative unsigned fails", `{"u64":-1}`, false},
		{"float32 rounding", `{"f32":0.1,"f64":0.1}`, true},
		{"float from int", `{"f32":3,"f64":16777217}`, true},
		{"zero float pointer kept", `{"f64":0}`, true},
		{"bytes", `{"bytes":"AAEC","bytesPtr":""}`, true},
		{"bytes from a list fail", `{"bytes":[1,2]}`, false},
		{"named string", `{"named":"n"}`, true},
		{"interface not handled", `{"any":{"x":1}}`, false},
		{"custom marshalling not handled", `{"custom":"x"}`, false},
		{"map of pointers", `{"ptrs":{"x":{"a":"1"},"y":null}}`, true},
		{"list of quantities", `{"quantities":["1Ki",null,"0.1"],"qPtr":"1000m"}`, true},
		{"int-or-string values", `{"ios":"x","iosPtr":7}`, true},
		{"times", `{"time":"2020-02-29T23:59:59-08:00","timePtr":"2020-02-29T23:59:59Z"}`, true},
		{"duration", `{"dur":"90m"}`, true},
		{"bad duration fails", `{"dur":"soon"}`, false},
		{"raw", `{"raw":{"a":[1.0,2.5]},"rawPtr":[]}`, true},
		{"raw null pointer", `{"rawPtr":null}`, true},
		{"lists of lists", `{"lists":[["a"],null,[]]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := decode(t, tt.in)
			out := map[string]any{}
			handled := n.fillStruct(out, in, 0, false)
			assert.Equal(t, tt.handled, handled, "handled")
			want, err := convertShapes(in)
			if !handled {
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, out)
		})
	}
}
