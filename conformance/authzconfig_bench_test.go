package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"k8s.io/apiserver/pkg/apis/apiserver/load"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// kepSample reads the corrected KEP-3221 sample with its kubeconfig path
// pointing at a real file.
func kepSample(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("..", "authzconfig", "testdata", "kep-sample.yaml"))
	require.NoError(b, err)
	kc := filepath.Join(b.TempDir(), "kube-system-authz-webhook.yaml")
	require.NoError(b, os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\n"), 0o600))
	return []byte(strings.ReplaceAll(string(data), "/kube-system-authz-webhook.yaml", kc))
}

// BenchmarkAuthzConfigDecodeValidateKEPSample decodes and validates the
// corrected KEP sample, match conditions included, with kube-apiserver's
// load and validation packages and with authzconfig. Each side keeps its
// CEL compiler across iterations, as a server does.
func BenchmarkAuthzConfigDecodeValidateKEPSample(b *testing.B) {
	data := kepSample(b)
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		compiler := authorizationcel.NewDefaultCompiler()
		known, repeatable := kubeAPIServerKnownTypes()
		b.ReportAllocs()
		for b.Loop() {
			cfg, err := load.LoadFromData(data)
			if err != nil {
				b.Fatal(err)
			}
			if errs := validation.ValidateAuthorizationConfiguration(compiler, nil, cfg, known, repeatable); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		compiler, err := matchcond.NewAuthorizationCompiler()
		require.NoError(b, err)
		opts := authzconfig.ValidateOptions{Compiler: compiler}
		b.ReportAllocs()
		for b.Loop() {
			cfg, err := authzconfig.Decode(data)
			if err != nil {
				b.Fatal(err)
			}
			if errs := authzconfig.Validate(cfg, opts); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

// BenchmarkAuthzConfigDecodeKEPSample compares decoding alone.
func BenchmarkAuthzConfigDecodeKEPSample(b *testing.B) {
	data := kepSample(b)
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := load.LoadFromData(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := authzconfig.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
