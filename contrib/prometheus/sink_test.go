package prometheus

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// tee records every sample into several sinks, so that they see the same
// workload, wall-clock durations included.
type tee []metrics.Sink

func (t tee) Add(d *metrics.Desc, v float64, l ...string) {
	for _, s := range t {
		s.Add(d, v, l...)
	}
}

func (t tee) Set(d *metrics.Desc, v float64, l ...string) {
	for _, s := range t {
		s.Set(d, v, l...)
	}
}

func (t tee) Observe(d *metrics.Desc, v float64, l ...string) {
	for _, s := range t {
		s.Observe(d, v, l...)
	}
}

// exposition is the text client_golang's registry exposes, as
// kube-apiserver's /metrics writes it.
func exposition(t *testing.T, g prom.Gatherer) string {
	t.Helper()
	families, err := g.Gather()
	require.NoError(t, err)
	var b strings.Builder
	for _, mf := range families {
		_, err := expfmt.MetricFamilyToText(&b, mf)
		require.NoError(t, err)
	}
	return b.String()
}

func newSink(t *testing.T, opts Options) (*Sink, *prom.Registry) {
	t.Helper()
	reg := prom.NewPedanticRegistry()
	s, err := New(reg, opts)
	require.NoError(t, err)
	return s, reg
}

func labelValuesFor(d *metrics.Desc, series int) []string {
	values := make([]string, d.NumLabels())
	for i := range values {
		values[i] = fmt.Sprintf("v%d-%d", i, series%3)
	}
	if len(values) > 0 {
		values[0] = fmt.Sprintf("s%d", series)
	}
	return values
}

// syntheticWorkload records into s, for every descriptor, several series
// with values on, between and beyond the bucket bounds, the info gauges
// replaced several times. The values are dyadic fractions, so sums do not
// depend on the order in which goroutines add them.
func syntheticWorkload(s metrics.Sink) {
	for _, d := range metrics.All() {
		for series := range 4 {
			lv := labelValuesFor(d, series)
			switch d.Kind() {
			case metrics.Counter:
				s.Add(d, 1, lv...)
				s.Add(d, 0.5, lv...)
			case metrics.Gauge:
				if _, info := d.InfoGroup(); info {
					continue
				}
				// The last writer wins: every worker writes the same value.
				s.Set(d, float64(series)*0.25-1, lv...)
			case metrics.Histogram:
				for _, b := range d.Buckets() {
					s.Observe(d, b, lv...)
				}
				s.Observe(d, 0, lv...)
				s.Observe(d, 1024, lv...)
				s.Observe(d, math.Inf(1), lv...)
			}
		}
	}
}

func TestExpositionEqualsMemoryForSyntheticWorkload(t *testing.T) {
	sink, reg := newSink(t, Options{})
	mem := metrics.NewMemory()
	both := tee{mem, sink}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { syntheticWorkload(both) })
	}
	wg.Wait()
	// Info gauges: a Set replaces its group's series.
	both.Set(metrics.AuthorizationConfigInfo, 1, "id-a", "sha256:1")
	both.Set(metrics.AuthorizationConfigInfo, 1, "id-b", "sha256:1")
	both.Set(metrics.AuthorizationConfigInfo, 1, "id-a", "sha256:2")
	both.Set(metrics.AuthorizationConfigInfo, 1, "id-a", "sha256:2")
	both.Set(metrics.ManifestAdmissionConfigInfo, 1, "ValidatingAdmissionPolicy", "id", "sha256:1")
	both.Set(metrics.ManifestAdmissionConfigInfo, 1, "MutatingAdmissionPolicy", "id", "sha256:1")
	both.Set(metrics.ManifestAdmissionConfigInfo, 1, "ValidatingAdmissionPolicy", "id-2", "sha256:3")

	require.Empty(t, mem.Errors())
	assert.Zero(t, sink.Dropped())
	want := mem.Text()
	for _, d := range metrics.All() {
		require.Contains(t, want, "# TYPE "+d.Name()+" ", "the workload records every metric")
	}
	assert.Equal(t, want, exposition(t, reg))
	// One series in all for the authorization configuration, one per plugin
	// for the admission manifests.
	assert.Equal(t, 1, strings.Count(want, "apiserver_authorization_config_controller_last_config_info{"))
	assert.Equal(t, 2, strings.Count(want, "apiserver_manifest_admission_config_controller_last_config_info{"))
}

