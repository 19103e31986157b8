package prometheus

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// Options configure a Sink.
type Options struct {
	// Descriptors are the metrics to register; nil means every descriptor
	// of metrics.All. A sample of a metric not registered is dropped.
	Descriptors []*metrics.Desc
	// OnDrop, if set, is called with the reason of each dropped sample. It
	// must be safe for concurrent use.
	OnDrop func(error)
}

// Sink is a metrics.Sink recording into client_golang collectors. It is safe
// for concurrent use. Build it with New.
type Sink struct {
	families familyTable // read-only after New
	onDrop   func(error)
	dropped  atomic.Uint64
}

var _ metrics.Sink = (*Sink)(nil)

// maxCachedLabels is the number of label values that fit a labelKey; every
// descriptor of package metrics has at most 4 labels. A metric with more
// would be recorded through its vector's own lookup.
const maxCachedLabels = 4

// labelKey holds a series' label values; unused slots are empty, which is
// unambiguous because a metric's number of labels is fixed.
type labelKey [maxCachedLabels]string

// child is one series' collector.
type child struct {
	counter  prom.Counter
	gauge    prom.Gauge
	observer prom.Observer
}

// series is a child with its label values.
type series struct {
	values []string
	child
}

// numSlots is the size of each family's direct-mapped cache of series, a
// power of two.
const numSlots = 64

type family struct {
	desc      *metrics.Desc
	kind      metrics.Kind
	collector prom.Collector
	counters  *prom.CounterVec
	gauges    *prom.GaugeVec
	histogram *prom.HistogramVec

	// slots cache series by the address of the label values' backing
	// array: the engines record through metrics.Series, which passes the
	// same slice at every call, so that a hit costs a load and a
	// comparison of the values, no hashing. The address only picks the
	// slot; the values are compared, so a stale or colliding slot is a
	// miss, never a wrong series.
	slots [numSlots]atomic.Pointer[series]

	// children maps label values to the series; the map is never changed
	// once stored: a new series replaces it with a copy.
	children atomic.Pointer[map[labelKey]*series]

	mu sync.Mutex // serializes new series and info gauge sets
	// info holds, for an info gauge, the series in force in each group
	// (keyed by the group's label values joined as metrics.Memory does).
	info map[string][]string
}

// New registers a collector for each descriptor with reg and returns a Sink
// recording into them. If one cannot be registered (one of the same name is
// already there, for instance), the collectors registered so far are
// unregistered and the error is returned.
func New(reg prom.Registerer, opts Options) (*Sink, error) {
	if reg == nil {
		return nil, errors.New("prometheus: nil Registerer")
	}
	descs := opts.Descriptors
	if descs == nil {
		descs = metrics.All()
	}
	s := &Sink{families: newFamilyTable(len(descs)), onDrop: opts.OnDrop}
	var registered []prom.Collector
	for _, d := range descs {
		if d == nil {
			unregisterAll(reg, registered)
			return nil, errors.New("prometheus: nil descriptor")
		}
		if s.families.get(d) != nil {
			continue
		}
		f := newFamily(d)
		if err := reg.Register(f.collector); err != nil {
			unregisterAll(reg, registered)
			return nil, fmt.Errorf("prometheus: registering %s: %w", d.Name(), err)
		}
		registered = append(registered, f.collector)
		s.families.put(f)
	}
	return s, nil
}

func unregisterAll(reg prom.Registerer, cs []prom.Collector) {
	for _, c := range cs {
		reg.Unregister(c)
	}
}

func newFamily(d *metrics.Desc) *family {
	f := &family{desc: d, kind: d.Kind()}
	labels := d.Labels()
	switch d.Kind() {
	case metrics.Counter:
		f.counters = prom.NewCounterVec(prom.CounterOpts{Name: d.Name(), Help: d.HelpText()}, labels)
		f.collector = f.counters
	case metrics.Gauge:
		f.gauges = prom.NewGaugeVec(prom.GaugeOpts{Name: d.Name(), Help: d.HelpText()}, labels)
		f.collector = f.gauges
	case metrics.Histogram:
		f.histogram = prom.NewHistogramVec(prom.HistogramOpts{Name: d.Name(), Help: d.HelpText(), Buckets: d.Buckets()}, labels)
		f.collector = f.histogram
	}
	empty := map[labelKey]*series{}
	f.children.Store(&empty)
	if _, ok := d.InfoGroup(); ok {
		f.info = map[string][]string{}
	}
	return f
}

// Add adds delta to a counter.
func (s *Sink) Add(d *metrics.Desc, delta float64, labelValues ...string) {
	if f := s.family(d, metrics.Counter, delta, labelValues); f != nil {
		if sr := s.series(f, labelValues); sr != nil {
			sr.counter.Add(delta)
		}
	}
}

// Set sets a gauge. For an info gauge (see metrics.Desc.InfoGroup) it also
// removes the other series of its group.
func (s *Sink) Set(d *metrics.Desc, value float64, labelValues ...string) {
	f := s.family(d, metrics.Gauge, value, labelValues)
	if f == nil {
		return
	}
	if f.info != nil {
		s.setInfo(f, value, labelValues)
		return
	}
	if sr := s.series(f, labelValues); sr != nil {
		sr.gauge.Set(value)
	}
}

