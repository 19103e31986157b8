// Package prometheus is a metrics.Sink that records gatehouse's metrics in
// Prometheus' client_golang, for servers that export their metrics with it.
//
// New registers one collector per descriptor of package metrics in a
// prometheus.Registerer, with kube-apiserver 1.37's names, help texts, label
// names, buckets and stability (shown as Kubernetes' component-base shows it,
// "[ALPHA] " or "[STABLE] " before the help text), so that dashboards and
// alerts written for kube-apiserver work unchanged. Pass the Sink as the
// Metrics of the engines' options:
//
//	sink, err := prometheus.New(registry, prometheus.Options{})
//	chain, err := authorizer.New(cfg, authorizer.Options{Metrics: sink})
//
// # Recording
//
// A sample is recorded without taking a lock: each metric keeps an immutable
// map from label values to the series' collector, replaced (copy on write,
// under a lock) only when a new series appears. A sample costs a map lookup
// and the collector's atomic update, and allocates nothing.
//
// The info gauges (apiserver_authorization_config_controller_last_config_info
// and its manifest-admission twin), set at each reload, keep only their latest
// series per group, as kube-apiserver does and as metrics.Memory does; they
// take a lock.
//
// # Misuse never crashes
//
// client_golang panics on a wrong number of label values, a negative counter
// increment or a label value that is not UTF-8. This Sink drops such a sample
// instead, as every gatehouse Sink does (see metrics.CheckSample), counts it
// (Dropped) and, if Options.OnDrop is set, reports why.
//
// # With k8s.io/apiserver
//
// A server built on k8s.io/apiserver's generic server already registers some
// of these metrics itself in component-base's legacy registry
// (authorization_attempts_total and authorization_duration_seconds from its
// authorization filter, apiserver_webhooks_x509_* and apiserver_cel_* from
// packages it imports). Registering them twice in one registry is an error;
// list in Options.Descriptors the ones gatehouse should own, or use a
// registry of your own.
package prometheus
