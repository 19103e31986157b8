package admissionmanifest

import (
	"bytes"
	"strings"
)

// This file converts the plain subset of YAML in which manifests are
// usually written to JSON, for speed: block mappings and sequences,
// one-line flow sequences of scalars, "{}" and "[]", plain scalars that
// are unambiguously strings, integers, booleans or null, quoted scalars
// without escapes, comments, printable ASCII only. It never decides
// anything on its own: whatever lies outside the subset or could be read
// two ways (anchors, tags, block and multi-line scalars, YAML 1.1's other
// booleans, floats, octal and sexagesimal numbers, timestamps, tabs,
// duplicate keys, non-ASCII...) makes it give up, and the document goes to
// kube-apiserver's decoder. FuzzFastDecode checks that the two agree
// wherever the fast path answers.

type fastLine struct {
	indent int
	text   string
}

type fastYAML struct {
	lines []fastLine
	pos   int
	out   bytes.Buffer
	ok    bool
	// apiVersion and kind are the root mapping's, when plain strings.
	apiVersion, kind string
}

// plainYAMLToJSON converts a document in the subset, whose root is a
// mapping, and returns its apiVersion and kind.
func plainYAMLToJSON(doc []byte) (data []byte, apiVersion, kind string, ok bool) {
	p := &fastYAML{ok: true}
	if !p.split(doc) || len(p.lines) == 0 {
		return nil, "", "", false
	}
	p.out.Grow(len(doc) + len(doc)/4)
	p.mapping(p.lines[0].indent, true)
	if !p.ok || p.pos != len(p.lines) {
		return nil, "", "", false
	}
	return p.out.Bytes(), p.apiVersion, p.kind, true
}

// split cuts the document into significant lines: no blank or comment
// lines, a leading "---" dropped, any other marker or directive refused.
func (p *fastYAML) split(doc []byte) bool {
	for _, c := range doc {
		if (c < 0x20 || c > 0x7e) && c != '\n' {
			return false
		}
	}
	text := string(doc)
	first := true
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		rest := strings.TrimRight(line[indent:], " ")
		if rest == "" || rest[0] == '#' {
			continue
		}
		if indent == 0 && (strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "...") || rest[0] == '%') {
			if !first || rest != "---" {
				return false
			}
			first = false
			continue
		}
		first = false
		p.lines = append(p.lines, fastLine{indent: indent, text: rest})
	}
	return true
}

func (p *fastYAML) fail() { p.ok = false }

// mapping converts a block mapping whose keys are at indent.
func (p *fastYAML) mapping(indent int, root bool) {
	p.out.WriteByte('{')
	var keys []string
	for p.ok && p.pos < len(p.lines) {
		line := p.lines[p.pos]
		if line.indent < indent {
			break
		}
		if line.indent > indent || isFastSequenceItem(line.text) {
			p.fail()
			return
		}
		key, rest, ok := splitFastKey(line.text)
		if !ok {
			p.fail()
			return
		}
		for _, k := range keys {
			if k == key {
				p.fail()
				return
			}
		}
		keys = append(keys, key)
		if len(keys) > 1 {
			p.out.WriteByte(',')
		}
		writeJSONString(&p.out, key)
		p.out.WriteByte(':')
		p.pos++
		if rest == "" {
			p.nested(indent)
			continue
		}
		start := p.out.Len()
		p.scalarOrFlow(rest)
		if root && p.ok && (key == "apiVersion" || key == "kind") {
			s := p.out.Bytes()[start:]
			if len(s) < 2 || s[0] != '"' {
				p.fail()
				return
			}
			if key == "apiVersion" {
				p.apiVersion = string(s[1 : len(s)-1])
			} else {
				p.kind = string(s[1 : len(s)-1])
			}
		}
		if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
			// A continuation line of a multi-line scalar, or an error.
			p.fail()
			return
		}
	}
	if len(keys) == 0 {
		p.fail()
		return
	}
	p.out.WriteByte('}')
}

