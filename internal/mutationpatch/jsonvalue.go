package mutationpatch

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// maxValueDepth bounds the nesting of the JSON values and objects the fast
// JSON patch follows; deeper ones are left to the exact path.
const maxValueDepth = 1000

// valueDecoder decodes the JSON of a patch operation's value as the exact
// path's decoder decodes it in the patched document (sigs.k8s.io/json,
// strict, integers as int64 and other numbers as float64), or declines.
type valueDecoder struct {
	// canonical requires numbers written as encoding/json writes the
	// value they decode to: the JSON of the decoded value is then the
	// value's own, as the normalizer of built-in kinds assumes.
	canonical bool
	// raw keeps scalars as their JSON text (rawScalar), as json-patch's
	// test operation compares them.
	raw bool
	// altered, if not nil, is set when a string or number is not written
	// as encoding/json writes its value (json-patch's test operation
	// compares texts).
	altered *bool
}

// rawScalar is the JSON text of a string, number or boolean.
type rawScalar string

// decode returns the value of the JSON text b; false if it is not handled:
// invalid JSON, an object with a duplicate key (an error of strict
// decoding), a number out of float64's range (an error of decoding), or a
// non-canonical number when d.canonical.
func (d valueDecoder) decode(b []byte) (any, bool) {
	v, i, ok := d.value(b, skipSpace(b, 0), 0)
	if !ok || skipSpace(b, i) != len(b) {
		return nil, false
	}
	return v, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// value decodes the value starting at b[i]; it returns the index after it.
func (d valueDecoder) value(b []byte, i, depth int) (any, int, bool) {
	if i >= len(b) || depth > maxValueDepth {
		return nil, 0, false
	}
	switch c := b[i]; {
	case c == '{':
		return d.object(b, i+1, depth)
	case c == '[':
		return d.array(b, i+1, depth)
	case c == '"':
		end, ok := stringEnd(b, i)
		if !ok {
			return nil, 0, false
		}
		if d.raw {
			return rawScalar(b[i:end]), end, true
		}
		s, ok := unquote(b[i:end])
		if ok && d.altered != nil && !canonicalString(b[i:end], s) {
			*d.altered = true
		}
		return s, end, ok
	case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
		if d.raw {
			return rawScalar("true"), i + 4, true
		}
		return true, i + 4, true
	case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
		if d.raw {
			return rawScalar("false"), i + 5, true
		}
		return false, i + 5, true
	case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
		return nil, i + 4, true
	case c == '-' || c >= '0' && c <= '9':
		end := i + 1
		for end < len(b) && (b[end] >= '0' && b[end] <= '9' || b[end] == '.' || b[end] == 'e' || b[end] == 'E' || b[end] == '+' || b[end] == '-') {
			end++
		}
		if d.raw {
			return rawScalar(b[i:end]), end, true
		}
		v, ok := d.number(string(b[i:end]))
		return v, end, ok
	}
	return nil, 0, false
}

func (d valueDecoder) object(b []byte, i, depth int) (any, int, bool) {
	m := map[string]any{}
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return m, i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, 0, false
		}
		end, ok := stringEnd(b, i)
		if !ok {
			return nil, 0, false
		}
		k, ok := unquote(b[i:end])
		if !ok {
			return nil, 0, false
		}
		if _, dup := m[k]; dup {
			return nil, 0, false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, 0, false
		}
		var v any
		if v, i, ok = d.value(b, skipSpace(b, i+1), depth+1); !ok {
			return nil, 0, false
		}
		m[k] = v
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, 0, false
		}
		if b[i] == '}' {
			return m, i + 1, true
		}
		if b[i] != ',' {
			return nil, 0, false
		}
		i = skipSpace(b, i+1)
	}
}

func (d valueDecoder) array(b []byte, i, depth int) (any, int, bool) {
	s := []any{}
	i = skipSpace(b, i)
	if i < len(b) && b[i] == ']' {
		return s, i + 1, true
	}
	for {
		v, next, ok := d.value(b, i, depth+1)
		if !ok {
			return nil, 0, false
		}
		s = append(s, v)
		i = skipSpace(b, next)
		if i >= len(b) {
			return nil, 0, false
		}
		if b[i] == ']' {
			return s, i + 1, true
		}
		if b[i] != ',' {
			return nil, 0, false
		}
		i = skipSpace(b, i+1)
	}
}

// number decodes a JSON number as sigs.k8s.io/json does with PreserveInts:
// an int64 when it has no "." and fits, a float64 otherwise (out of range,
// an error).
func (d valueDecoder) number(s string) (any, bool) {
	var v any
	var canonical bool
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		v, canonical = i, strconv.FormatInt(i, 10) == s
	} else {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false
		}
		b, err := json.Marshal(f)
		v, canonical = f, err == nil && string(b) == s
	}
	if !canonical {
		if d.canonical {
			return nil, false
		}
		if d.altered != nil {
			*d.altered = true
		}
	}
	return v, true
}

// canonicalString tells q, a JSON string, is the text encoding/json writes
// for s, its value.
func canonicalString(q []byte, s string) bool {
	for _, c := range q[1 : len(q)-1] {
		if c == '\\' || c == '<' || c == '>' || c == '&' || c < 0x20 || c >= 0x80 {
			b, err := json.Marshal(s)
			return err == nil && bytes.Equal(b, q)
		}
	}
	return true
}

// stringEnd returns the index after the JSON string starting at b[i].
func stringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// unquote decodes the JSON string q (quotes included) as encoding/json
// does: escapes resolved, invalid UTF-8 and lone surrogates replaced.
func unquote(q []byte) (string, bool) {
	inner := q[1 : len(q)-1]
	plain := utf8.Valid(inner)
	for _, c := range inner {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return "", false
	}
	return s, true
}
