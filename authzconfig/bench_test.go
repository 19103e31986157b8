package authzconfig

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// BenchmarkDecodeValidateKEPSample decodes and validates the corrected KEP
// sample; the side-by-side comparison with kube-apiserver is in conformance/.
func BenchmarkDecodeValidateKEPSample(b *testing.B) {
	data, err := os.ReadFile("testdata/kep-sample.yaml")
	require.NoError(b, err)
	compiler, err := matchcond.NewAuthorizationCompiler()
	require.NoError(b, err)
	opts := ValidateOptions{Stat: fakeStat, Compiler: compiler}
	b.ReportAllocs()
	for b.Loop() {
		cfg, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		if errs := Validate(cfg, opts); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkDecodeKEPSample(b *testing.B) {
	data, err := os.ReadFile("testdata/kep-sample.yaml")
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
