// Command quickstart is the main example of gatehouse.
//
// Until the authorizer chain lands it shows what is built so far: the
// catalogue of metrics the engines record, with kube-apiserver's names, and
// what a test sees when it records into a Memory sink.
package main

import (
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

func main() {
	fmt.Println("gatehouse records these metrics, named as kube-apiserver 1.37 names them:")
	for _, d := range metrics.All() {
		fmt.Printf("  %-9s %-6s %s %v\n", d.Kind(), d.Stability(), d.Name(), d.Labels())
	}

	sink := metrics.NewMemory()
	decisions := map[string]metrics.Series{
		"allowed": metrics.NewSeries(sink, metrics.AuthorizationDecisions, "RBAC", "rbac", "allowed"),
		"denied":  metrics.NewSeries(sink, metrics.AuthorizationDecisions, "Webhook", "protect-kube-system", "denied"),
	}
	for _, d := range []string{"allowed", "allowed", "denied"} {
		decisions[d].Add(1)
	}
	fmt.Println("\nA Memory sink after three decisions, in Prometheus text format:")
	if err := sink.WriteText(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
