package metrics

// Sink receives the samples the engines record. Label values come in the
// order of the descriptor's Labels. Implementations must be safe for
// concurrent use and must never panic: a sample that does not fit its
// descriptor is dropped (see the package documentation).
//
// Engines pass label slices they built at construction (values...), so that a
// call allocates nothing; Series does that for them.
type Sink interface {
	// Add adds delta (>= 0) to a counter.
	Add(d *Desc, delta float64, labelValues ...string)
	// Set sets a gauge.
	Set(d *Desc, value float64, labelValues ...string)
	// Observe records one observation in a histogram.
	Observe(d *Desc, value float64, labelValues ...string)
}

// Noop is a Sink that discards every sample.
type Noop struct{}

// Add does nothing.
func (Noop) Add(*Desc, float64, ...string) {}

// Set does nothing.
func (Noop) Set(*Desc, float64, ...string) {}

// Observe does nothing.
func (Noop) Observe(*Desc, float64, ...string) {}

// OrNoop returns s, or Noop when s is nil, so that engines can accept a nil
// sink from their callers.
func OrNoop(s Sink) Sink {
	if s == nil {
		return Noop{}
	}
	return s
}

// Series is one labelled series of a metric, bound to a sink ahead of time
// so that recording on a hot path allocates nothing. The zero Series records
// nothing.
type Series struct {
	sink   Sink
	desc   *Desc
	labels []string
}

// NewSeries binds a descriptor and its label values to a sink. A nil sink
// gives a Series that records nothing.
func NewSeries(s Sink, d *Desc, labelValues ...string) Series {
	if s == nil {
		return Series{}
	}
	return Series{sink: s, desc: d, labels: labelValues}
}

// Add adds delta to the counter.
func (s Series) Add(delta float64) {
	if s.sink != nil {
		s.sink.Add(s.desc, delta, s.labels...)
	}
}

// Set sets the gauge.
func (s Series) Set(value float64) {
	if s.sink != nil {
		s.sink.Set(s.desc, value, s.labels...)
	}
}

// Observe records an observation in the histogram.
func (s Series) Observe(value float64) {
	if s.sink != nil {
		s.sink.Observe(s.desc, value, s.labels...)
	}
}
