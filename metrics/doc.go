// Package metrics describes every metric that the gatehouse engines record and
// defines Sink, the one interface they record through.
//
// Each descriptor carries kube-apiserver 1.37's name, help text, label names,
// histogram buckets and stability level, so that dashboards and alerts written
// for kube-apiserver work unchanged on a server built with gatehouse. All lists
// them, for a caller that registers them with its own metrics system.
//
// The caller chooses the Sink: Noop discards everything, Memory keeps values
// for tests and writes them in the Prometheus text exposition format (the same
// text kube-apiserver's registry produces, so tests can compare against its
// golden files), and an adapter to a real metrics system is a few lines.
//
// # Misuse never crashes
//
// A sample whose label values do not fit its descriptor (wrong number of values),
// a negative counter increment, a nil descriptor, or a call of the wrong kind
// (Observe on a counter) is dropped. Prometheus' client panics in those cases;
// a metrics mistake must not take down a serving process. Memory keeps a record
// of every dropped sample (see Memory.Errors) so that tests notice them.
//
// # Differences from kube-apiserver
//
// The summary apiserver_admission_step_admission_duration_seconds_summary is
// not described: Sink has no summary kind, and its histogram twin carries the
// same information.
package metrics
