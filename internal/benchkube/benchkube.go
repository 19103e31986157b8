// Package benchkube runs a benchmark at several Kubernetes versions, as
// kube=<version> sub-benchmarks, so that benchstat can show that the
// version an engine answers as costs nothing on its request path:
//
//	go test -run '^$' -bench . -benchmem -count 6 ./validatingpolicy > bench.txt
//	benchstat -col /kube bench.txt
//
// It is imported by tests only.
package benchkube

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// Versions are the versions the benchmarks run at: the one before the
// newest release and the newest (the default), between which engines
// differ (CEL libraries, texts, gates).
var Versions = []string{"1.36", "1.37"}

// Run runs f as one sub-benchmark kube=<version> per version of Versions,
// with that version's Target (default gates).
func Run(b *testing.B, f func(b *testing.B, t kube.Target)) {
	b.Helper()
	for _, v := range Versions {
		t, err := kube.ParseTarget(v)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("kube="+v, func(b *testing.B) { f(b, t) })
	}
}
