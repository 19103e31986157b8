package authorizer

import (
	"bytes"
	"unicode/utf8"
)

// fastDecodeReview reads the usual answer of a webhook,
//
//	{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true,"reason":"..."}}
//
// without reflection. It accepts only what it is sure to read as
// decodeReviewBody does: the keys apiVersion, kind, status, and metadata and
// spec when empty, each at most once, with the expected values; in status
// the keys allowed and denied
// (true or false) and reason and evaluationError (strings without escapes,
// in valid UTF-8), each at most once; JSON white space anywhere. For
// anything else it reports false and the caller takes the faithful path.
func fastDecodeReview(body []byte, v1beta1 bool) (reviewStatus, bool) {
	apiVersion := "authorization.k8s.io/v1"
	if v1beta1 {
		apiVersion = "authorization.k8s.io/v1beta1"
	}
	p := fastParser{data: body}
	var st reviewStatus
	var seenAPIVersion, seenKind, seenStatus, seenMetadata, seenSpec bool
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "metadata":
			// Empty metadata, as encoding/json writes it for an answer built
			// from the API types (older versions write a null timestamp).
			if seenMetadata {
				return false
			}
			seenMetadata = true
			if p.emptyObject() {
				return true
			}
			return p.object(func(key []byte) bool {
				return string(key) == "creationTimestamp" && p.null()
			})
		case "spec":
			if seenSpec {
				return false
			}
			seenSpec = true
			return p.emptyObject()
		case "apiVersion":
			if seenAPIVersion {
				return false
			}
			seenAPIVersion = true
			v, ok := p.str()
			return ok && string(v) == apiVersion
		case "kind":
			if seenKind {
				return false
			}
			seenKind = true
			v, ok := p.str()
			return ok && string(v) == "SubjectAccessReview"
		case "status":
			if seenStatus {
				return false
			}
			seenStatus = true
			var seen [4]bool
			return p.object(func(key []byte) bool {
				var i int
				switch string(key) {
				case "allowed":
					i = 0
				case "denied":
					i = 1
				case "reason":
					i = 2
				case "evaluationError":
					i = 3
				default:
					return false
				}
				if seen[i] {
					return false
				}
				seen[i] = true
				switch i {
				case 0:
					b, ok := p.boolean()
					st.allowed = b
					return ok
				case 1:
					b, ok := p.boolean()
					st.denied = b
					return ok
				case 2:
					v, ok := p.str()
					st.reason = string(v)
					return ok
				}
				_, ok := p.str()
				return ok
			})
		}
		return false
	})
	if !ok {
		return reviewStatus{}, false
	}
	p.space()
	return st, p.pos == len(p.data)
}

type fastParser struct {
	data []byte
	pos  int
}

func (p *fastParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *fastParser) consume(c byte) bool {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// object reads {"key": value, ...}, calling member to read each value.
func (p *fastParser) object(member func(key []byte) bool) bool {
	if !p.consume('{') {
		return false
	}
	if p.consume('}') {
		return true
	}
	for {
		key, ok := p.str()
		if !ok || !p.consume(':') || !member(key) {
			return false
		}
		if p.consume(',') {
			continue
		}
		return p.consume('}')
	}
}

// str reads a string without escapes or control characters, in valid UTF-8.
func (p *fastParser) str() ([]byte, bool) {
	if !p.consume('"') {
		return nil, false
	}
	end := bytes.IndexByte(p.data[p.pos:], '"')
	if end < 0 {
		return nil, false
	}
	s := p.data[p.pos : p.pos+end]
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(s) {
		return nil, false
	}
	p.pos += end + 1
	return s, true
}

// emptyObject reads {} (white space allowed), and nothing if it is not there.
func (p *fastParser) emptyObject() bool {
	start := p.pos
	if p.consume('{') && p.consume('}') {
		return true
	}
	p.pos = start
	return false
}

func (p *fastParser) null() bool {
	p.space()
	if bytes.HasPrefix(p.data[p.pos:], []byte("null")) {
		p.pos += 4
		return true
	}
	return false
}

func (p *fastParser) boolean() (bool, bool) {
	p.space()
	rest := p.data[p.pos:]
	switch {
	case bytes.HasPrefix(rest, []byte("true")):
		p.pos += 4
		return true, true
	case bytes.HasPrefix(rest, []byte("false")):
		p.pos += 5
		return false, true
	}
	return false, false
}
