package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// GroupKinds are the kinds of one API group that a decoder reads, in the
// versions it reads.
type GroupKinds struct {
	Group    string
	Versions []string
	Kinds    []string
}

// typeMeta is the apiVersion and kind of a document.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// version returns the version of an apiVersion of the group, or "".
func (g *GroupKinds) version(tm typeMeta) string {
	group, v, ok := strings.Cut(tm.APIVersion, "/")
	if !ok || group != g.Group || !slices.Contains(g.Versions, v) {
		return ""
	}
	return v
}

// list is a List or a typed list: its items are read afterwards.
type list struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ListMeta   `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

// TypedObjects reads the objects of the kinds gk names from a YAML or JSON
// stream, as kubectl apply -f reads a file: each document is an object, a
// List (apiVersion v1), whose items are read in order, or a typed list
// ("<Kind>List"), whose items may leave out their apiVersion and kind.
// decode is called with each object's kind, version and JSON; an object of
// another kind is the error kindErr returns. Every document is read even if
// an earlier one is bad; the errors are joined, each a *DecodeError.
func TypedObjects(data []byte, gk GroupKinds, kindErr func(apiVersion, kind string) error, decode func(kind, version string, doc []byte) error) error {
	return Objects(data, func(doc []byte) []*DecodeError { return gk.document(doc, kindErr, decode) })
}

func (gk *GroupKinds) document(doc []byte, kindErr func(apiVersion, kind string) error, decode func(kind, version string, doc []byte) error) []*DecodeError {
	var tm typeMeta
	if err := unmarshalLoose(doc, &tm); err != nil {
		return []*DecodeError{{Err: err}}
	}
	typedList := gk.version(tm) != "" && strings.HasSuffix(tm.Kind, "List") && slices.Contains(gk.Kinds, strings.TrimSuffix(tm.Kind, "List"))
	if !(tm.APIVersion == "v1" && tm.Kind == "List") && !typedList {
		if err := gk.object(doc, typeMeta{}, kindErr, decode); err != nil {
			return []*DecodeError{{Err: err}}
		}
		return nil
	}
	var l list
	if err := UnmarshalStrict(doc, &l); err != nil {
		return []*DecodeError{{Err: err}}
	}
	var itemType typeMeta
	if typedList {
		itemType = typeMeta{APIVersion: tm.APIVersion, Kind: strings.TrimSuffix(tm.Kind, "List")}
	}
	var errs []*DecodeError
	for i, item := range l.Items {
		if err := gk.object(item, itemType, kindErr, decode); err != nil {
			errs = append(errs, &DecodeError{Item: i + 1, Err: err})
		}
	}
	return errs
}

// object decodes one object; itemType is the type of a typed list's items,
// which may leave out their apiVersion and kind.
func (gk *GroupKinds) object(doc []byte, itemType typeMeta, kindErr func(apiVersion, kind string) error, decode func(kind, version string, doc []byte) error) error {
	var tm typeMeta
	if err := unmarshalLoose(doc, &tm); err != nil {
		return err
	}
	if itemType.Kind != "" {
		if tm.APIVersion == "" && tm.Kind == "" {
			tm = itemType
		} else if tm != itemType {
			return fmt.Errorf("a %s %q in a %sList %q", tm.Kind, tm.APIVersion, itemType.Kind, itemType.APIVersion)
		}
	}
	if tm.APIVersion == "" || tm.Kind == "" {
		return errors.New("apiVersion and kind are required")
	}
	version := gk.version(tm)
	if version == "" || !slices.Contains(gk.Kinds, tm.Kind) {
		return kindErr(tm.APIVersion, tm.Kind)
	}
	return decode(tm.Kind, version, doc)
}

// unmarshalLoose reads the type of a document; what else it holds is
// checked by UnmarshalStrict.
func unmarshalLoose(doc []byte, into any) error {
	if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, into); err != nil {
		return fmt.Errorf("not an object: %w", err)
	}
	return nil
}

// UnmarshalStrict decodes like kube-apiserver's strict field validation:
// case-sensitive, unknown and duplicate fields are errors.
func UnmarshalStrict(doc []byte, into any) error {
	strict, err := kjson.UnmarshalStrict(doc, into, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return errors.New("strict decoding error: " + strings.Join(msgs, ", "))
	}
	return nil
}
