package crdapproval

import (
	"errors"
	"fmt"

	kjson "sigs.k8s.io/json"

	"github.com/gatehouse-dev/gatehouse/internal/manifest"
)

// Decode reads the CustomResourceDefinitions of a YAML or JSON stream, the
// way a file is given to kubectl apply -f, and returns them in stream order.
//
// The input is a JSON stream if its first character that is not white space
// is "{" (one or more
// JSON objects one after the other), and a YAML stream otherwise:
//
//   - YAML documents are separated by a line that starts with "---", followed
//     by nothing but blanks or a comment. A "---" followed by anything else
//     is an error: kubectl would drop the rest of the line. A "..." line ends
//     a document, and anything but blanks and comments after it, before the
//     next "---", is an error (kubectl would not read it).
//   - Documents that hold nothing (blank lines and comments) or only a null
//     are skipped and not counted; CRD.Document counts the others.
//   - Every other document must be a CRD (see FromUnstructured): a document
//     of another kind, a List, or a non-object is an error. Duplicate keys
//     are an error, as with kubectl's strict field validation. A JSON number
//     or boolean where a string belongs is an error, as it is for
//     kube-apiserver.
//
// Every document is decoded even if an earlier one is bad: Decode returns the
// CRDs of the good documents and, if any document is bad, an error that joins
// one *DecodeError per bad document (errors.As finds the first). A JSON syntax
// error stops the stream, since nothing after it can be found again. An input
// with no document at all is an error. Line numbers in YAML errors are lines
// of the whole input.
func Decode(data []byte) ([]CRD, error) {
	var (
		crds []CRD
		errs []error
		docs int
	)
	add := func(line int, object any, err error) {
		if err == nil && object == nil {
			return // an explicit null: an empty document
		}
		docs++
		if err != nil {
			errs = append(errs, &DecodeError{Document: docs, Line: line, Err: err})
			return
		}
		obj, ok := object.(map[string]any)
		if !ok {
			errs = append(errs, &DecodeError{Document: docs, Line: line, Err: fmt.Errorf("must be an object, not %s", jsonType(object))})
			return
		}
		crd, field, err := fromObject(obj)
		if err != nil {
			errs = append(errs, &DecodeError{Document: docs, Line: line, Field: field, Err: err})
			return
		}
		crd.Document, crd.Line = docs, line
		crds = append(crds, crd)
	}
	manifest.Documents(data, func(line int, doc []byte, err error) {
		if err != nil {
			add(line, nil, err)
			return
		}
		var object any
		strict, err := kjson.UnmarshalStrict(doc, &object, kjson.DisallowDuplicateFields)
		if err == nil && len(strict) > 0 {
			err = errors.Join(strict...)
		}
		if err == nil && object == nil {
			return // an explicit null: an empty document
		}
		add(line, object, err)
	})
	if docs == 0 {
		return nil, &DecodeError{Err: errors.New("no CustomResourceDefinition: the input holds no document")}
	}
	return crds, errors.Join(errs...)
}
