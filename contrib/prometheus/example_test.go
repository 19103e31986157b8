package prometheus_test

import (
	"context"
	"os"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/contrib/prometheus"
)

// A server registers gatehouse's metrics in its Prometheus registry and
// gives the sink to the engines.
func ExampleNew() {
	registry := prom.NewRegistry()
	sink, err := prometheus.New(registry, prometheus.Options{})
	if err != nil {
		panic(err)
	}
	readOnly := authorizer.Func(func(_ context.Context, a *authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.Verb == "get" {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionDeny, "read-only", nil
	})
	chain, err := authorizer.NewChain(
		authorizer.Named{Name: "read-only", Authorizer: authorizer.WithDecisionMetrics(sink, "ReadOnly", "read-only", readOnly)},
	)
	if err != nil {
		panic(err)
	}
	for _, verb := range []string{"get", "post", "get"} {
		_, _, _ = chain.Authorize(context.Background(), &authorizer.Attributes{User: &authorizer.User{Name: "jane"}, Verb: verb, Path: "/healthz"})
	}

	families, err := registry.Gather()
	if err != nil {
		panic(err)
	}
	for _, mf := range families {
		_, _ = expfmt.MetricFamilyToText(os.Stdout, mf)
	}
	// Output:
	// # HELP apiserver_authorization_decisions_total [ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.
	// # TYPE apiserver_authorization_decisions_total counter
	// apiserver_authorization_decisions_total{decision="allowed",name="read-only",type="ReadOnly"} 2
	// apiserver_authorization_decisions_total{decision="denied",name="read-only",type="ReadOnly"} 1
}
