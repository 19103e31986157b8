package matchcondmetrics

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	admissionmetrics "k8s.io/apiserver/pkg/admission/metrics"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiserverapi "k8s.io/apiserver/pkg/apis/apiserver"
	apiservervalidation "k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/authentication/user"
	authzcel "k8s.io/apiserver/pkg/authorization/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/gatehouse-dev/gatehouse/matchcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

var authzRequests = []authorizationv1.SubjectAccessReviewSpec{
	{User: "a", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "x", Verb: "get", Resource: "pods"}},
	{User: "b", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/", Verb: "get"}},
	{},
}

// TestAuthorizationMatchConditionMetricsMatchKubeAPIServer records the same
// evaluations through both implementations' metrics.
func TestAuthorizationMatchConditionMetricsMatchKubeAPIServer(t *testing.T) {
	const name = "conformance-matchcond"
	compiler, err := matchcond.NewAuthorizationCompiler()
	require.NoError(t, err)
	sink := metrics.NewMemory()
	kubeMetrics := authzcel.NewMatcherMetrics()
	before := gatherAuthz(t, name)
	broken := "request.resourceAttributes.namespace == 'x'"
	for _, list := range [][]string{{"true"}, {"false"}, {broken, "false"}, {"false", broken}, {broken}, {broken, "true"}} {
		conds := make([]apiserverapi.WebhookMatchCondition, len(list))
		for i, e := range list {
			conds[i] = apiserverapi.WebhookMatchCondition{Expression: e}
		}
		kube, errs := apiservervalidation.ValidateAndCompileMatchConditions(authzcel.NewDefaultCompiler(), conds)
		require.Empty(t, errs)
		kube.Metrics, kube.AuthorizerType, kube.AuthorizerName = kubeMetrics, "Webhook", name
		ours, errs := compiler.Compile(list, field.NewPath("matchConditions"))
		require.Empty(t, errs)
		ours = ours.WithOptions(matchcond.AuthorizationMatcherOptions{AuthorizerName: name, Metrics: sink})
		for _, spec := range authzRequests {
			_, _ = kube.Eval(context.Background(), &authorizationv1.SubjectAccessReview{Spec: spec})
			_, _ = ours.Match(context.Background(), &spec)
		}
	}
	after := gatherAuthz(t, name)
	assert.Equal(t, after.errors-before.errors, sink.Value(metrics.AuthorizationMatchConditionErrors, "Webhook", name))
	assert.Equal(t, after.exclusions-before.exclusions, sink.Value(metrics.AuthorizationMatchConditionExclusions, "Webhook", name))
	assert.Equal(t, after.observations-before.observations, sink.HistogramOf(metrics.AuthorizationMatchConditionDuration, "Webhook", name).Count)
	assert.Positive(t, after.observations-before.observations)
}

type authzCounts struct {
	errors, exclusions float64
	observations       uint64
}

func gatherAuthz(t *testing.T, name string) authzCounts {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	require.NoError(t, err)
	var c authzCounts
	for _, mf := range families {
		for _, s := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["name"] != name || labels["type"] != "Webhook" {
				continue
			}
			switch mf.GetName() {
			case metrics.AuthorizationMatchConditionErrors.Name():
				c.errors = s.GetCounter().GetValue()
			case metrics.AuthorizationMatchConditionExclusions.Name():
				c.exclusions = s.GetCounter().GetValue()
			case metrics.AuthorizationMatchConditionDuration.Name():
				c.observations = s.GetHistogram().GetSampleCount()
			}
		}
	}
	return c
}

