package metrics

import "slices"

// Kind is the type of a metric.
type Kind uint8

// The kinds of metric a Desc can describe.
const (
	Counter Kind = iota + 1
	Gauge
	Histogram
)

// String returns the kind as the Prometheus text format writes it.
func (k Kind) String() string {
	switch k {
	case Counter:
		return "counter"
	case Gauge:
		return "gauge"
	case Histogram:
		return "histogram"
	}
	return "untyped"
}

// StabilityLevel is Kubernetes' promise about a metric's name and labels.
type StabilityLevel string

// The stability levels used by the metrics described here.
const (
	Alpha  StabilityLevel = "ALPHA"
	Beta   StabilityLevel = "BETA"
	Stable StabilityLevel = "STABLE"
)

// Desc describes one metric. Descriptors are immutable; the engines and sinks
// identify a metric by its *Desc.
type Desc struct {
	name      string
	help      string
	kind      Kind
	labels    []string
	buckets   []float64
	stability StabilityLevel
	// groupLabels >= 0 marks an info gauge: a Set replaces every other series
	// whose first groupLabels label values are the same. -1 for other metrics.
	groupLabels int
}

// Name is the fully qualified metric name.
func (d *Desc) Name() string { return d.name }

// Help is the help text without the stability prefix that kube-apiserver's
// registry adds ("[ALPHA] ").
func (d *Desc) Help() string { return d.help }

// Kind is the metric type.
func (d *Desc) Kind() Kind { return d.kind }

// Stability is the stability level.
func (d *Desc) Stability() StabilityLevel { return d.stability }

// Labels returns a copy of the label names, in the order in which samples
// give their values.
func (d *Desc) Labels() []string { return slices.Clone(d.labels) }

// NumLabels is the number of label values every sample must give.
func (d *Desc) NumLabels() int { return len(d.labels) }

// Buckets returns a copy of the upper bounds of a histogram's buckets, without
// +Inf; nil for other kinds.
func (d *Desc) Buckets() []float64 { return slices.Clone(d.buckets) }

// InfoGroup reports whether the metric is an info gauge, of which only the
// latest series is kept: a Set replaces every series that shares its first n
// label values (n == 0: every series). kube-apiserver exports
// apiserver_authorization_config_controller_last_config_info this way, so that
// the hash of a replaced configuration disappears.
func (d *Desc) InfoGroup() (n int, ok bool) {
	return d.groupLabels, d.groupLabels >= 0
}

// HelpText is the help line as kube-apiserver's registry exposes it, with the
// stability level in brackets before the text.
func (d *Desc) HelpText() string { return "[" + string(d.stability) + "] " + d.help }

func newDesc(name, help string, kind Kind, stability StabilityLevel, buckets []float64, labels ...string) *Desc {
	return &Desc{name: name, help: help, kind: kind, stability: stability, buckets: buckets, labels: labels, groupLabels: -1}
}

func counter(name, help string, stability StabilityLevel, labels ...string) *Desc {
	return newDesc(name, help, Counter, stability, nil, labels...)
}

func gauge(name, help string, stability StabilityLevel, labels ...string) *Desc {
	return newDesc(name, help, Gauge, stability, nil, labels...)
}

func histogram(name, help string, stability StabilityLevel, buckets []float64, labels ...string) *Desc {
	return newDesc(name, help, Histogram, stability, buckets, labels...)
}

func infoGauge(name, help string, stability StabilityLevel, groupLabels int, labels ...string) *Desc {
	d := gauge(name, help, stability, labels...)
	d.groupLabels = groupLabels
	return d
}

// defaultBuckets are Prometheus' default histogram buckets, which
// kube-apiserver uses where a histogram names none.
func defaultBuckets() []float64 {
	return []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
}

// exponentialBuckets computes the bounds as Prometheus does, by repeated
// multiplication, so that the floating-point values are identical.
func exponentialBuckets(start, factor float64, count int) []float64 {
	b := make([]float64, count)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}
