package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// DecodeError says what is wrong with a document of a stream, and where:
// the error type of the decoders built on Objects.
type DecodeError struct {
	// File is the file the stream was read from, "" when not from a file.
	File string
	// Document is the 1-based position of the document in the stream, among
	// the documents that are not empty; 0 when the stream as a whole is bad.
	Document int
	// Line is the line where the document's content starts, 0 if not known.
	Line int
	// Item is the 1-based position of the object in a List, 0 outside one.
	Item int
	// Err is the problem.
	Err error
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Document > 0 {
		fmt.Fprintf(&b, "document %d", e.Document)
		if e.Line > 0 {
			fmt.Fprintf(&b, " (line %d)", e.Line)
		}
		if e.Item > 0 {
			fmt.Fprintf(&b, ", items[%d]", e.Item-1)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Objects calls decode with each document of a YAML or JSON stream that is
// not empty nor null (see Documents), and returns the errors of the stream
// and of decode, joined, each a *DecodeError with the document's position
// and line.
func Objects(data []byte, decode func(doc []byte) []*DecodeError) error {
	var errs []error
	docs := 0
	Documents(data, func(line int, doc []byte, err error) {
		if err == nil && bytes.Equal(bytes.TrimSpace(doc), []byte("null")) {
			return
		}
		docs++
		if err != nil {
			errs = append(errs, &DecodeError{Document: docs, Line: line, Err: err})
			return
		}
		for _, e := range decode(doc) {
			e.Document, e.Line = docs, line
			errs = append(errs, e)
		}
	})
	return errors.Join(errs...)
}
