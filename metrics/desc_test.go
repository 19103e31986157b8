package metrics

import (
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

func TestAllDescriptorsAreWellFormed(t *testing.T) {
	all := All()
	require.Len(t, all, 34)
	assert.True(t, slices.IsSortedFunc(all, func(a, b *Desc) int {
		if a.Name() < b.Name() {
			return -1
		}
		return 1
	}), "All is ordered by name")
	seen := map[string]bool{}
	for _, d := range all {
		t.Run(d.Name(), func(t *testing.T) {
			assert.False(t, seen[d.Name()], "duplicate name")
			seen[d.Name()] = true
			assert.Regexp(t, metricName, d.Name())
			assert.NotEmpty(t, d.Help())
			assert.Contains(t, []StabilityLevel{Alpha, Beta, Stable}, d.Stability())
			for _, l := range d.Labels() {
				assert.Regexp(t, labelName, l)
				assert.NotEqual(t, "le", l, "le is reserved for histogram buckets")
			}
			switch d.Kind() {
			case Counter:
				// kube-apiserver's two admission webhook counters are
				// named without the suffix.
				if d != AdmissionWebhookRejections && d != AdmissionWebhookFailOpen {
					assert.Regexp(t, `_total$`, d.Name())
				}
				assert.Nil(t, d.Buckets())
			case Gauge:
				assert.Nil(t, d.Buckets())
			case Histogram:
				assert.NotEmpty(t, d.Buckets())
				assert.True(t, slices.IsSorted(d.Buckets()), "buckets ascend")
				assert.Equal(t, len(d.Buckets()), len(slices.Compact(d.Buckets())), "buckets are distinct")
			default:
				t.Fatalf("unknown kind %v", d.Kind())
			}
			if n, ok := d.InfoGroup(); ok {
				assert.Equal(t, Gauge, d.Kind())
				assert.Less(t, n, d.NumLabels())
			}
		})
	}
}

func TestDescAccessorsReturnCopies(t *testing.T) {
	labels := AuthorizationDecisions.Labels()
	labels[0] = "changed"
	assert.Equal(t, []string{"type", "name", "decision"}, AuthorizationDecisions.Labels())
	buckets := AuthorizationWebhookDuration.Buckets()
	buckets[0] = 42
	assert.Equal(t, 0.005, AuthorizationWebhookDuration.Buckets()[0])
}

func TestExponentialBucketsMatchPrometheus(t *testing.T) {
	// Prometheus multiplies repeatedly; 0.001*2^k written as a literal can
	// differ in the last bit, which would change the "le" label text.
	got := AuthorizationDuration.Buckets()
	require.Len(t, got, 15)
	assert.Equal(t, 0.001, got[0])
	assert.Equal(t, "16.384", formatFloat(got[14]))
	for i := 1; i < len(got); i++ {
		assert.Equal(t, got[i-1]*2, got[i])
	}
}

func TestKindString(t *testing.T) {
	assert.Equal(t, "counter", Counter.String())
	assert.Equal(t, "gauge", Gauge.String())
	assert.Equal(t, "histogram", Histogram.String())
	assert.Equal(t, "untyped", Kind(0).String())
}

func TestHelpTextCarriesStability(t *testing.T) {
	assert.Equal(t, "[BETA] CEL compilation time in seconds.", CELCompilationDuration.HelpText())
	assert.Equal(t, "[ALPHA] Round-trips to authorization webhooks.", AuthorizationWebhookEvaluations.HelpText())
}