// TestAdmissionMatchConditionMetricsMatchKubeAPIServer counts the metrics
// of the same evaluations on both sides. kube-apiserver's webhook
// dispatcher, not its matcher, records exclusions: the kube side records
// them as the dispatcher does.
func TestAdmissionMatchConditionMetricsMatchKubeAPIServer(t *testing.T) {
	compiler, err := matchcond.NewAdmissionCompiler()
	require.NoError(t, err)
	sink := metrics.NewMemory()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	podGVK, podGVR := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	u := &user.DefaultInfo{Name: "u", Groups: []string{"g"}}
	attrs := []admission.Attributes{
		admission.NewAttributesRecord(pod, nil, podGVK, "default", "p", podGVR, "", admission.Create, &metav1.CreateOptions{}, false, u),
		admission.NewAttributesRecord(pod, pod, podGVK, "default", "p", podGVR, "", admission.Update, &metav1.UpdateOptions{}, false, u),
		admission.NewAttributesRecord(nil, pod, podGVK, "default", "p", podGVR, "", admission.Delete, &metav1.DeleteOptions{}, false, u),
	}
	broken := "request.userInfo.groups[7] == ''"
	before := gatherAdmission(t)
	ignore := admissionregistrationv1.Ignore
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	for i, list := range [][]string{{"true"}, {"false"}, {broken, "false"}, {"false", broken}, {broken}, {broken, broken, "true"}} {
		conds := make([]admissionregistrationv1.MatchCondition, len(list))
		accessors := make([]plugincel.ExpressionAccessor, len(list))
		for j, e := range list {
			conds[j] = admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", j), Expression: e}
			accessors[j] = (*matchconditions.MatchCondition)(&conds[j])
		}
		for _, policy := range []bool{false, true} {
			for _, fp := range []*admissionregistrationv1.FailurePolicyType{nil, &ignore} {
				name := fmt.Sprintf("metrics-%d", i)
				decls := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
				kind := "webhook"
				var filter plugincel.ConditionEvaluator
				if policy {
					kind = "policy"
					cc, err := plugincel.NewCompositedCompiler(envSet)
					require.NoError(t, err)
					filter = cc.CompileCondition(accessors, decls, environment.StoredExpressions)
				} else {
					filter = plugincel.NewConditionCompiler(envSet).CompileCondition(accessors, decls, environment.StoredExpressions)
				}
				kube := matchconditions.NewMatcher(filter, fp, kind, "validate", name)
				ours, err := compiler.Compile(conds, matchcond.AdmissionOptions{Policy: policy, FailurePolicy: fp, Name: name, Type: "validate", Metrics: sink})
				require.NoError(t, err)
				for _, a := range attrs {
					va := &admission.VersionedAttributes{Attributes: a, VersionedKind: podGVK,
						VersionedObject: admission.NewLazyObject(a.GetObject()), VersionedOldObject: admission.NewLazyObject(a.GetOldObject())}
					r := kube.Match(context.Background(), va, nil, nil)
					if kind == "webhook" && r.Error == nil && !r.Matches {
						admissionmetrics.Metrics.ObserveMatchConditionExclusion(context.Background(), name, "webhook", "validate", string(a.GetOperation()))
					}
					request := plugincel.CreateAdmissionRequest(a, metav1.GroupVersionResource(a.GetResource()), metav1.GroupVersionKind(podGVK))
					ours.Match(context.Background(), &matchcond.AdmissionAttributes{Request: request, Object: a.GetObject(), OldObject: a.GetOldObject()})
				}
			}
		}
	}
	after := gatherAdmission(t)
	compared := 0
	for key, n := range after {
		labels := strings.Split(key.labels, "\xff")
		if !strings.HasPrefix(labels[0], "metrics-") {
			continue
		}
		want := n - before[key]
		var got float64
		switch key.metric {
		case metrics.AdmissionMatchConditionDuration.Name():
			got = float64(sink.HistogramOf(metrics.AdmissionMatchConditionDuration, labels...).Count)
		case metrics.AdmissionMatchConditionErrors.Name():
			got = sink.Value(metrics.AdmissionMatchConditionErrors, labels...)
		case metrics.AdmissionMatchConditionExclusions.Name():
			got = sink.Value(metrics.AdmissionMatchConditionExclusions, labels...)
		}
		assert.Equal(t, want, got, "%s%v", key.metric, labels)
		compared++
	}
	assert.Positive(t, compared)
	// Nothing recorded by gatehouse that kube-apiserver did not record.
	for _, d := range []*metrics.Desc{metrics.AdmissionMatchConditionDuration, metrics.AdmissionMatchConditionErrors, metrics.AdmissionMatchConditionExclusions} {
		for _, labels := range sink.Series(d) {
			_, ok := after[metricKey{d.Name(), strings.Join(labels, "\xff")}]
			assert.True(t, ok, "%s%v recorded by gatehouse only", d.Name(), labels)
		}
	}
}

type metricKey struct {
	metric string
	labels string // name, kind, type, operation
}

func gatherAdmission(t *testing.T) map[metricKey]float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	require.NoError(t, err)
	out := map[metricKey]float64{}
	for _, mf := range families {
		switch mf.GetName() {
		case metrics.AdmissionMatchConditionDuration.Name(), metrics.AdmissionMatchConditionErrors.Name(), metrics.AdmissionMatchConditionExclusions.Name():
		default:
			continue
		}
		for _, s := range mf.GetMetric() {
			l := map[string]string{}
			for _, p := range s.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			key := metricKey{mf.GetName(), strings.Join([]string{l["name"], l["kind"], l["type"], l["operation"]}, "\xff")}
			if h := s.GetHistogram(); h != nil {
				out[key] = float64(h.GetSampleCount())
			} else {
				out[key] = s.GetCounter().GetValue()
			}
		}
	}
	return out
}