// nested converts the block value of a key at indent: a mapping or a
// sequence indented more, a sequence at the same indentation, or nothing
// (null).
func (p *fastYAML) nested(indent int) {
	if p.pos == len(p.lines) {
		p.out.WriteString("null")
		return
	}
	next := p.lines[p.pos]
	switch {
	case next.indent > indent && isFastSequenceItem(next.text):
		p.sequence(next.indent)
	case next.indent > indent:
		p.mapping(next.indent, false)
	case next.indent == indent && isFastSequenceItem(next.text):
		p.sequence(indent)
	default:
		p.out.WriteString("null")
	}
}

func isFastSequenceItem(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ")
}

// sequence converts a block sequence whose dashes are at indent; its items
// are scalars, flow collections or mappings.
func (p *fastYAML) sequence(indent int) {
	p.out.WriteByte('[')
	n := 0
	for p.ok && p.pos < len(p.lines) {
		line := p.lines[p.pos]
		if line.indent < indent || (line.indent == indent && !isFastSequenceItem(line.text)) {
			break
		}
		if line.indent > indent || line.text == "-" {
			p.fail()
			return
		}
		if n > 0 {
			p.out.WriteByte(',')
		}
		n++
		spaces := 1
		for spaces < len(line.text) && line.text[spaces] == ' ' {
			spaces++
		}
		item := line.text[spaces:]
		if isFastSequenceItem(item) {
			p.fail()
			return
		}
		if _, _, isKey := splitFastKey(item); isKey {
			// "- key: value": a mapping whose keys are at the column of
			// its first key.
			p.lines[p.pos] = fastLine{indent: indent + spaces, text: item}
			p.mapping(indent+spaces, false)
			continue
		}
		p.pos++
		p.scalarOrFlow(item)
		if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
			p.fail()
			return
		}
	}
	p.out.WriteByte(']')
}

// splitFastKey splits "key: rest" or "key:" (rest empty) for a plain key
// that YAML reads as a string, or a quoted key; a comment after the colon
// is no value.
func splitFastKey(text string) (key, rest string, ok bool) {
	var i int
	switch text[0] {
	case '"', '\'':
		s, n, ok := quotedFast(text)
		if !ok {
			return "", "", false
		}
		key, i = s, n
		if i >= len(text) || text[i] != ':' {
			return "", "", false
		}
	default:
		i = strings.IndexByte(text, ':')
		if i <= 0 || !isPlainFastString(text[:i], true) {
			return "", "", false
		}
		key = text[:i]
	}
	rest = text[i+1:]
	if rest == "" {
		return key, "", true
	}
	if rest[0] != ' ' {
		return "", "", false
	}
	rest = strings.TrimLeft(rest, " ")
	if rest == "" || rest[0] == '#' {
		return key, "", true
	}
	return key, rest, true
}

// scalarOrFlow converts the value that makes up the rest of a line.
func (p *fastYAML) scalarOrFlow(text string) {
	switch text[0] {
	case '[':
		p.flowSequence(text)
		return
	case '{':
		if stripFastComment(text) == "{}" {
			p.out.WriteString("{}")
			return
		}
		p.fail()
		return
	case '"', '\'':
		s, n, ok := quotedFast(text)
		if !ok || !fastLineEnd(text[n:]) {
			p.fail()
			return
		}
		writeJSONString(&p.out, s)
		return
	}
	p.plainScalar(stripFastComment(text))
}

// stripFastComment drops a trailing " # comment" and the spaces before it.
func stripFastComment(text string) string {
	if i := strings.Index(text, " #"); i >= 0 {
		text = text[:i]
	}
	return strings.TrimRight(text, " ")
}

// fastLineEnd: nothing, or spaces and a comment, after a value.
func fastLineEnd(rest string) bool {
	if rest == "" {
		return true
	}
	trimmed := strings.TrimLeft(rest, " ")
	return trimmed != rest && (trimmed == "" || trimmed[0] == '#')
}

