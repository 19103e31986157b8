package typednormal

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The types below convert through their own JSON (un)marshalling: the
// converter encodes the unstructured value to JSON with encoding/json,
// hands it to the type's UnmarshalJSON, and writes back the type's
// ToUnstructured (or its MarshalJSON, decoded). A string that is valid
// UTF-8 comes back from encoding to JSON and decoding unchanged, so the
// parsers below take it as is.

// convertQuantity is a resource.Quantity: its UnmarshalJSON strips the
// quotes of a string, trims spaces and parses; ToUnstructured is the
// canonical String.
func convertQuantity(v any) (any, bool) {
	var text string
	switch x := v.(type) {
	case string:
		if !jsonPlain(x) {
			// Escaped in JSON, and the escapes are what is parsed.
			return nil, false
		}
		text = x
	case int64:
		text = strconv.FormatInt(x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		b, err := json.Marshal(x)
		if err != nil {
			return nil, false
		}
		text = string(b)
	default:
		return nil, false
	}
	q, err := resource.ParseQuantity(strings.TrimSpace(text))
	if err != nil {
		return nil, false
	}
	return q.String(), true
}

// jsonPlain tells encoding/json writes s between quotes unchanged.
func jsonPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// convertTime is a metav1.Time: RFC 3339 in, RFC 3339 in UTC out, the zero
// time null.
func convertTime(v any) (any, bool) {
	s, ok := v.(string)
	if !ok || !utf8.ValidString(s) {
		return nil, false
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, false
	}
	// ToUnstructured: null for the zero time, else RFC 3339 in UTC; the
	// input itself when it is that already.
	t := metav1.NewTime(pt.Local())
	if t.IsZero() {
		return nil, true
	}
	var buf [len(time.RFC3339) + 16]byte
	b := t.UTC().AppendFormat(buf[:0], time.RFC3339)
	if string(b) == s {
		return v, true
	}
	return string(b), true
}

// convertMicroTime is a metav1.MicroTime: RFC 3339 with microseconds in
// and out (in UTC), the zero time null.
func convertMicroTime(v any) (any, bool) {
	s, ok := v.(string)
	if !ok || !utf8.ValidString(s) {
		return nil, false
	}
	pt, err := time.Parse(metav1.RFC3339Micro, s)
	if err != nil {
		return nil, false
	}
	t := metav1.NewMicroTime(pt.Local())
	if t.IsZero() {
		return nil, true
	}
	var buf [len(metav1.RFC3339Micro) + 16]byte
	b := t.UTC().AppendFormat(buf[:0], metav1.RFC3339Micro)
	if string(b) == s {
		return v, true
	}
	return string(b), true
}

// convertDuration is a metav1.Duration: a Go duration string in, its
// String out.
func convertDuration(v any) (any, bool) {
	s, ok := v.(string)
	if !ok || !utf8.ValidString(s) {
		return nil, false
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return nil, false
	}
	return metav1.Duration{Duration: d}.ToUnstructured(), true
}

// convertIntOrString is an intstr.IntOrString: a string stays a string; a
// number must decode into an int32 (a whole float within range does) and
// comes back int64.
func convertIntOrString(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return v, utf8.ValidString(x)
	case int64:
		if x < math.MinInt32 || x > math.MaxInt32 {
			return nil, false
		}
		return v, true
	case float64:
		if x != math.Trunc(x) || x < math.MinInt32 || x > math.MaxInt32 {
			return nil, false
		}
		return int64(x), true
	}
	return nil, false
}