// Observe records an observation in a histogram.
func (s *Sink) Observe(d *metrics.Desc, value float64, labelValues ...string) {
	if f := s.family(d, metrics.Histogram, value, labelValues); f != nil {
		if sr := s.series(f, labelValues); sr != nil {
			sr.observer.Observe(value)
		}
	}
}

// Dropped is the number of samples dropped so far.
func (s *Sink) Dropped() uint64 { return s.dropped.Load() }

func (s *Sink) drop(err error) {
	s.dropped.Add(1)
	if s.onDrop != nil {
		s.onDrop(err)
	}
}

// family checks a sample and returns the family to record it in, or nil
// when the sample is dropped.
func (s *Sink) family(d *metrics.Desc, k metrics.Kind, v float64, labelValues []string) *family {
	if err := metrics.CheckSample(d, k, v, labelValues); err != nil {
		s.drop(err)
		return nil
	}
	f := s.families.get(d)
	if f == nil {
		s.drop(fmt.Errorf("prometheus: %s is not registered with this sink", d.Name()))
	}
	return f
}

// series returns a series: from the slot of its label values' address or
// from the map, both without a lock, or created under the family's lock. It
// returns nil when the series cannot be created.
func (s *Sink) series(f *family, labelValues []string) *series {
	if len(labelValues) > maxCachedLabels {
		c, ok := s.vecChild(f, labelValues)
		if !ok {
			return nil
		}
		return &series{values: labelValues, child: c}
	}
	slot := &f.slots[slotIndex(labelValues)]
	if sr := slot.Load(); sr != nil && slices.Equal(sr.values, labelValues) {
		return sr
	}
	var key labelKey
	copy(key[:], labelValues)
	sr, ok := (*f.children.Load())[key]
	if !ok {
		if sr = s.newSeries(f, key, labelValues); sr == nil {
			return nil
		}
	}
	slot.Store(sr)
	return sr
}

// slotIndex hashes the address of the label values' backing array.
func slotIndex(labelValues []string) uintptr {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(labelValues)))
	return (p>>4 ^ p>>10) & (numSlots - 1)
}

func (s *Sink) newSeries(f *family, key labelKey, labelValues []string) *series {
	f.mu.Lock()
	defer f.mu.Unlock()
	old := *f.children.Load()
	if sr, ok := old[key]; ok {
		return sr
	}
	c, ok := s.vecChild(f, labelValues)
	if !ok {
		return nil
	}
	sr := &series{values: slices.Clone(labelValues), child: c}
	next := maps.Clone(old)
	next[key] = sr
	f.children.Store(&next)
	return sr
}

// vecChild asks the vector for a series; client_golang rejects label values
// that are not valid UTF-8.
func (s *Sink) vecChild(f *family, labelValues []string) (child, bool) {
	var c child
	var err error
	switch f.kind {
	case metrics.Counter:
		c.counter, err = f.counters.GetMetricWithLabelValues(labelValues...)
	case metrics.Gauge:
		c.gauge, err = f.gauges.GetMetricWithLabelValues(labelValues...)
	case metrics.Histogram:
		c.observer, err = f.histogram.GetMetricWithLabelValues(labelValues...)
	}
	if err != nil {
		s.drop(fmt.Errorf("prometheus: %s: %w", f.desc.Name(), err))
		return child{}, false
	}
	return c, true
}

// setInfo sets an info gauge's series and deletes the one it replaces.
func (s *Sink) setInfo(f *family, value float64, labelValues []string) {
	n, _ := f.desc.InfoGroup()
	group := strings.Join(labelValues[:n], "\xff")
	f.mu.Lock()
	defer f.mu.Unlock()
	g, err := f.gauges.GetMetricWithLabelValues(labelValues...)
	if err != nil {
		s.drop(fmt.Errorf("prometheus: %s: %w", f.desc.Name(), err))
		return
	}
	if prev, ok := f.info[group]; ok && !slices.Equal(prev, labelValues) {
		f.gauges.DeleteLabelValues(prev...)
	}
	f.info[group] = append([]string(nil), labelValues...)
	g.Set(value)
}

// familyTable finds a descriptor's family by its address: open addressing
// over a table at most a quarter full, so that a lookup is a multiplication
// and, almost always, one comparison.
type familyTable struct {
	shift   uint
	entries []*family
}

func newFamilyTable(n int) familyTable {
	bits := uint(4)
	for 1<<bits < 4*n {
		bits++
	}
	return familyTable{shift: 64 - bits, entries: make([]*family, 1<<bits)}
}

func (t *familyTable) index(d *metrics.Desc) uint64 {
	return uint64(uintptr(unsafe.Pointer(d))) * 0x9e3779b97f4a7c15 >> t.shift
}

func (t *familyTable) get(d *metrics.Desc) *family {
	mask := uint64(len(t.entries) - 1)
	for i := t.index(d); ; i = (i + 1) & mask {
		f := t.entries[i]
		if f == nil || f.desc == d {
			return f
		}
	}
}

func (t *familyTable) put(f *family) {
	mask := uint64(len(t.entries) - 1)
	i := t.index(f.desc)
	for t.entries[i] != nil {
		i = (i + 1) & mask
	}
	t.entries[i] = f
}