// plainScalar converts a plain scalar: a decimal integer without leading
// zeros, true, false, null or ~, or a string that YAML cannot read as
// anything else.
func (p *fastYAML) plainScalar(s string) {
	switch {
	case s == "true" || s == "false":
		p.out.WriteString(s)
	case s == "null" || s == "Null" || s == "NULL" || s == "~":
		p.out.WriteString("null")
	case isFastInteger(s):
		p.out.WriteString(s)
	case isPlainFastString(s, false):
		writeJSONString(&p.out, s)
	default:
		p.fail()
	}
}

func isFastInteger(s string) bool {
	if s == "0" {
		return true
	}
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 15 || s[0] < '1' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// yaml11Words are the plain scalars YAML 1.1 (go.yaml.in/yaml/v2, which
// kube-apiserver reads with) resolves to booleans or null.
var yaml11Words = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "n": true, "N": true, "no": true, "No": true, "NO": true,
	"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true,
	"null": true, "Null": true, "NULL": true,
}

// isPlainFastString reports a plain scalar that YAML reads as this very
// string: it starts with a letter, holds only letters, digits and
// . _ / - (and, outside keys, spaces, ':' and the punctuation that a plain
// scalar may hold after its first character), has no ": " and no '#',
// does not end with ':' and is not a YAML 1.1 boolean or null.
func isPlainFastString(s string, key bool) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') || yaml11Words[s] {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '/', c == '-':
		case !key && strings.IndexByte(" @+=?&%~!*,;$()<>^|`", c) >= 0:
		case !key && c == ':':
			if i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// quotedFast reads a quoted scalar that ends on its line and returns its
// value and the length it took; a double-quoted one may not hold escapes.
func quotedFast(text string) (string, int, bool) {
	quote := text[0]
	if quote == '"' {
		j := strings.IndexByte(text[1:], '"')
		if j < 0 {
			return "", 0, false
		}
		s := text[1 : 1+j]
		if strings.IndexByte(s, '\\') >= 0 {
			return "", 0, false
		}
		return s, j + 2, true
	}
	var b strings.Builder
	i := 1
	for {
		j := strings.IndexByte(text[i:], '\'')
		if j < 0 {
			return "", 0, false
		}
		b.WriteString(text[i : i+j])
		i += j + 1
		if i < len(text) && text[i] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), i, true
	}
}

// flowSequence converts a one-line flow sequence of scalars: [a, "b", 'c'].
func (p *fastYAML) flowSequence(text string) {
	p.out.WriteByte('[')
	i := 1
	n := 0
	for {
		for i < len(text) && text[i] == ' ' {
			i++
		}
		if i >= len(text) {
			p.fail()
			return
		}
		if text[i] == ']' && n == 0 {
			i++
			break
		}
		if n > 0 {
			p.out.WriteByte(',')
		}
		n++
		switch text[i] {
		case '"', '\'':
			s, m, ok := quotedFast(text[i:])
			if !ok {
				p.fail()
				return
			}
			writeJSONString(&p.out, s)
			i += m
		default:
			j := i
			for j < len(text) && text[j] != ',' && text[j] != ']' {
				j++
			}
			item := strings.TrimRight(text[i:j], " ")
			if item == "" || strings.ContainsAny(item, "[]{}#\"':") {
				p.fail()
				return
			}
			p.plainScalar(item)
			if !p.ok {
				return
			}
			i = j
		}
		for i < len(text) && text[i] == ' ' {
			i++
		}
		if i >= len(text) {
			p.fail()
			return
		}
		if text[i] == ']' {
			i++
			break
		}
		if text[i] != ',' {
			p.fail()
			return
		}
		i++
	}
	if !fastLineEnd(text[i:]) {
		p.fail()
		return
	}
	p.out.WriteByte(']')
}

// writeJSONString writes a printable-ASCII string as a JSON string.
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	if !strings.ContainsAny(s, `"\\`) {
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
}
