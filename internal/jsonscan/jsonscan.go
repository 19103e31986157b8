// Package jsonscan reads the common shapes of small JSON documents without
// reflection, for the fast paths that decode webhooks' answers. A Scanner
// accepts only a subset of JSON that it is sure to read as encoding/json
// does: strings without escapes or control characters, in valid UTF-8;
// integers without fraction, exponent or leading zeros; true, false, null;
// JSON white space (space, tab, newline, carriage return) between tokens.
// Whatever falls outside that subset makes a method report false, and the
// caller takes its faithful path.
package jsonscan

import (
	"bytes"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner reads one JSON document from its start.
type Scanner struct {
	data []byte
	pos  int
}

// New returns a Scanner at the start of data.
func New(data []byte) *Scanner {
	return &Scanner{data: data}
}

// Space skips JSON white space.
func (s *Scanner) Space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Consume skips white space and reads c, if it comes next.
func (s *Scanner) Consume(c byte) bool {
	s.Space()
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// End skips white space and tells whether that is the end of the document.
func (s *Scanner) End() bool {
	s.Space()
	return s.pos == len(s.data)
}

// Object reads {"key": value, ...}, calling member after each key's colon
// to read its value. Keys are read as Str reads strings.
func (s *Scanner) Object(member func(key []byte) bool) bool {
	if !s.Consume('{') {
		return false
	}
	if s.Consume('}') {
		return true
	}
	for {
		key, ok := s.Str()
		if !ok || !s.Consume(':') || !member(key) {
			return false
		}
		if s.Consume(',') {
			continue
		}
		return s.Consume('}')
	}
}

// Fields reads an object whose keys are among names (at most 64), each at
// most once, calling member with the key's index in names to read its
// value. An object with another key, or a key twice, is not read.
func (s *Scanner) Fields(names []string, member func(i int) bool) bool {
	var seen uint64
	return s.Object(func(key []byte) bool {
		for i, name := range names {
			if string(key) == name {
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				return member(i)
			}
		}
		return false
	})
}

// Array reads [value, ...], calling elem to read each value.
func (s *Scanner) Array(elem func() bool) bool {
	if !s.Consume('[') {
		return false
	}
	if s.Consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.Consume(',') {
			continue
		}
		return s.Consume(']')
	}
}

// Str reads a string without escapes or control characters, in valid
// UTF-8, and returns its content (a slice of the document).
func (s *Scanner) Str() ([]byte, bool) {
	if !s.Consume('"') {
		return nil, false
	}
	end := bytes.IndexByte(s.data[s.pos:], '"')
	if end < 0 {
		return nil, false
	}
	v := s.data[s.pos : s.pos+end]
	for _, c := range v {
		if c < 0x20 || c == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(v) {
		return nil, false
	}
	s.pos += end + 1
	return v, true
}

// EmptyObject reads {} (white space allowed), and nothing if it is not
// there.
func (s *Scanner) EmptyObject() bool {
	start := s.pos
	if s.Consume('{') && s.Consume('}') {
		return true
	}
	s.pos = start
	return false
}

// Null reads null, and nothing if it is not there.
func (s *Scanner) Null() bool {
	s.Space()
	if bytes.HasPrefix(s.data[s.pos:], []byte("null")) {
		s.pos += 4
		return true
	}
	return false
}

// Bool reads true or false.
func (s *Scanner) Bool() (value, ok bool) {
	s.Space()
	rest := s.data[s.pos:]
	switch {
	case bytes.HasPrefix(rest, []byte("true")):
		s.pos += 4
		return true, true
	case bytes.HasPrefix(rest, []byte("false")):
		s.pos += 5
		return false, true
	}
	return false, false
}

// Int32 reads an integer in int32's range: an optional minus and digits,
// without leading zeros (nor -0), fraction or exponent.
func (s *Scanner) Int32() (int32, bool) {
	s.Space()
	start := s.pos
	neg := s.pos < len(s.data) && s.data[s.pos] == '-'
	if neg {
		s.pos++
	}
	var n int64
	digits := 0
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		if digits == 10 {
			s.pos = start
			return 0, false
		}
		n = n*10 + int64(s.data[s.pos]-'0')
		digits++
		s.pos++
	}
	if digits == 0 || (digits > 1 && s.data[s.pos-digits] == '0') || (neg && n == 0) {
		s.pos = start
		return 0, false
	}
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '.', 'e', 'E':
			s.pos = start
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		s.pos = start
		return 0, false
	}
	return int32(n), true
}

// String reads a string as encoding/json decodes it (see Unquote).
func (s *Scanner) String() (string, bool) {
	v, ok := s.Unquote()
	return string(v), ok
}

// Unquote reads a string as encoding/json decodes it, in valid UTF-8,
// with the escapes \" \\ \/ \b \f \n \r \t and \uXXXX outside the
// surrogates; a string with any other escape (a surrogate, which
// encoding/json pairs or replaces) or a control character is not read. The
// content is a slice of the document when it has no escape.
func (s *Scanner) Unquote() ([]byte, bool) {
	start := s.pos
	if !s.Consume('"') {
		return nil, false
	}
	i := s.pos
	for i < len(s.data) && s.data[i] != '"' && s.data[i] != '\\' {
		i++
	}
	if i < len(s.data) && s.data[i] == '"' {
		// No escape: what Str reads.
		s.pos = start
		return s.Str()
	}
	out := make([]byte, 0, i-s.pos+16)
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			if !utf8.Valid(out) {
				s.pos = start
				return nil, false
			}
			s.pos++
			return out, true
		case c < 0x20:
			s.pos = start
			return nil, false
		case c != '\\':
			out = append(out, c)
			s.pos++
			continue
		}
		if s.pos+1 >= len(s.data) {
			break
		}
		e := s.data[s.pos+1]
		s.pos += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok || utf16.IsSurrogate(r) {
				s.pos = start
				return nil, false
			}
			out = utf8.AppendRune(out, r)
		default:
			s.pos = start
			return nil, false
		}
	}
	s.pos = start
	return nil, false
}

// hex4 reads the four hexadecimal digits of a \u escape.
func (s *Scanner) hex4() (rune, bool) {
	if len(s.data)-s.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.data[s.pos : s.pos+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	s.pos += 4
	return r, true
}
