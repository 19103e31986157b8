// Package manifest splits the YAML or JSON streams that kubectl apply -f
// reads into documents, as kubectl does, and hands each one on as JSON. The
// decoders of crdapproval and authorizer/rbac build on it.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode"

	"sigs.k8s.io/yaml"
)

// Documents calls add with each document of a YAML or JSON stream, in order:
// line is the line where the document's content starts (0 when not known),
// doc its JSON text, err what is wrong with it. Documents that hold nothing
// (blank lines and comments) are skipped; a document that is only a null is
// passed on as the JSON text "null".
//
// The input is a JSON stream if its first character that is not white space
// is "{" (one or more JSON objects one after the other), and a YAML stream
// otherwise:
//
//   - YAML documents are separated by a line that starts with "---", followed
//     by nothing but blanks or a comment. A "---" followed by anything else
//     is an error: kubectl would drop the rest of the line. A "..." line ends
//     a document, and anything but blanks and comments after it, before the
//     next "---", is an error (kubectl would not read it).
//   - Duplicate keys in a YAML document are an error. A JSON document is
//     passed on as it is: check duplicates when unmarshalling it.
//
// A JSON syntax error stops the stream, since nothing after it can be found
// again. Line numbers in YAML errors are lines of the whole input.
func Documents(data []byte, add func(line int, doc []byte, err error)) {
	if isJSONStream(data) {
		decodeJSONStream(data, add)
	} else {
		decodeYAMLStream(data, add)
	}
}

// isJSONStream reports whether the first character that is not white space
// (unicode.IsSpace) is "{", the test kubectl uses.
func isJSONStream(data []byte) bool {
	trimmed := bytes.TrimLeftFunc(data, unicode.IsSpace)
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// decodeJSONStream calls add with each value of a stream of JSON values.
func decodeJSONStream(data []byte, add func(line int, doc []byte, err error)) {
	// Start at the "{": the white space before it may be more than JSON's.
	skipped := int64(len(data) - len(bytes.TrimLeftFunc(data, unicode.IsSpace)))
	dec := json.NewDecoder(bytes.NewReader(data[skipped:]))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return
		}
		if err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				line, col := position(data, skipped+syntax.Offset)
				err = fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, syntax)
			}
			// The decoder cannot find the next value after an error.
			add(0, nil, err)
			return
		}
		start := skipped + dec.InputOffset() - int64(len(raw))
		line, _ := position(data, start+1)
		add(line, raw, nil)
	}
}

// position returns the 1-based line and column of the byte before offset
// (encoding/json's offsets count the bytes read, including the bad one).
func position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 1 {
		offset = 1
	}
	before := data[:offset-1]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(offset) - 1 - bytes.LastIndexByte(before, '\n')
	return line, col
}

// decodeYAMLStream splits a YAML stream into documents and calls add with
// each one that has content.
func decodeYAMLStream(data []byte, add func(line int, doc []byte, err error)) {
	doc := yamlDocument{firstLine: 1, start: 0, end: -1}
	lineNo := 0
	for offset := 0; offset < len(data); {
		lineNo++
		lineEnd := len(data)
		if i := bytes.IndexByte(data[offset:], '\n'); i >= 0 {
			lineEnd = offset + i + 1
		}
		line := data[offset:lineEnd]
		switch kind := classify(line); kind {
		case separatorLine, separatorWithContent:
			if doc.end < 0 {
				doc.end = offset
			}
			doc.finish(data, add)
			doc = yamlDocument{firstLine: lineNo + 1, start: lineEnd, end: -1}
			if kind == separatorWithContent {
				doc.contentLine = lineNo
				doc.err = errors.New(`a "---" document separator must stand alone on its line (a comment may follow it)`)
			}
		case endLine:
			if doc.end < 0 {
				doc.end = offset
			}
		case blankLine:
		default:
			if doc.end >= 0 && doc.err == nil {
				doc.err = fmt.Errorf(`line %d: content after the "..." document end marker, before the next "---"`, lineNo)
			}
			if doc.contentLine == 0 {
				doc.contentLine = lineNo
			}
		}
		offset = lineEnd
	}
	if doc.end < 0 {
		doc.end = len(data)
	}
	doc.finish(data, add)
}

// yamlDocument is one document of a YAML stream: data[start:end].
type yamlDocument struct {
	firstLine   int // line number of data[start]
	start, end  int // end is -1 until the document ends
	contentLine int // the first line that is not blank or a comment; 0 if none
	err         error
}

// finish decodes the document and hands it to add, unless it is empty.
func (d *yamlDocument) finish(data []byte, add func(int, []byte, error)) {
	if d.contentLine == 0 {
		return
	}
	if d.err != nil {
		add(d.contentLine, nil, d.err)
		return
	}
	// Blank lines in front of the text make the YAML parser's line numbers
	// those of the whole input; YAML ignores them. Then the lines go as
	// kubectl's document reader passes them on: each ends with "\n", a
	// "\r\n" ending becomes "\n", and the last line gets a "\n" if it has
	// none. That last one matters: a block scalar at the very end of the
	// input keeps it ("|" or ">" give "value\n").
	text := make([]byte, 0, d.firstLine+d.end-d.start)
	text = append(text, bytes.Repeat([]byte{'\n'}, d.firstLine-1)...)
	for rest := data[d.start:d.end]; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
			line = bytes.TrimSuffix(line, []byte{'\r'})
		} else {
			rest = nil
		}
		text = append(append(text, line...), '\n')
	}
	j, err := yaml.YAMLToJSONStrict(text)
	if err != nil {
		add(d.contentLine, nil, fmt.Errorf("invalid YAML: %w", err))
		return
	}
	add(d.contentLine, j, nil)
}

type lineKind uint8

const (
	contentLine          lineKind = iota
	blankLine                     // only blanks, or a comment
	separatorLine                 // "---", maybe with a comment
	separatorWithContent          // "---" followed by something else
	endLine                       // "...", maybe with a comment
)

func classify(line []byte) lineKind {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] == '#' {
		return blankLine
	}
	for _, m := range [...]struct {
		prefix           string
		plain, withOther lineKind
	}{
		{"---", separatorLine, separatorWithContent},
		{"...", endLine, contentLine},
	} {
		if !bytes.HasPrefix(line, []byte(m.prefix)) {
			continue
		}
		rest := bytes.TrimSpace(line[len(m.prefix):])
		if len(rest) == 0 || rest[0] == '#' {
			return m.plain
		}
		return m.withOther
	}
	return contentLine
}
