package metrics_test

import (
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// A test records through a Memory sink and reads the values back.
func ExampleMemory() {
	sink := metrics.NewMemory()
	sink.Add(metrics.AuthorizationDecisions, 1, "Webhook", "protect-kube-system", "denied")
	sink.Add(metrics.AuthorizationDecisions, 1, "Webhook", "protect-kube-system", "denied")
	fmt.Println(sink.Value(metrics.AuthorizationDecisions, "Webhook", "protect-kube-system", "denied"))
	// Output: 2
}

// Memory writes the Prometheus text format, as kube-apiserver's /metrics does.
func ExampleMemory_WriteText() {
	sink := metrics.NewMemory()
	sink.Add(metrics.AuthorizationWebhookFailOpen, 1, "opa", "timeout")
	_ = sink.WriteText(os.Stdout)
	// Output:
	// # HELP apiserver_authorization_webhook_evaluations_fail_open_total [ALPHA] NoOpinion results due to webhook timeout or error.
	// # TYPE apiserver_authorization_webhook_evaluations_fail_open_total counter
	// apiserver_authorization_webhook_evaluations_fail_open_total{name="opa",result="timeout"} 1
}

// A sample that does not fit its descriptor is dropped, never a panic.
func ExampleMemory_Errors() {
	sink := metrics.NewMemory()
	sink.Add(metrics.AuthorizationWebhookFailOpen, 1, "opa") // result missing
	fmt.Println(sink.Errors())
	// Output: [metrics: apiserver_authorization_webhook_evaluations_fail_open_total takes 2 label values (name, result), got 1: ["opa"]]
}

// An engine binds its series once, at construction, and records without
// allocating on each request.
func ExampleNewSeries() {
	sink := metrics.NewMemory()
	excluded := metrics.NewSeries(sink, metrics.AuthorizationMatchConditionExclusions, "Webhook", "opa")
	for range 3 {
		excluded.Add(1)
	}
	fmt.Println(sink.Value(metrics.AuthorizationMatchConditionExclusions, "Webhook", "opa"))
	// Output: 3
}

// All lists every descriptor, for registering them with another metrics
// system.
func ExampleAll() {
	for _, d := range metrics.All()[:3] {
		fmt.Println(d.Kind(), d.Name(), d.Labels())
	}
	// Output:
	// histogram apiserver_admission_controller_admission_duration_seconds [name type operation rejected]
	// counter apiserver_admission_match_condition_evaluation_errors_total [name kind type operation]
	// histogram apiserver_admission_match_condition_evaluation_seconds [name kind type operation]
}