// TestExpositionEqualsMemoryForAuthorizerWorkload runs a reloading chain
// with a webhook behind KEP-3221's match conditions, records through both
// sinks, and compares what they expose.
func TestExpositionEqualsMemoryForAuthorizerWorkload(t *testing.T) {
	sink, reg := newSink(t, Options{})
	mem := metrics.NewMemory()
	srv, err := authorizertest.NewServer(authorizertest.Options{
		Decide: authorizertest.AllowIf(func(spec authorizationv1.SubjectAccessReviewSpec) bool { return spec.User == "alice" }),
	})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()
	kc := filepath.Join(dir, "webhook.kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kc))
	path := filepath.Join(dir, "authz.yaml")
	require.NoError(t, os.WriteFile(path, []byte(authzConfig(kc, "Deny")), 0o600))
	r, err := authorizer.NewReloader(authorizer.ReloaderOptions{
		Path: path, APIServerID: "test", Options: authorizer.Options{Metrics: tee{mem, sink}},
	})
	require.NoError(t, err)

	ctx := context.Background()
	ask := func() {
		for _, u := range []string{"alice", "bob", "carol"} {
			for _, ns := range []string{"kube-system", "default"} {
				_, _, _ = r.Authorize(ctx, &authorizer.Attributes{User: &authorizer.User{Name: u, Groups: []string{"system:authenticated"}},
					Verb: "delete", ResourceRequest: true, Namespace: ns, APIVersion: "v1", Resource: "secrets", Name: "s"})
			}
		}
	}
	ask()
	ask() // cached
	require.NoError(t, os.WriteFile(path, []byte(authzConfig(kc, "NoOpinion")), 0o600))
	ev := r.Check(ctx)
	require.NotNil(t, ev)
	require.Equal(t, "success", ev.Status, "%v", ev.Err)
	require.NoError(t, os.WriteFile(path, []byte("not: [valid"), 0o600))
	require.Equal(t, "failure", r.Check(ctx).Status)
	srv.InjectAlways(authorizertest.Fault{Status: 400})
	ask()

	require.Empty(t, mem.Errors())
	assert.Zero(t, sink.Dropped())
	want := mem.Text()
	for _, name := range []string{"apiserver_authorization_decisions_total", "apiserver_authorization_webhook_evaluations_total",
		"apiserver_authorization_webhook_duration_seconds", "apiserver_authorization_match_condition_exclusions_total",
		"apiserver_authorization_config_controller_automatic_reloads_total", "apiserver_authorization_config_controller_last_config_info"} {
		assert.Contains(t, want, "# TYPE "+name+" ")
	}
	assert.Equal(t, want, exposition(t, reg))
}

func authzConfig(kubeconfig, failurePolicy string) string {
	return `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: protect-kube-system
  webhook:
    timeout: 3s
    authorizedTTL: 5m
    unauthorizedTTL: 30s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: ` + failurePolicy + `
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ` + kubeconfig + `
    matchConditions:
    - expression: has(request.resourceAttributes)
    - expression: request.resourceAttributes.namespace == 'kube-system'
- type: AlwaysAllow
  name: alwaysallow
`
}

func TestRegistersEveryDescriptorAsKubeAPIServer(t *testing.T) {
	sink, reg := newSink(t, Options{})
	for _, d := range metrics.All() {
		lv := labelValuesFor(d, 0)
		switch d.Kind() {
		case metrics.Counter:
			sink.Add(d, 0, lv...)
		case metrics.Gauge:
			sink.Set(d, 0, lv...)
		case metrics.Histogram:
			sink.Observe(d, 0, lv...)
		}
	}
	families, err := reg.Gather()
	require.NoError(t, err)
	require.Len(t, families, len(metrics.All()))
	byName := map[string]*metrics.Desc{}
	for _, d := range metrics.All() {
		byName[d.Name()] = d
	}
	for _, mf := range families {
		d := byName[mf.GetName()]
		require.NotNil(t, d, mf.GetName())
		assert.Equal(t, d.HelpText(), mf.GetHelp())
		assert.True(t, strings.HasPrefix(mf.GetHelp(), "["+string(d.Stability())+"] "))
		assert.Equal(t, d.Kind().String(), strings.ToLower(mf.GetType().String()))
		var names []string
		for _, lp := range mf.GetMetric()[0].GetLabel() {
			names = append(names, lp.GetName())
		}
		assert.ElementsMatch(t, d.Labels(), names, d.Name())
		if h := mf.GetMetric()[0].GetHistogram(); h != nil {
			var bounds []float64
			for _, b := range h.GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
			}
			assert.Equal(t, d.Buckets(), bounds, d.Name())
		}
	}
}

