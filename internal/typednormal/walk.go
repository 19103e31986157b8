package typednormal

import (
	"encoding/base64"
	"math"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting the walk follows; deeper input is left to the
// exact round trip.
const maxDepth = 1000

// sizeHint is the size to make the output map of struct plan n with for
// input in: its fields always written, and at most one more per input key.
func (n *node) sizeHint(in map[string]any) int {
	return min(len(in)+n.alwaysWritten, len(n.fields)+len(in))
}

// fillStruct writes into out the fields of struct plan n read from in, as
// the converter's structFromUnstructured then structToUnstructured do;
// false if not handled. decoded: as decoding the JSON of in does instead
// (see NormalizeDecoded).
func (n *node) fillStruct(out, in map[string]any, depth int, decoded bool) bool {
	if decoded {
		if n.dupNames || n.inlinePointer {
			// encoding/json resolves names and allocates embedded
			// pointers its own way.
			return false
		}
		// The JSON of an unknown field must encode as the exact path
		// encodes it.
		for k, v := range in {
			if _, known := n.names[k]; !known && !marshalable(v, depth) {
				return false
			}
		}
	}
	return n.fill(out, in, depth, decoded)
}

// fill is fillStruct's work, for the fields of n and its inlined structs.
func (n *node) fill(out, in map[string]any, depth int, decoded bool) bool {
	if depth > maxDepth {
		return false
	}
	for i := range n.fields {
		f := &n.fields[i]
		if f.name == "" {
			if !f.node.fill(out, in, depth+1, decoded) {
				return false
			}
			continue
		}
		v, present := in[f.name]
		if decoded {
			v = jsonNull(v)
		}
		if v == nil {
			// Absent or null: the field holds its zero value.
			if !f.zeroOK || (decoded && present && f.node.nullFailsDecoding()) {
				return false
			}
			if f.zeroEmit {
				out[f.name] = copyZero(f.zero, f.zeroScalar)
			}
			continue
		}
		if f.skip {
			return false
		}
		o, empty, ok := f.node.convert(v, depth+1, decoded)
		if !ok {
			return false
		}
		if f.omitEmpty && empty {
			continue
		}
		if f.omitZero && o == nil {
			continue
		}
		out[f.name] = o
	}
	return true
}

// convert returns the converter's output for v, a non-nil unstructured
// value, held in a value of the type of plan n; empty tells the value is
// empty as omitempty means it (the converter's isEmpty); ok false if not
// handled. decoded: as decoding the JSON of v does instead.
func (n *node) convert(v any, depth int, decoded bool) (out any, empty, ok bool) {
	switch n.kind {
	case stringKind:
		s, ok := v.(string)
		if decoded && ok && !utf8.ValidString(s) {
			// JSON replaces invalid bytes.
			return nil, false, false
		}
		// v itself: the output is the same string, and reusing the
		// interface value saves boxing it again.
		return v, s == "", ok
	case boolKind:
		b, ok := v.(bool)
		return b, !b, ok
	case intKind:
		switch x := v.(type) {
		case int64:
			if x < n.min || x > n.max {
				return nil, false, false
			}
			return v, x == 0, true
		case float64:
			if decoded && (n.min == 0 || math.Abs(x) > 1<<53) {
				// JSON writes -0 for -0.0, which an unsigned
				// integer does not decode, and beyond 2^53 the
				// shortest digits of a float, not its value.
				return nil, false, false
			}
			// A whole float converts; out of range the conversion is
			// the platform's.
			if x != math.Trunc(x) || x < float64(n.min) || x >= float64(n.max)+1 {
				return nil, false, false
			}
			i := int64(x)
			return i, i == 0, true
		}
		return nil, false, false
	case floatKind:
		if decoded && n.float32 {
			// JSON parses the decimal as a float32 directly.
			return nil, false, false
		}
		var f float64
		switch x := v.(type) {
		case int64:
			f = float64(x)
			if n.float32 {
				f = float64(float32(x))
			}
		case float64:
			f = x
			if n.float32 {
				f = float64(float32(x))
			}
		default:
			return nil, false, false
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false, false
		}
		if x, same := v.(float64); same && x == f {
			return v, f == 0, true
		}
		return f, f == 0, true
	case bytesKind:
		return convertBytes(v)
	case pointerKind:
		o, _, ok := n.elem.convert(v, depth, decoded)
		return o, false, ok
	case sliceKind:
		x, ok := v.([]any)
		if !ok || depth > maxDepth {
			return nil, false, false
		}
		if x == nil {
			return nil, true, true
		}
		s := make([]any, len(x))
		for i, e := range x {
			if decoded {
				e = jsonNull(e)
			}
			if e == nil {
				if !n.elem.zeroOK || (decoded && n.elem.nullFailsDecoding()) {
					return nil, false, false
				}
				s[i] = copyZero(n.elem.zero, n.elem.zeroScalar)
				continue
			}
			if s[i], _, ok = n.elem.convert(e, depth+1, decoded); !ok {
				return nil, false, false
			}
		}
		return s, len(s) == 0, true
	case mapKind:
		x, ok := v.(map[string]any)
		if !ok || depth > maxDepth {
			return nil, false, false
		}
		if x == nil {
			return nil, true, true
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			if decoded {
				if !utf8.ValidString(k) {
					return nil, false, false
				}
				e = jsonNull(e)
			}
			if e == nil {
				if !n.elem.zeroOK || (decoded && n.elem.nullFailsDecoding()) {
					return nil, false, false
				}
				m[k] = copyZero(n.elem.zero, n.elem.zeroScalar)
				continue
			}
			o, _, ok := n.elem.convert(e, depth+1, decoded)
			if !ok {
				return nil, false, false
			}
			m[k] = o
		}
		return m, len(m) == 0, true
	case structKind:
		x, ok := v.(map[string]any)
		if !ok {
			return nil, false, false
		}
		m := make(map[string]any, n.sizeHint(x))
		if !n.fillStruct(m, x, depth, decoded) {
			return nil, false, false
		}
		return m, false, true
	case quantityKind:
		o, ok := convertQuantity(v)
		return o, false, ok
	case timeKind:
		o, ok := convertTime(v)
		return o, false, ok
	case microTimeKind:
		o, ok := convertMicroTime(v)
		return o, false, ok
	case durationKind:
		o, ok := convertDuration(v)
		return o, false, ok
	case intOrStringKind:
		o, ok := convertIntOrString(v)
		return o, false, ok
	case rawJSONKind:
		o, ok := jsonValue(v, depth)
		return o, false, ok
	case fieldsV1Kind:
		if _, isMap := v.(map[string]any); !isMap {
			return nil, false, false
		}
		o, ok := jsonValue(v, depth)
		return o, false, ok
	}
	return nil, false, false
}

// convertBytes is a []byte: the converter decodes a string as JSON does
// (standard base64) and writes the bytes back in standard base64.
func convertBytes(v any) (any, bool, bool) {
	s, ok := v.(string)
	if !ok {
		// A list of numbers converts element by element: left to the
		// exact round trip.
		return nil, false, false
	}
	if s == "" {
		return "", true, true
	}
	if !utf8.ValidString(s) {
		// JSON would replace the invalid bytes first.
		return nil, false, false
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, false, false
	}
	return base64.StdEncoding.EncodeToString(b), len(b) == 0, true
}

// jsonValue is v, any JSON value, encoded to JSON and decoded back with
// numbers as int64 if they are integers and float64 otherwise, as the
// converter does with a runtime.RawExtension or metav1.FieldsV1.
func jsonValue(v any, depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		return v, utf8.ValidString(x)
	case bool, int64:
		return v, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		// encoding/json writes a whole float below 1e21 with the
		// shortest digits that read back as it, without an exponent;
		// they decode as an integer if they fit in int64. Up to 2^53
		// they are the float's value.
		if x != math.Trunc(x) || math.Abs(x) >= 1e21 {
			return v, true
		}
		if math.Abs(x) <= 1<<53 {
			return int64(x), true
		}
		if i, err := strconv.ParseInt(strconv.FormatFloat(x, 'f', -1, 64), 10, 64); err == nil {
			return i, true
		}
		return x, true
	case map[string]any:
		if x == nil {
			return nil, true
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			if !utf8.ValidString(k) {
				return nil, false
			}
			o, ok := jsonValue(e, depth+1)
			if !ok {
				return nil, false
			}
			m[k] = o
		}
		return m, true
	case []any:
		if x == nil {
			return nil, true
		}
		s := make([]any, len(x))
		for i, e := range x {
			o, ok := jsonValue(e, depth+1)
			if !ok {
				return nil, false
			}
			s[i] = o
		}
		return s, true
	}
	return nil, false
}

// jsonNull is v as its JSON decodes: a nil map or slice is null.
func jsonNull(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return nil
		}
	case []any:
		if x == nil {
			return nil
		}
	}
	return v
}

// nullFailsDecoding tells a JSON null fails to decode into a value of n
// (where the converter makes it the zero value): metav1.Duration's
// UnmarshalJSON parses it as the empty duration.
func (n *node) nullFailsDecoding() bool {
	return n.kind == durationKind
}

// Marshalable tells whether encoding/json encodes v, an unstructured value,
// without error: JSON's types only, floats finite, at most 1000 levels
// deep.
func Marshalable(v any) bool { return marshalable(v, 0) }

func marshalable(v any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch x := v.(type) {
	case nil, string, bool, int64:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case map[string]any:
		for _, e := range x {
			if !marshalable(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !marshalable(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// copyZero returns zero, a zero value's output, copied unless scalar.
func copyZero(zero any, scalar bool) any {
	if scalar {
		return zero
	}
	return deepCopy(zero)
}

// DeepCopy copies an unstructured value (its maps and slices); values of
// other types are shared, as they are never modified.
func DeepCopy(v any) any { return deepCopy(v) }

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}
