package conformance

import (
	"testing"

	"k8s.io/apiserver/pkg/cel/environment"

	gcel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// BenchmarkCELBaseEnvironment builds the base environment of stored
// expressions from scratch, as the first build in a process does:
// kube-apiserver's with its cache of environments disabled, and gatehouse's.
func BenchmarkCELBaseEnvironment(b *testing.B) {
	b.Run("impl=kube-apiserver", func(b *testing.B) {
		environment.DisableBaseEnvSetCachingForTests()
		b.ReportAllocs()
		for b.Loop() {
			environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).StoredExpressionsEnv()
		}
	})
	b.Run("impl=gatehouse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := gcel.NewEnv(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
