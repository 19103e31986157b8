package authzconfig

import "strings"

// This file is a parser for the plain subset of YAML in which configuration
// files are usually written: block mappings and sequences, one scalar per
// line (plain, or quoted without escapes), comments, printable ASCII only.
// It exists for speed. It never decides anything on its own: it reports
// whether the input is inside the subset, and anything outside (flow
// collections, anchors, tags, block scalars, multi-line scalars, several
// documents, tabs, non-ASCII, whatever it is unsure of) sends the input to
// the exact decoder, which follows kube-apiserver step by step. FuzzFastPath
// checks that the two agree wherever the fast path answers.

// yamlNode is a node of the subset: a mapping (keys in order, no
// duplicates), a sequence, or a scalar.
type yamlNode struct {
	kind   yamlKind
	scalar string
	// quoted reports a quoted scalar, which YAML never resolves to
	// anything but a string.
	quoted bool
	keys   []string
	values []*yamlNode
	items  []*yamlNode
}

type yamlKind uint8

const (
	yamlScalar yamlKind = iota
	yamlMapping
	yamlSequence
)

// value returns the value of a mapping's key, or nil.
func (n *yamlNode) value(key string) *yamlNode {
	for i, k := range n.keys {
		if k == key {
			return n.values[i]
		}
	}
	return nil
}

// yamlLine is a significant line: its indentation and its text after it.
type yamlLine struct {
	indent int
	text   string
}

// blockParser parses the subset; ok turns false, for good, on the first
// construct outside it.
type blockParser struct {
	lines []yamlLine
	pos   int
	ok    bool
}

// parseBlockYAML parses data if it is inside the subset. The document must
// be a mapping.
func parseBlockYAML(data []byte) (*yamlNode, bool) {
	p := &blockParser{ok: true}
	if !p.split(data) || len(p.lines) == 0 {
		return nil, false
	}
	root := p.mapping(p.lines[0].indent)
	if !p.ok || p.pos != len(p.lines) {
		return nil, false
	}
	return root, true
}

// split cuts the data into significant lines, leaving out blank lines and
// comment lines, and refusing any byte outside printable ASCII and '\n'.
func (p *blockParser) split(data []byte) bool {
	for _, c := range data {
		if (c < 0x20 || c > 0x7e) && c != '\n' {
			return false
		}
	}
	text := string(data)
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
		rest := line[indent:]
		if rest == "" || rest[0] == '#' {
			continue
		}
		if indent == 0 && (strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "...") || rest[0] == '%') {
			// A leading document start marker alone is fine; any other
			// marker or directive is not for the subset.
			if !first || rest != "---" {
				return false
			}
			first = false
			continue
		}
		first = false
		p.lines = append(p.lines, yamlLine{indent: indent, text: rest})
	}
	return true
}

func (p *blockParser) fail() *yamlNode {
	p.ok = false
	return nil
}

// mapping parses a block mapping whose keys are at the given indentation.
func (p *blockParser) mapping(indent int) *yamlNode {
	n := &yamlNode{kind: yamlMapping}
	for p.ok && p.pos < len(p.lines) {
		line := p.lines[p.pos]
		if line.indent < indent {
			break
		}
		if line.indent > indent || isSequenceItem(line.text) {
			return p.fail()
		}
		key, rest, ok := splitKey(line.text)
		if !ok || n.value(key) != nil {
			return p.fail()
		}
		p.pos++
		var value *yamlNode
		if rest == "" {
			value = p.nested(indent)
		} else {
			value = p.scalar(rest)
			if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
				// A continuation of a multi-line scalar, or an error.
				return p.fail()
			}
		}
		if value == nil {
			return p.fail()
		}
		n.keys = append(n.keys, key)
		n.values = append(n.values, value)
	}
	if len(n.keys) == 0 {
		return p.fail()
	}
	return n
}

// nested parses the block value of a key at the given indentation: a
// mapping or sequence indented more, or a sequence at the same indentation.
// A key without a value (null) is not for the subset.
func (p *blockParser) nested(indent int) *yamlNode {
	if p.pos == len(p.lines) {
		return p.fail()
	}
	next := p.lines[p.pos]
	switch {
	case next.indent > indent && isSequenceItem(next.text):
		return p.sequence(next.indent)
	case next.indent > indent:
		return p.mapping(next.indent)
	case next.indent == indent && isSequenceItem(next.text):
		return p.sequence(indent)
	}
	return p.fail()
}

func isSequenceItem(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ")
}

// sequence parses a block sequence of mappings whose dashes are at the
// given indentation.
func (p *blockParser) sequence(indent int) *yamlNode {
	n := &yamlNode{kind: yamlSequence}
	for p.ok && p.pos < len(p.lines) {
		line := p.lines[p.pos]
		if line.indent < indent || (line.indent == indent && !isSequenceItem(line.text)) {
			break
		}
		if line.indent > indent || line.text == "-" {
			return p.fail()
		}
		// "- key: value": the item is a mapping whose keys are at the
		// column of its first key.
		spaces := 1
		for spaces < len(line.text) && line.text[spaces] == ' ' {
			spaces++
		}
		first := yamlLine{indent: indent + spaces, text: line.text[spaces:]}
		if isSequenceItem(first.text) {
			return p.fail()
		}
		p.lines[p.pos] = first
		item := p.mapping(first.indent)
		if item == nil {
			return p.fail()
		}
		n.items = append(n.items, item)
	}
	return n
}

// splitKey splits "key: rest" or "key:" (rest then empty), with a plain key
// of letters and digits; a comment after the colon counts as no value.
func splitKey(text string) (key, rest string, ok bool) {
	i := 0
	for i < len(text) && (text[i] >= 'a' && text[i] <= 'z' || text[i] >= 'A' && text[i] <= 'Z' || i > 0 && text[i] >= '0' && text[i] <= '9') {
		i++
	}
	if i == 0 || i == len(text) || text[i] != ':' {
		return "", "", false
	}
	key, rest = text[:i], text[i+1:]
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

// scalar parses the scalar that makes up the rest of a line.
func (p *blockParser) scalar(text string) *yamlNode {
	switch c := text[0]; c {
	case '\'', '"':
		return p.quotedScalar(text, c)
	case '-':
		// Only as the sign of a number or duration.
		if len(text) < 2 || text[1] < '0' || text[1] > '9' {
			return p.fail()
		}
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`':
		return p.fail()
	}
	value := text
	if i := strings.Index(text, " #"); i >= 0 {
		value = text[:i]
	}
	value = strings.TrimRight(value, " ")
	if strings.Contains(value, ": ") || strings.HasSuffix(value, ":") {
		return p.fail()
	}
	return &yamlNode{kind: yamlScalar, scalar: value}
}

// quotedScalar parses a single- or double-quoted scalar that ends on its
// line; a double-quoted one may not hold escapes.
func (p *blockParser) quotedScalar(text string, quote byte) *yamlNode {
	var b strings.Builder
	i := 1
	for {
		j := strings.IndexByte(text[i:], quote)
		if j < 0 {
			return p.fail()
		}
		b.WriteString(text[i : i+j])
		i += j + 1
		if quote == '\'' && i < len(text) && text[i] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		break
	}
	if quote == '"' && strings.IndexByte(b.String(), '\\') >= 0 {
		return p.fail()
	}
	if rest := text[i:]; rest != "" {
		trimmed := strings.TrimLeft(rest, " ")
		if trimmed == rest || (trimmed != "" && trimmed[0] != '#') {
			return p.fail()
		}
	}
	return &yamlNode{kind: yamlScalar, scalar: b.String(), quoted: true}
}
