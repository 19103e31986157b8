package metrics

import (
	"io"
	"math"
	"slices"
	"strings"
	"sync"
)

// Memory is a Sink that keeps every series in memory, for tests: read values
// back with Value and HistogramOf, or write them in the Prometheus text
// exposition format with WriteText and compare with kube-apiserver's golden
// text. It is safe for concurrent use. The zero value is not usable; call
// NewMemory.
//
// It keeps every series it is given, unbounded: label values include the
// names of policies, bindings and webhooks (kube-apiserver's label sets),
// so a Memory that outlives many configurations with new names grows with
// them, as a Prometheus registry does. Use it in tests, not in a server.
type Memory struct {
	mu       sync.Mutex
	families map[*Desc]map[string]*series
	dropped  []error
}

type series struct {
	labels []string
	value  float64  // counter or gauge
	counts []uint64 // histogram: observations per bucket, +Inf last
	sum    float64
}

// HistogramValue is the state of one histogram series.
type HistogramValue struct {
	// Count is the number of observations.
	Count uint64
	// Sum is the sum of the observations.
	Sum float64
	// Cumulative holds, for each of the descriptor's buckets, the number of
	// observations less than or equal to its upper bound.
	Cumulative []uint64
}

// NewMemory returns an empty Memory sink.
func NewMemory() *Memory {
	return &Memory{families: map[*Desc]map[string]*series{}}
}

var _ Sink = (*Memory)(nil)

// Add adds delta to a counter.
func (m *Memory) Add(d *Desc, delta float64, labelValues ...string) {
	m.record(d, Counter, delta, labelValues)
}

// Set sets a gauge. For an info gauge (see Desc.InfoGroup) it also removes
// the other series of its group.
func (m *Memory) Set(d *Desc, value float64, labelValues ...string) {
	m.record(d, Gauge, value, labelValues)
}

// Observe records an observation in a histogram.
func (m *Memory) Observe(d *Desc, value float64, labelValues ...string) {
	m.record(d, Histogram, value, labelValues)
}

func (m *Memory) record(d *Desc, k Kind, v float64, labelValues []string) {
	err := CheckSample(d, k, v, labelValues)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.dropped = append(m.dropped, err)
		return
	}
	fam := m.families[d]
	if fam == nil {
		fam = map[string]*series{}
		m.families[d] = fam
	}
	key := seriesKey(labelValues)
	if n, ok := d.InfoGroup(); ok {
		group := seriesKey(labelValues[:n])
		for k, s := range fam {
			if k != key && seriesKey(s.labels[:n]) == group {
				delete(fam, k)
			}
		}
	}
	s := fam[key]
	if s == nil {
		s = &series{labels: slices.Clone(labelValues)}
		if k == Histogram {
			s.counts = make([]uint64, len(d.buckets)+1)
		}
		fam[key] = s
	}
	switch k {
	case Counter:
		s.value += v
	case Gauge:
		s.value = v
	case Histogram:
		s.counts[bucketIndex(d.buckets, v)]++
		s.sum += v
	}
}

// bucketIndex is the index of the first bound >= v, len(bounds) (+Inf) if
// there is none; NaN goes to +Inf, as in Prometheus' client.
func bucketIndex(bounds []float64, v float64) int {
	if math.IsNaN(v) {
		return len(bounds)
	}
	i, _ := slices.BinarySearch(bounds, v)
	return i
}

func seriesKey(labelValues []string) string { return strings.Join(labelValues, "\xff") }

// Value returns the value of a counter or gauge series, and 0 for a series
// that has recorded nothing.
func (m *Memory) Value(d *Desc, labelValues ...string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.families[d][seriesKey(labelValues)]; s != nil {
		return s.value
	}
	return 0
}

// HistogramOf returns the state of a histogram series; the zero value for
// a series that has recorded nothing.
func (m *Memory) HistogramOf(d *Desc, labelValues ...string) HistogramValue {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.families[d][seriesKey(labelValues)]
	if s == nil || d == nil {
		return HistogramValue{}
	}
	h := HistogramValue{Sum: s.sum, Cumulative: make([]uint64, len(d.buckets))}
	for i, c := range s.counts {
		h.Count += c
		if i < len(h.Cumulative) {
			h.Cumulative[i] = h.Count
		}
	}
	return h
}

// Series returns the label values of every series of a metric, sorted.
func (m *Memory) Series(d *Desc) [][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return sortedLabels(m.families[d])
}

// Errors returns the samples dropped so far, each as the error that says why.
func (m *Memory) Errors() []error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.dropped)
}

// Reset forgets every series and every dropped sample.
func (m *Memory) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.families = map[*Desc]map[string]*series{}
	m.dropped = nil
}

// WriteText writes the metrics that have recorded at least one sample in the
// Prometheus text exposition format, as kube-apiserver's registry does:
// families sorted by name, help prefixed with the stability level, labels
// sorted by name, series sorted by label values. With names, only those
// metrics are written.
func (m *Memory) WriteText(w io.Writer, names ...string) error {
	m.mu.Lock()
	descs := make([]*Desc, 0, len(m.families))
	for d, fam := range m.families {
		if len(fam) > 0 && (len(names) == 0 || slices.Contains(names, d.name)) {
			descs = append(descs, d)
		}
	}
	slices.SortFunc(descs, func(a, b *Desc) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	for _, d := range descs {
		writeFamily(&b, d, m.families[d])
	}
	m.mu.Unlock()
	_, err := io.WriteString(w, b.String())
	return err
}

// Text is WriteText into a string.
func (m *Memory) Text(names ...string) string {
	var b strings.Builder
	_ = m.WriteText(&b, names...) // a strings.Builder does not fail
	return b.String()
}

func sortedLabels(fam map[string]*series) [][]string {
	out := make([][]string, 0, len(fam))
	for _, s := range fam {
		out = append(out, slices.Clone(s.labels))
	}
	slices.SortFunc(out, slices.Compare)
	return out
}
