package typednormal

import (
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// filler fills the Go types of the scheme with random values, the special
// types with values of the forms they hold.
func filler(seed int64) *randfill.Filler {
	quantities := []string{"0", "1", "100m", "1.5Gi", "1e3", "250Mi", "2k", "0.5", "-3", "1E9", "12345678901234567890"}
	durations := []time.Duration{0, time.Second, 90 * time.Minute, 1500 * time.Millisecond}
	return randfill.New().RandSource(rand.NewSource(seed)).NilChance(0.2).NumElements(0, 2).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = resource.MustParse(quantities[c.Intn(len(quantities))])
		},
		func(t *metav1.Time, c randfill.Continue) {
			if c.Intn(5) == 0 {
				*t = metav1.Time{}
				return
			}
			*t = metav1.Unix(c.Int63n(4e9), 0)
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(time.Unix(c.Int63n(4e9), c.Int63n(1e9)))
		},
		func(d *metav1.Duration, c randfill.Continue) {
			*d = metav1.Duration{Duration: durations[c.Intn(len(durations))]}
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31() - c.Int31())
			} else {
				*v = intstr.FromString(c.String(8))
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			raws := []string{`{"a":1,"b":[1.5,2.0,"x",null,true]}`, `"s"`, `3`, `[]`}
			if c.Intn(4) > 0 {
				r.Raw = []byte(raws[c.Intn(len(raws))])
			}
		},
		func(f *metav1.FieldsV1, c randfill.Continue) {
			if c.Bool() {
				f.SetRawBytes([]byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`))
			}
		},
		func(u *uint64, c randfill.Continue) { *u = uint64(c.Int63()) },
		func(u *uint, c randfill.Continue) { *u = uint(c.Int63()) },
		func(f *float64, c randfill.Continue) { *f = float64(c.Intn(1000)) / 8 },
		func(f *float32, c randfill.Continue) { *f = float32(c.Intn(1000)) / 8 },
	)
}

// TestNormalizeRandomObjects fills the Go type of every kind of the scheme
// with random values a few times, converts each to unstructured content
// (every field of every kind present in some) and checks the fast paths
// against the exact ones on it, and on it with one value perturbed.
func TestNormalizeRandomObjects(t *testing.T) {
	w := newWorld(t)
	rounds := 2
	if testing.Short() {
		rounds = 1
	}
	f := filler(1)
	handled, total := 0, 0
	for _, gvk := range w.kinds {
		for i := range rounds {
			typed, err := w.scheme.New(gvk)
			if err != nil {
				t.Fatal(err)
			}
			f.Fill(typed)
			typed.GetObjectKind().SetGroupVersionKind(gvk)
			obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
			if err != nil {
				continue
			}
			total++
			if w.agree(t, gvk, obj) {
				handled++
			}
			w.agreeDecoded(t, gvk, obj)
			perturbed := deepCopy(obj).(map[string]any)
			perturb(perturbed, uint32(i*2654435761+len(gvk.Kind)))
			w.agree(t, gvk, perturbed)
			w.agreeDecoded(t, gvk, perturbed)
		}
	}
	t.Logf("%d of %d random objects handled", handled, total)
	assert.Greater(t, handled, total*9/10, "most random objects are handled")
}
