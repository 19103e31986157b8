package metrics

import (
	"fmt"
	"math"
	"strings"
)

// CheckSample reports why a sample does not fit its descriptor, or nil when
// it does. Every Sink applies these rules and drops a sample that breaks one;
// an adapter to another metrics system can call it to do the same.
func CheckSample(d *Desc, k Kind, value float64, labelValues []string) error {
	if d == nil {
		return fmt.Errorf("metrics: %s sample with a nil descriptor", k)
	}
	if d.kind != k {
		return fmt.Errorf("metrics: %s is a %s, not a %s", d.name, d.kind, k)
	}
	if len(labelValues) != len(d.labels) {
		return fmt.Errorf("metrics: %s takes %d label values (%s), got %d: %q",
			d.name, len(d.labels), strings.Join(d.labels, ", "), len(labelValues), labelValues)
	}
	if k == Counter && (value < 0 || math.IsNaN(value)) {
		return fmt.Errorf("metrics: %s: counter increment %v is not a non-negative number", d.name, value)
	}
	return nil
}
