package metrics

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/admission"
	admissionmetrics "k8s.io/apiserver/pkg/admission/metrics"
	manifestmetrics "k8s.io/apiserver/pkg/admission/plugin/manifest/metrics"
	mapmetrics "k8s.io/apiserver/pkg/admission/plugin/policy/mutating/metrics"
	vapmetrics "k8s.io/apiserver/pkg/admission/plugin/policy/validating/metrics"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authzcel "k8s.io/apiserver/pkg/authorization/cel"
	authzmetrics "k8s.io/apiserver/pkg/authorization/metrics"
	celmetrics "k8s.io/apiserver/pkg/cel/metrics"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
	authzconfigmetrics "k8s.io/apiserver/pkg/server/options/authorizationconfig/metrics"
	_ "k8s.io/apiserver/pkg/util/webhook" // registers the x509 counters
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// metricScenario records the same samples into kube-apiserver's metrics and
// into a gatehouse sink.
type metricScenario struct {
	desc *metrics.Desc
	kube func()
	ours func(s metrics.Sink)
	// copyValue: the kube side sets the value from the wall clock, so the
	// gatehouse side copies it from what kube-apiserver exposes.
	copyValue bool
}

func metricScenarios(t *testing.T) []metricScenario {
	ctx := context.Background()
	webhook := webhookmetrics.NewWebhookMetrics()
	matcher := authzcel.NewMatcherMetrics()
	delegated := authorizerfactory.NewDelegatingAuthorizerMetrics()
	authzmetrics.RegisterMetrics()
	authzconfigmetrics.RegisterMetrics()
	manifestmetrics.RegisterMetrics()
	attr := admission.NewAttributesRecord(nil, nil, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "ns", "p",
		schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "", admission.Create, nil, false, &user.DefaultInfo{Name: "u"})
	const id = "testAPIServerID"
	idHash := "sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37"
	configHash := sha256Label

	return []metricScenario{
		{desc: metrics.AuthorizationDecisions,
			kube: func() {
				authzmetrics.RecordAuthorizationDecision("RBAC", "rbac", "allowed")
				authzmetrics.RecordAuthorizationDecision("Webhook", "w", "denied")
				authzmetrics.RecordAuthorizationDecision("Webhook", "w", "denied")
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.AuthorizationDecisions, 1, "RBAC", "rbac", "allowed")
				s.Add(metrics.AuthorizationDecisions, 2, "Webhook", "w", "denied")
			}},
		{desc: metrics.AuthorizationWebhookEvaluations,
			kube: func() {
				webhook.RecordWebhookEvaluation(ctx, "w", "success")
				webhook.RecordWebhookEvaluation(ctx, "w", "timeout")
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.AuthorizationWebhookEvaluations, 1, "w", "success")
				s.Add(metrics.AuthorizationWebhookEvaluations, 1, "w", "timeout")
			}},
		{desc: metrics.AuthorizationWebhookDuration,
			kube: func() {
				webhook.RecordWebhookDuration(ctx, "w", "success", 0.003)
				webhook.RecordWebhookDuration(ctx, "w", "success", 2.5)
				webhook.RecordWebhookDuration(ctx, "w", "error", 12)
			},
			ours: func(s metrics.Sink) {
				s.Observe(metrics.AuthorizationWebhookDuration, 0.003, "w", "success")
				s.Observe(metrics.AuthorizationWebhookDuration, 2.5, "w", "success")
				s.Observe(metrics.AuthorizationWebhookDuration, 12, "w", "error")
			}},
		{desc: metrics.AuthorizationWebhookFailOpen,
			kube: func() { webhook.RecordWebhookFailOpen(ctx, "w", "error") },
			ours: func(s metrics.Sink) { s.Add(metrics.AuthorizationWebhookFailOpen, 1, "w", "error") }},
		{desc: metrics.AuthorizationMatchConditionErrors,
			kube: func() { matcher.RecordAuthorizationMatchConditionEvaluationFailure(ctx, "Webhook", "w") },
			ours: func(s metrics.Sink) { s.Add(metrics.AuthorizationMatchConditionErrors, 1, "Webhook", "w") }},
		{desc: metrics.AuthorizationMatchConditionExclusions,
			kube: func() { matcher.RecordAuthorizationMatchConditionExclusion(ctx, "Webhook", "w") },
			ours: func(s metrics.Sink) { s.Add(metrics.AuthorizationMatchConditionExclusions, 1, "Webhook", "w") }},
		{desc: metrics.AuthorizationMatchConditionDuration,
			kube: func() { matcher.RecordAuthorizationMatchConditionEvaluation(ctx, "Webhook", "w", 7*time.Millisecond) },
			ours: func(s metrics.Sink) {
				s.Observe(metrics.AuthorizationMatchConditionDuration, (7 * time.Millisecond).Seconds(), "Webhook", "w")
			}},
		{desc: metrics.AuthorizationConfigReloads,
			kube: func() {
				authzconfigmetrics.RecordAuthorizationConfigAutomaticReloadFailure(id)
				authzconfigmetrics.RecordAuthorizationConfigAutomaticReloadSuccess(id, "config-a")
				authzconfigmetrics.RecordAuthorizationConfigAutomaticReloadSuccess("", "config-b")
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.AuthorizationConfigReloads, 1, "failure", idHash)
				s.Add(metrics.AuthorizationConfigReloads, 1, "success", idHash)
				s.Add(metrics.AuthorizationConfigReloads, 1, "success", "")
			}},
		{desc: metrics.AuthorizationConfigReloadTimestamp, copyValue: true},
		{desc: metrics.AuthorizationConfigInfo,
			kube: func() { authzconfigmetrics.RecordAuthorizationConfigLastConfigInfo(id, "config-c") },
			ours: func(s metrics.Sink) {
				s.Set(metrics.AuthorizationConfigInfo, 1, idHash, configHash("config-a"))
				s.Set(metrics.AuthorizationConfigInfo, 1, "", configHash("config-b"))
				s.Set(metrics.AuthorizationConfigInfo, 1, idHash, configHash("config-c"))
			}},
		{desc: metrics.DelegatedAuthzRequests,
			kube: func() { delegated.RecordRequestTotal(ctx, "201"); delegated.RecordRequestTotal(ctx, "<error>") },
			ours: func(s metrics.Sink) {
				s.Add(metrics.DelegatedAuthzRequests, 1, "201")
				s.Add(metrics.DelegatedAuthzRequests, 1, "<error>")
			}},
		{desc: metrics.DelegatedAuthzRequestDuration,
			kube: func() { delegated.RecordRequestLatency(ctx, "201", 0.7) },
			ours: func(s metrics.Sink) { s.Observe(metrics.DelegatedAuthzRequestDuration, 0.7, "201") }},
		{desc: metrics.AuthorizationAttempts, copyValue: true},
		{desc: metrics.AuthorizationDuration, copyValue: true},
		{desc: metrics.WebhookX509MissingSAN, kube: func() {}, ours: func(s metrics.Sink) { s.Add(metrics.WebhookX509MissingSAN, 0) }},
		{desc: metrics.WebhookX509InsecureSHA1, kube: func() {}, ours: func(s metrics.Sink) { s.Add(metrics.WebhookX509InsecureSHA1, 0) }},
		{desc: metrics.AdmissionMatchConditionErrors,
			kube: func() {
				admissionmetrics.Metrics.ObserveMatchConditionEvalError(ctx, "p", "policy", "validate", "CREATE")
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.AdmissionMatchConditionErrors, 1, "p", "policy", "validate", "CREATE")
			}},
		{desc: metrics.AdmissionMatchConditionExclusions,
			kube: func() {
				admissionmetrics.Metrics.ObserveMatchConditionExclusion(ctx, "w.static.k8s.io", "webhook", "admit", "UPDATE")
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.AdmissionMatchConditionExclusions, 1, "w.static.k8s.io", "webhook", "admit", "UPDATE")
			}},
		{desc: metrics.AdmissionMatchConditionDuration,
			kube: func() {
				admissionmetrics.Metrics.ObserveMatchConditionEvaluationTime(ctx, 300*time.Millisecond, "p", "policy", "validate", "CREATE")
			},
			ours: func(s metrics.Sink) {
				s.Observe(metrics.AdmissionMatchConditionDuration, (300 * time.Millisecond).Seconds(), "p", "policy", "validate", "CREATE")
			}},
		{desc: metrics.AdmissionControllerDuration,
			kube: func() {
				admissionmetrics.Metrics.ObserveAdmissionController(ctx, 20*time.Millisecond, false, attr, "admit", "MutatingAdmissionPolicy")
			},
			ours: func(s metrics.Sink) {
				s.Observe(metrics.AdmissionControllerDuration, (20 * time.Millisecond).Seconds(), "MutatingAdmissionPolicy", "admit", "CREATE", "false")
			}},
		{desc: metrics.AdmissionWebhookDuration,
			kube: func() {
				admissionmetrics.Metrics.ObserveWebhook(ctx, "w.example.com", 30*time.Millisecond, false, attr, "validating", 200)
				admissionmetrics.Metrics.ObserveWebhook(ctx, "m.example.com", 12*time.Second, true, attr, "admit", 700)
			},
			ours: func(s metrics.Sink) {
				s.Observe(metrics.AdmissionWebhookDuration, (30 * time.Millisecond).Seconds(), "w.example.com", "validating", "CREATE", "false")
				s.Observe(metrics.AdmissionWebhookDuration, (12 * time.Second).Seconds(), "m.example.com", "admit", "CREATE", "true")
			}},
		{desc: metrics.AdmissionWebhookRequests,
			ours: func(s metrics.Sink) {
				s.Add(metrics.AdmissionWebhookRequests, 1, "w.example.com", "validating", "CREATE", "200", "false")
				s.Add(metrics.AdmissionWebhookRequests, 1, "m.example.com", "admit", "CREATE", "600", "true")
			}},
		{desc: metrics.AdmissionWebhookRejections,
			kube: func() {
				admissionmetrics.Metrics.ObserveWebhookRejection(ctx, "w.example.com", "validating", "CREATE", admissionmetrics.WebhookRejectionNoError, 403)
				admissionmetrics.Metrics.ObserveWebhookRejection(ctx, "m.example.com", "admit", "UPDATE", admissionmetrics.WebhookRejectionAPIServerInternalError, 0)
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.AdmissionWebhookRejections, 1, "w.example.com", "validating", "CREATE", "no_error", "403")
				s.Add(metrics.AdmissionWebhookRejections, 1, "m.example.com", "admit", "UPDATE", "apiserver_internal_error", "0")
			}},
		{desc: metrics.AdmissionWebhookFailOpen,
			kube: func() { admissionmetrics.Metrics.ObserveWebhookFailOpen(ctx, "w.example.com", "validating") },
			ours: func(s metrics.Sink) { s.Add(metrics.AdmissionWebhookFailOpen, 1, "w.example.com", "validating") }},
		{desc: metrics.AdmissionStepDuration,
			kube: func() { admissionmetrics.Metrics.ObserveAdmissionStep(ctx, time.Second, true, attr, "validate") },
			ours: func(s metrics.Sink) {
				s.Observe(metrics.AdmissionStepDuration, time.Second.Seconds(), "validate", "CREATE", "true")
			}},
		{desc: metrics.MutatingAdmissionPolicyChecks,
			kube: func() {
				mapmetrics.Metrics.ObserveAdmission(ctx, 2*time.Millisecond, "p", "b", mapmetrics.MutationNoError)
				mapmetrics.Metrics.ObserveRejection(ctx, time.Microsecond, "p", "b", mapmetrics.MutatingOutOfBudget)
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.MutatingAdmissionPolicyChecks, 1, "p", "b", "no_error")
				s.Add(metrics.MutatingAdmissionPolicyChecks, 1, "p", "b", "out_of_budget")
			}},
		{desc: metrics.MutatingAdmissionPolicyCheckDuration,
			kube: func() {},
			ours: func(s metrics.Sink) {
				s.Observe(metrics.MutatingAdmissionPolicyCheckDuration, (2 * time.Millisecond).Seconds(), "p", "b", "no_error")
				s.Observe(metrics.MutatingAdmissionPolicyCheckDuration, time.Microsecond.Seconds(), "p", "b", "out_of_budget")
			}},
		{desc: metrics.ValidatingAdmissionPolicyChecks,
			kube: func() {
				vapmetrics.Metrics.ObserveAdmission(ctx, 2*time.Millisecond, "p", "b", vapmetrics.ValidationCompileError)
				vapmetrics.Metrics.ObserveRejection(ctx, time.Microsecond, "p", "b", vapmetrics.ValidationNoError)
				vapmetrics.Metrics.ObserveWarn(ctx, time.Microsecond, "p", "b", vapmetrics.ValidatingInvalidError)
				vapmetrics.Metrics.ObserveAudit(ctx, 3*time.Second, "p", "b", vapmetrics.ValidatingOutOfBudget)
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.ValidatingAdmissionPolicyChecks, 1, "p", "b", "compile_error", "allow")
				s.Add(metrics.ValidatingAdmissionPolicyChecks, 1, "p", "b", "no_error", "deny")
				s.Add(metrics.ValidatingAdmissionPolicyChecks, 1, "p", "b", "invalid_error", "warn")
				s.Add(metrics.ValidatingAdmissionPolicyChecks, 1, "p", "b", "out_of_budget", "audit")
			}},
		{desc: metrics.ValidatingAdmissionPolicyCheckDuration,
			kube: func() {},
			ours: func(s metrics.Sink) {
				s.Observe(metrics.ValidatingAdmissionPolicyCheckDuration, (2 * time.Millisecond).Seconds(), "p", "b", "compile_error", "allow")
				s.Observe(metrics.ValidatingAdmissionPolicyCheckDuration, time.Microsecond.Seconds(), "p", "b", "no_error", "deny")
				s.Observe(metrics.ValidatingAdmissionPolicyCheckDuration, time.Microsecond.Seconds(), "p", "b", "invalid_error", "warn")
				s.Observe(metrics.ValidatingAdmissionPolicyCheckDuration, (3 * time.Second).Seconds(), "p", "b", "out_of_budget", "audit")
			}},
		{desc: metrics.ManifestAdmissionConfigReloads,
			kube: func() {
				manifestmetrics.RecordAutomaticReloadFailure(manifestmetrics.MAPManifestType, id)
				manifestmetrics.RecordAutomaticReloadSuccess(manifestmetrics.VAPManifestType, id, "sha256:abc")
			},
			ours: func(s metrics.Sink) {
				s.Add(metrics.ManifestAdmissionConfigReloads, 1, "failure", "MutatingAdmissionPolicy", idHash)
				s.Add(metrics.ManifestAdmissionConfigReloads, 1, "success", "ValidatingAdmissionPolicy", idHash)
			}},
		{desc: metrics.ManifestAdmissionConfigReloadTimestamp, copyValue: true},
		{desc: metrics.ManifestAdmissionConfigInfo,
			kube: func() {
				manifestmetrics.RecordLastConfigInfo(manifestmetrics.MAPManifestType, id, "sha256:one")
				manifestmetrics.RecordLastConfigInfo(manifestmetrics.MAPManifestType, id, "sha256:two")
			},
			ours: func(s metrics.Sink) {
				s.Set(metrics.ManifestAdmissionConfigInfo, 1, "ValidatingAdmissionPolicy", idHash, "sha256:abc")
				s.Set(metrics.ManifestAdmissionConfigInfo, 1, "MutatingAdmissionPolicy", idHash, "sha256:one")
				s.Set(metrics.ManifestAdmissionConfigInfo, 1, "MutatingAdmissionPolicy", idHash, "sha256:two")
			}},
		{desc: metrics.CELCompilationDuration,
			kube: func() { celmetrics.Metrics.ObserveCompilation(40 * time.Millisecond) },
			ours: func(s metrics.Sink) { s.Observe(metrics.CELCompilationDuration, (40 * time.Millisecond).Seconds()) }},
		{desc: metrics.CELEvaluationDuration,
			kube: func() { celmetrics.Metrics.ObserveEvaluation(3 * time.Second) },
			ours: func(s metrics.Sink) { s.Observe(metrics.CELEvaluationDuration, (3 * time.Second).Seconds()) }},
	}
}