func TestMisuseIsDroppedNotPanicked(t *testing.T) {
	var reasons []string
	var mu sync.Mutex
	sink, reg := newSink(t, Options{
		Descriptors: []*metrics.Desc{metrics.AuthorizationDecisions, metrics.AuthorizationConfigInfo, metrics.CELEvaluationDuration},
		OnDrop: func(err error) {
			mu.Lock()
			defer mu.Unlock()
			reasons = append(reasons, err.Error())
		},
	})
	tests := []struct {
		name   string
		record func()
		reason string
	}{
		{"too few labels", func() { sink.Add(metrics.AuthorizationDecisions, 1, "RBAC", "rbac") }, "takes 3 label values"},
		{"too many labels", func() { sink.Add(metrics.AuthorizationDecisions, 1, "a", "b", "c", "d", "e") }, "takes 3 label values"},
		{"negative counter", func() { sink.Add(metrics.AuthorizationDecisions, -1, "a", "b", "c") }, "not a non-negative number"},
		{"NaN counter", func() { sink.Add(metrics.AuthorizationDecisions, math.NaN(), "a", "b", "c") }, "not a non-negative number"},
		{"wrong kind", func() { sink.Observe(metrics.AuthorizationDecisions, 1, "a", "b", "c") }, "is a counter, not a histogram"},
		{"nil descriptor", func() { sink.Set(nil, 1) }, "nil descriptor"},
		{"not registered", func() { sink.Add(metrics.AuthorizationAttempts, 1, "allowed") }, "authorization_attempts_total is not registered"},
		{"not UTF-8", func() { sink.Add(metrics.AuthorizationDecisions, 1, "a", "\xff", "c") }, "not valid UTF-8"},
		{"info gauge not UTF-8", func() { sink.Set(metrics.AuthorizationConfigInfo, 1, "id", "\xfe") }, "not valid UTF-8"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotPanics(t, tt.record)
			assert.Equal(t, uint64(i+1), sink.Dropped())
			require.Len(t, reasons, i+1)
			assert.Contains(t, reasons[i], tt.reason)
		})
	}
	assert.Empty(t, exposition(t, reg), "nothing was recorded")
}

func TestRegistrationConflictUnregistersAndFails(t *testing.T) {
	reg := prom.NewRegistry()
	reg.MustRegister(prom.NewCounter(prom.CounterOpts{Name: metrics.CELCompilationDuration.Name(), Help: "someone else's"}))
	_, err := New(reg, Options{})
	require.ErrorContains(t, err, "registering apiserver_cel_compilation_duration_seconds")
	// What New registered before the conflict is gone: the other metrics
	// can still be registered.
	_, err = New(reg, Options{Descriptors: []*metrics.Desc{metrics.AdmissionControllerDuration, metrics.AuthorizationDecisions}})
	require.NoError(t, err)

	_, err = New(nil, Options{})
	require.Error(t, err)
	_, err = New(prom.NewRegistry(), Options{Descriptors: []*metrics.Desc{nil}})
	require.Error(t, err)
}

func TestDuplicateDescriptorsRegisterOnce(t *testing.T) {
	sink, reg := newSink(t, Options{Descriptors: []*metrics.Desc{metrics.AuthorizationDecisions, metrics.AuthorizationDecisions}})
	sink.Add(metrics.AuthorizationDecisions, 2, "RBAC", "rbac", "allowed")
	assert.Contains(t, exposition(t, reg), `apiserver_authorization_decisions_total{decision="allowed",name="rbac",type="RBAC"} 2`)
}

func TestConcurrentNewSeriesAreAllKept(t *testing.T) {
	sink, reg := newSink(t, Options{Descriptors: []*metrics.Desc{metrics.AuthorizationWebhookEvaluations}})
	mem := metrics.NewMemory()
	both := tee{sink, mem}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				both.Add(metrics.AuthorizationWebhookEvaluations, 1, fmt.Sprintf("w%d", (i*7+w)%50), "success")
			}
		})
	}
	wg.Wait()
	assert.Equal(t, mem.Text(), exposition(t, reg))
	assert.Len(t, *sink.families.get(metrics.AuthorizationWebhookEvaluations).children.Load(), 50)
}
