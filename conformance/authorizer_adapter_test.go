package conformance

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
)

// azKubeAttributes converts gatehouse attributes to kube-apiserver's.
func azKubeAttributes(t testing.TB, a *authorizer.Attributes) kauthorizer.AttributesRecord {
	t.Helper()
	rec := kauthorizer.AttributesRecord{
		Verb: a.Verb, Namespace: a.Namespace, APIGroup: a.APIGroup, APIVersion: a.APIVersion,
		Resource: a.Resource, Subresource: a.Subresource, Name: a.Name,
		ResourceRequest: a.ResourceRequest, Path: a.Path,
	}
	if a.User != nil {
		rec.User = &user.DefaultInfo{Name: a.User.Name, UID: a.User.UID, Groups: a.User.Groups, Extra: a.User.Extra}
	}
	for _, r := range a.FieldSelector {
		rec.FieldSelectorRequirements = append(rec.FieldSelectorRequirements, fields.Requirement{
			Operator: r.Operator, Field: r.Field, Value: r.Value,
		})
	}
	for _, r := range a.LabelSelector {
		req, err := labels.NewRequirement(r.Key, r.Operator, r.Values)
		if err != nil {
			t.Fatalf("corpus label requirement %+v: %v", r, err)
		}
		rec.LabelSelectorRequirements = append(rec.LabelSelectorRequirements, *req)
	}
	return rec
}

// azKubeWebhookMetrics records what kube-apiserver's webhook authorizer
// reports, as "metric/label/label" counts.
type azKubeWebhookMetrics struct {
	mu     sync.Mutex
	counts map[string]int
}

func azNewKubeWebhookMetrics() *azKubeWebhookMetrics {
	return &azKubeWebhookMetrics{counts: map[string]int{}}
}

func (m *azKubeWebhookMetrics) inc(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts[key]++
}

func (m *azKubeWebhookMetrics) snapshot() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for k, v := range m.counts {
		out[k] = v
	}
	return out
}

func (m *azKubeWebhookMetrics) RecordRequestTotal(context.Context, string)            {}
func (m *azKubeWebhookMetrics) RecordRequestLatency(context.Context, string, float64) {}
func (m *azKubeWebhookMetrics) RecordWebhookEvaluation(_ context.Context, name, result string) {
	m.inc("evaluations/" + name + "/" + result)
}
func (m *azKubeWebhookMetrics) RecordWebhookDuration(_ context.Context, name, result string, _ float64) {
	m.inc("duration/" + name + "/" + result)
}
func (m *azKubeWebhookMetrics) RecordWebhookFailOpen(_ context.Context, name, result string) {
	m.inc("failopen/" + name + "/" + result)
}
func (m *azKubeWebhookMetrics) RecordAuthorizationMatchConditionEvaluation(_ context.Context, typ, name string, _ time.Duration) {
	m.inc("mc_duration/" + typ + "/" + name)
}
func (m *azKubeWebhookMetrics) RecordAuthorizationMatchConditionEvaluationFailure(_ context.Context, typ, name string) {
	m.inc("mc_errors/" + typ + "/" + name)
}
func (m *azKubeWebhookMetrics) RecordAuthorizationMatchConditionExclusion(_ context.Context, typ, name string) {
	m.inc("mc_exclusions/" + typ + "/" + name)
}