// TestMetricDescriptorsMatchKubeAPIServer compares every gatehouse descriptor
// with the metric kube-apiserver registers (name, help, stability, type,
// labels, buckets), then the text exposition of the same samples recorded
// through both.
func TestMetricDescriptorsMatchKubeAPIServer(t *testing.T) {
	scenarios := metricScenarios(t)
	covered := map[*metrics.Desc]bool{}
	for _, sc := range scenarios {
		covered[sc.desc] = true
		if sc.kube != nil {
			sc.kube()
		}
	}
	for _, d := range metrics.All() {
		assert.True(t, covered[d], "no differential scenario for %s", d.Name())
	}
	authorizeThroughFilter(t)

	families, err := legacyregistry.DefaultGatherer.Gather()
	require.NoError(t, err)
	byName := map[string]*dto.MetricFamily{}
	for _, mf := range families {
		byName[mf.GetName()] = mf
	}

	ours := metrics.NewMemory()
	for _, sc := range scenarios {
		if sc.ours != nil {
			sc.ours(ours)
		}
	}
	for _, sc := range scenarios {
		d := sc.desc
		mf := byName[d.Name()]
		if !assert.NotNil(t, mf, "kube-apiserver exposes no %s", d.Name()) {
			continue
		}
		if sc.copyValue {
			copySamples(t, ours, d, mf)
		}
		t.Run(d.Name(), func(t *testing.T) {
			assert.Equal(t, mf.GetHelp(), d.HelpText(), "help and stability")
			assert.Equal(t, strings.ToLower(mf.GetType().String()), d.Kind().String(), "type")
			require.NotEmpty(t, mf.GetMetric())
			var kubeLabels []string
			for _, lp := range mf.GetMetric()[0].GetLabel() {
				kubeLabels = append(kubeLabels, lp.GetName())
			}
			ourLabels := d.Labels()
			slices.Sort(ourLabels)
			assert.Equal(t, kubeLabels, ourLabels, "label names")
			if h := mf.GetMetric()[0].GetHistogram(); h != nil {
				var bounds []float64
				for _, b := range h.GetBucket() {
					bounds = append(bounds, b.GetUpperBound())
				}
				assert.Equal(t, bounds, d.Buckets(), "buckets")
			}

			var kubeText strings.Builder
			_, err := expfmt.MetricFamilyToText(&kubeText, mf)
			require.NoError(t, err)
			want, got := kubeText.String(), ours.Text(d.Name())
			if sc.copyValue && d.Kind() == metrics.Histogram {
				// Wall-clock durations: the bucket counts were copied, the
				// sum cannot be.
				want, got = withoutSum(want), withoutSum(got)
			}
			assert.Equal(t, want, got, "text exposition")
		})
	}
	assert.Empty(t, ours.Errors())
}

