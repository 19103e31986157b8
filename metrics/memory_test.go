package metrics

import (
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckSample(t *testing.T) {
	tests := []struct {
		name    string
		desc    *Desc
		kind    Kind
		value   float64
		labels  []string
		wantErr string
	}{
		{"fits", AuthorizationDecisions, Counter, 1, []string{"RBAC", "rbac", "allowed"}, ""},
		{"zero increment", AuthorizationDecisions, Counter, 0, []string{"RBAC", "rbac", "allowed"}, ""},
		{"no labels", CELEvaluationDuration, Histogram, 0.1, nil, ""},
		{"nil desc", nil, Counter, 1, nil, "metrics: counter sample with a nil descriptor"},
		{"too few", AuthorizationDecisions, Counter, 1, []string{"RBAC"},
			`metrics: apiserver_authorization_decisions_total takes 3 label values (type, name, decision), got 1: ["RBAC"]`},
		{"too many", CELEvaluationDuration, Histogram, 1, []string{"x"},
			`metrics: apiserver_cel_evaluation_duration_seconds takes 0 label values (), got 1: ["x"]`},
		{"wrong kind", AuthorizationDecisions, Histogram, 1, []string{"a", "b", "c"},
			"metrics: apiserver_authorization_decisions_total is a counter, not a histogram"},
		{"negative counter", AuthorizationDecisions, Counter, -1, []string{"a", "b", "c"},
			"metrics: apiserver_authorization_decisions_total: counter increment -1 is not a non-negative number"},
		{"NaN counter", AuthorizationDecisions, Counter, math.NaN(), []string{"a", "b", "c"},
			"metrics: apiserver_authorization_decisions_total: counter increment NaN is not a non-negative number"},
		{"negative gauge is fine", AuthorizationConfigReloadTimestamp, Gauge, -1, []string{"success", ""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSample(tt.desc, tt.kind, tt.value, tt.labels)
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
		})
	}
}

func TestMemoryCountersAndGauges(t *testing.T) {
	m := NewMemory()
	m.Add(AuthorizationDecisions, 1, "RBAC", "rbac", "allowed")
	m.Add(AuthorizationDecisions, 2, "RBAC", "rbac", "allowed")
	m.Add(AuthorizationDecisions, 1, "RBAC", "rbac", "denied")
	m.Set(AuthorizationConfigReloadTimestamp, 10, "success", "h")
	m.Set(AuthorizationConfigReloadTimestamp, 7, "success", "h")

	assert.Equal(t, 3.0, m.Value(AuthorizationDecisions, "RBAC", "rbac", "allowed"))
	assert.Equal(t, 1.0, m.Value(AuthorizationDecisions, "RBAC", "rbac", "denied"))
	assert.Equal(t, 0.0, m.Value(AuthorizationDecisions, "Node", "node", "denied"))
	assert.Equal(t, 7.0, m.Value(AuthorizationConfigReloadTimestamp, "success", "h"))
	assert.Equal(t, [][]string{{"RBAC", "rbac", "allowed"}, {"RBAC", "rbac", "denied"}}, m.Series(AuthorizationDecisions))
	assert.Empty(t, m.Errors())
}

func TestMemoryHistogramBuckets(t *testing.T) {
	m := NewMemory()
	d := AuthorizationMatchConditionDuration // 0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25
	for _, v := range []float64{0.0005, 0.001, 0.003, 0.25, 0.3, math.Inf(1)} {
		m.Observe(d, v, "Webhook", "w")
	}
	h := m.HistogramOf(d, "Webhook", "w")
	assert.Equal(t, uint64(6), h.Count)
	assert.Equal(t, math.Inf(1), h.Sum)
	// A value equal to a bound falls in that bucket ("le").
	assert.Equal(t, []uint64{2, 3, 3, 3, 3, 3, 4}, h.Cumulative)
	assert.Equal(t, HistogramValue{}, m.HistogramOf(d, "Webhook", "other"))
}

func TestMemoryHistogramNaNGoesToInf(t *testing.T) {
	m := NewMemory()
	m.Observe(CELEvaluationDuration, math.NaN())
	h := m.HistogramOf(CELEvaluationDuration)
	assert.Equal(t, uint64(1), h.Count)
	assert.Equal(t, uint64(0), h.Cumulative[len(h.Cumulative)-1])
}

func TestMemoryDropsMisuseWithoutPanicking(t *testing.T) {
	m := NewMemory()
	assert.NotPanics(t, func() {
		m.Add(AuthorizationDecisions, 1, "only-one")
		m.Add(nil, 1)
		m.Observe(AuthorizationDecisions, 1, "a", "b", "c")
		m.Add(AuthorizationDecisions, -5, "a", "b", "c")
		m.Set(CELEvaluationDuration, 1)
	})
	assert.Len(t, m.Errors(), 5)
	assert.Empty(t, m.Text(), "nothing was recorded")
	m.Reset()
	assert.Empty(t, m.Errors())
}

func TestMemoryInfoGaugeKeepsOnlyLatest(t *testing.T) {
	m := NewMemory()
	m.Set(AuthorizationConfigInfo, 1, "sha256:id", "sha256:a")
	m.Set(AuthorizationConfigInfo, 1, "sha256:id", "sha256:b")
	assert.Equal(t, [][]string{{"sha256:id", "sha256:b"}}, m.Series(AuthorizationConfigInfo))

	// The manifest info metric keeps one series per plugin.
	m.Set(ManifestAdmissionConfigInfo, 1, "MutatingAdmissionPolicy", "id", "h1")
	m.Set(ManifestAdmissionConfigInfo, 1, "ValidatingAdmissionPolicy", "id", "h2")
	m.Set(ManifestAdmissionConfigInfo, 1, "MutatingAdmissionPolicy", "id", "h3")
	assert.Equal(t, [][]string{
		{"MutatingAdmissionPolicy", "id", "h3"},
		{"ValidatingAdmissionPolicy", "id", "h2"},
	}, m.Series(ManifestAdmissionConfigInfo))
}

func TestMemoryText(t *testing.T) {
	m := NewMemory()
	m.Add(AuthorizationDecisions, 1, "Webhook", "z", "denied")
	m.Add(AuthorizationDecisions, 1, "RBAC", "rbac", "allowed")
	m.Observe(AuthorizationWebhookDuration, 0.02, "w", "success")
	m.Set(AuthorizationConfigInfo, 1, "", `we"ird\`+"\n")

	want := `# HELP apiserver_authorization_config_controller_last_config_info [ALPHA] Information about the last applied authorization configuration with hash as label, split by apiserver identity.
# TYPE apiserver_authorization_config_controller_last_config_info gauge
apiserver_authorization_config_controller_last_config_info{apiserver_id_hash="",hash="we\"ird\\\n"} 1
# HELP apiserver_authorization_decisions_total [ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.
# TYPE apiserver_authorization_decisions_total counter
apiserver_authorization_decisions_total{decision="allowed",name="rbac",type="RBAC"} 1
apiserver_authorization_decisions_total{decision="denied",name="z",type="Webhook"} 1
# HELP apiserver_authorization_webhook_duration_seconds [ALPHA] Request latency in seconds.
# TYPE apiserver_authorization_webhook_duration_seconds histogram
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="0.005"} 0
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="0.01"} 0
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="0.025"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="0.05"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="0.1"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="0.25"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="0.5"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="1"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="2.5"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="5"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="10"} 1
apiserver_authorization_webhook_duration_seconds_bucket{name="w",result="success",le="+Inf"} 1
apiserver_authorization_webhook_duration_seconds_sum{name="w",result="success"} 0.02
apiserver_authorization_webhook_duration_seconds_count{name="w",result="success"} 1
`
	assert.Equal(t, want, m.Text())
	decisions := m.Text("apiserver_authorization_decisions_total")
	assert.True(t, strings.HasPrefix(decisions, "# HELP apiserver_authorization_decisions_total "))
	assert.Equal(t, 4, strings.Count(decisions, "\n"), "help, type and two series")
	assert.Empty(t, m.Text("no_such_metric"))
}

func TestMemoryConcurrentUse(t *testing.T) {
	m := NewMemory()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				m.Add(AuthorizationWebhookEvaluations, 1, "w", "success")
				m.Observe(AuthorizationWebhookDuration, float64(i)/1000, "w", "success")
				m.Set(AuthorizationConfigInfo, 1, "id", string(rune('a'+g)))
				_ = m.Text()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 4000.0, m.Value(AuthorizationWebhookEvaluations, "w", "success"))
	assert.Equal(t, uint64(4000), m.HistogramOf(AuthorizationWebhookDuration, "w", "success").Count)
	assert.Len(t, m.Series(AuthorizationConfigInfo), 1)
}

func TestSeries(t *testing.T) {
	m := NewMemory()
	s := NewSeries(m, AuthorizationWebhookFailOpen, "w", "timeout")
	s.Add(1)
	s.Add(1)
	assert.Equal(t, 2.0, m.Value(AuthorizationWebhookFailOpen, "w", "timeout"))

	g := NewSeries(m, AuthorizationConfigReloadTimestamp, "success", "")
	g.Set(5)
	assert.Equal(t, 5.0, m.Value(AuthorizationConfigReloadTimestamp, "success", ""))

	h := NewSeries(m, CELCompilationDuration)
	h.Observe(0.5)
	assert.Equal(t, uint64(1), m.HistogramOf(CELCompilationDuration).Count)

	assert.NotPanics(t, func() {
		var zero Series
		zero.Add(1)
		zero.Set(1)
		zero.Observe(1)
		NewSeries(nil, CELCompilationDuration).Observe(1)
	})
}

func TestSeriesRecordsWithoutAllocating(t *testing.T) {
	s := NewSeries(Noop{}, AuthorizationDecisions, "RBAC", "rbac", "allowed")
	allocs := testing.AllocsPerRun(100, func() { s.Add(1) })
	require.Zero(t, allocs)
}

func TestOrNoop(t *testing.T) {
	assert.Equal(t, Noop{}, OrNoop(nil))
	m := NewMemory()
	assert.Same(t, m, OrNoop(m))
}

func TestFormatFloat(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 1: "1", -1: "-1", 0.0000005: "5e-07", 2.5: "2.5", 1e6: "1e+06",
		1234567: "1.234567e+06", math.Inf(1): "+Inf", math.Inf(-1): "-Inf",
	} {
		assert.Equal(t, want, formatFloat(v))
	}
	assert.Equal(t, "NaN", formatFloat(math.NaN()))
}

func FuzzMemoryText(f *testing.F) {
	f.Add("a", "b", 1.5)
	f.Add("\n\"\\", "", -3.0)
	f.Fuzz(func(t *testing.T, a, b string, v float64) {
		m := NewMemory()
		m.Add(AuthorizationWebhookEvaluations, v, a, b)
		m.Observe(AuthorizationWebhookDuration, v, a, b)
		m.Set(AuthorizationConfigInfo, v, a, b)
		text := m.Text()
		// Escaping keeps each sample on one line: 3 families of help+type,
		// one counter line if v is a valid increment, 1 gauge line, and
		// 11 buckets + Inf + sum + count.
		lines := strings.Count(text, "\n")
		want := 6 + 1 + 14
		if CheckSample(AuthorizationWebhookEvaluations, Counter, v, []string{a, b}) == nil {
			want++
		} else {
			want -= 2
		}
		if lines != want {
			t.Fatalf("got %d lines, want %d:\n%s", lines, want, text)
		}
	})
}
