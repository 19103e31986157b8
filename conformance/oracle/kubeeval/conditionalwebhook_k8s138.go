//go:build k8s138

package kubeeval

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	genericfeatures "k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/plugin/pkg/authorizer/webhook"
	webhookmetrics "k8s.io/apiserver/plugin/pkg/authorizer/webhook/metrics"
	"k8s.io/client-go/rest"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// conditionalWebhookMu serializes the op: it turns the process-wide gate on
// while it runs.
var conditionalWebhookMu sync.Mutex

// conditionalWebhook answers OpConditionalWebhook with kube-apiserver
// 1.38's webhook authorizer, the gate ConditionalAuthorization on.
func conditionalWebhook(q *protocol.ConditionalWebhookQuery) protocol.Answer {
	if q == nil {
		return protocol.Answer{Error: "conditionalwebhook: no query"}
	}
	conditionalWebhookMu.Lock()
	defer conditionalWebhookMu.Unlock()
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{string(genericfeatures.ConditionalAuthorization): !q.GateOff}); err != nil {
		return protocol.Answer{Error: err.Error()}
	}
	defer func() {
		_ = utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{string(genericfeatures.ConditionalAuthorization): false})
	}()

	rec := &protocol.ConditionalWebhookServer{Query: q}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(rec.Answer(body))
	}))
	defer srv.Close()

	decisionOnError := authorizer.DecisionNoOpinion
	if q.FailurePolicy == "Deny" {
		decisionOnError = authorizer.DecisionDeny
	}
	var crConfig *rest.Config
	crVersion := ""
	if q.ConditionsReview {
		crConfig, crVersion = &rest.Config{Host: srv.URL, Timeout: 10 * time.Second}, "v1alpha1"
	}
	// The compiler reads the gate when it is built, as kube-apiserver's
	// when it loads its authorization configuration.
	var conditions []apiserver.WebhookMatchCondition
	for _, e := range q.MatchConditions {
		conditions = append(conditions, apiserver.WebhookMatchCondition{Expression: e})
	}
	matcher, err := validation.NewWebhookMatcher(authorizationcel.NewDefaultCompiler(), conditions, "test", noopWebhookMetrics{})
	if err != nil {
		return protocol.Answer{ConditionalWebhook: &protocol.ConditionalWebhookAnswer{NewError: err.Error()}}
	}
	w, err := webhook.New(&rest.Config{Host: srv.URL, Timeout: 10 * time.Second}, "v1", 0, 0, wait.Backoff{Steps: 1, Duration: time.Millisecond},
		decisionOnError, matcher, "test", noopWebhookMetrics{}, crConfig, crVersion)
	if err != nil {
		return protocol.Answer{ConditionalWebhook: &protocol.ConditionalWebhookAnswer{NewError: err.Error()}}
	}
	if q.GateOff {
		return protocol.Answer{ConditionalWebhook: &protocol.ConditionalWebhookAnswer{}}
	}
	ctx := context.Background()
	attrs := authorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: q.User, Groups: q.Groups}, Verb: "get", Namespace: "default",
		APIVersion: "v1", Resource: "pods", Name: "web", ResourceRequest: true,
	}
	d := w.ConditionsAwareAuthorize(ctx, attrs)
	a := &protocol.ConditionalWebhookAnswer{String: d.String(), Failure: d.FailureDecision().String()}
	for _, p := range sets.List(d.PossibleDecisions()) {
		a.Possible = append(a.Possible, p.String())
	}
	if q.Evaluate {
		x, reason, err := w.EvaluateConditions(ctx, d, podCreate{user: &user.DefaultInfo{Name: q.User, Groups: q.Groups}})
		a.Decision, a.Reason = x.String(), reason
		if err != nil {
			a.Error, a.HasError = err.Error(), true
		}
	}
	rec.Record(a)
	return protocol.Answer{ConditionalWebhook: a}
}

// podCreate is the data of OpConditionalWebhook's evaluation.
type podCreate struct{ user user.Info }

func (podCreate) GetName() string      { return "web" }
func (podCreate) GetNamespace() string { return "default" }
func (podCreate) GetResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Version: "v1", Resource: "pods"}
}
func (podCreate) GetSubresource() string                      { return "" }
func (podCreate) GetOperation() authorizer.AdmissionOperation { return "CREATE" }
func (podCreate) GetOperationOptions() runtime.Object         { return &metav1.CreateOptions{} }
func (podCreate) IsDryRun() bool                              { return false }
func (podCreate) GetObject() runtime.Object {
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web"}}
}
func (podCreate) GetOldObject() runtime.Object { return nil }
func (podCreate) GetKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
}
func (p podCreate) GetUserInfo() user.Info { return p.user }

// noopWebhookMetrics records nothing.
type noopWebhookMetrics struct {
	webhookmetrics.NoopRequestMetrics
	webhookmetrics.NoopWebhookMetrics
}

func (noopWebhookMetrics) RecordAuthorizationMatchConditionEvaluation(context.Context, string, string, time.Duration) {
}
func (noopWebhookMetrics) RecordAuthorizationMatchConditionEvaluationFailure(context.Context, string, string) {
}
func (noopWebhookMetrics) RecordAuthorizationMatchConditionExclusion(context.Context, string, string) {
}