func withoutSum(text string) string {
	lines := strings.Split(text, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, "_sum") }), "\n")
}

func sha256Label(data string) string {
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(data)))
}

// authorizeThroughFilter sends requests through kube-apiserver's HTTP
// authorization filter, the only place that records
// authorization_attempts_total and authorization_duration_seconds.
func authorizeThroughFilter(t *testing.T) {
	decisions := []authorizer.Decision{authorizer.DecisionAllow, authorizer.DecisionNoOpinion}
	i := 0
	authz := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		d := decisions[i%len(decisions)]
		i++
		return d, "", nil
	})
	codecs := serializer.NewCodecFactory(runtime.NewScheme())
	handler := filters.WithAuthorization(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), authz, codecs)
	for range decisions {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
		ctx := request.WithUser(req.Context(), &user.DefaultInfo{Name: "u"})
		ctx = request.WithRequestInfo(ctx, &request.RequestInfo{IsResourceRequest: true, Verb: "list", APIVersion: "v1", Resource: "pods"})
		handler.ServeHTTP(httptest.NewRecorder(), req.WithContext(ctx))
	}
}

// copySamples records into ours the samples kube-apiserver exposes for d,
// for the metrics whose values come from the wall clock.
func copySamples(t *testing.T, ours metrics.Sink, d *metrics.Desc, mf *dto.MetricFamily) {
	names := d.Labels()
	for _, m := range mf.GetMetric() {
		byName := map[string]string{}
		for _, lp := range m.GetLabel() {
			byName[lp.GetName()] = lp.GetValue()
		}
		values := make([]string, len(names))
		for i, n := range names {
			values[i] = byName[n]
		}
		switch d.Kind() {
		case metrics.Gauge:
			ours.Set(d, m.GetGauge().GetValue(), values...)
		case metrics.Counter:
			ours.Add(d, m.GetCounter().GetValue(), values...)
		case metrics.Histogram:
			// The filter observed wall-clock durations; reproduce the
			// bucket counts by observing each bucket's bound.
			h := m.GetHistogram()
			var prev uint64
			for _, b := range h.GetBucket() {
				for range b.GetCumulativeCount() - prev {
					ours.Observe(d, b.GetUpperBound(), values...)
				}
				prev = b.GetCumulativeCount()
			}
			if h.GetSampleCount() != prev || h.GetSampleSum() > 0 && prev == 0 {
				t.Fatalf("%s: observations beyond the last bucket cannot be copied", d.Name())
			}
		}
	}
}
