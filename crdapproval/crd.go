package crdapproval

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The API versions of CustomResourceDefinition that the decoders accept.
const (
	// APIVersionV1 is the version that Kubernetes 1.16 and later serve.
	APIVersionV1 = "apiextensions.k8s.io/v1"
	// APIVersionV1beta1 was removed in Kubernetes 1.22. Its CRDs are still
	// decoded, and checked as a 1.37 cluster would check them once converted
	// to v1 (see the package documentation).
	APIVersionV1beta1 = "apiextensions.k8s.io/v1beta1"
)

// CRD is the part of a CustomResourceDefinition that the approval check reads.
// Pass its Group and Annotations to StateOf, ValidateCreate, ValidateUpdate
// or Condition.
type CRD struct {
	// APIVersion is APIVersionV1 or APIVersionV1beta1.
	APIVersion string
	// Name is metadata.name ("" if absent).
	Name string
	// Group is spec.group ("" if absent).
	Group string
	// Annotations is metadata.annotations (nil if absent). A null value
	// becomes "", as it does when kube-apiserver decodes it.
	Annotations map[string]string

	// Document is the 1-based position of the CRD's document in the stream
	// given to Decode, among the documents that are not empty; 0 from
	// FromUnstructured.
	Document int
	// Line is the line of the input where the document's content starts
	// (its first line that is not blank or a comment); 0 from
	// FromUnstructured.
	Line int
}

// DecodeError says what is wrong with an input, and where.
type DecodeError struct {
	// Document is the 1-based position of the document in the stream, or 0
	// for FromUnstructured.
	Document int
	// Line is the line where the document's content starts, or 0 if not
	// known (FromUnstructured, a JSON syntax error: its message has the
	// position).
	Line int
	// Field is the path of the bad field, such as
	// "metadata.annotations[api-approved.kubernetes.io]", or "" when the
	// document as a whole is bad (not YAML, not an object).
	Field string
	// Err is the problem.
	Err error
}

func (e *DecodeError) Error() string {
	msg := e.Err.Error()
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	switch {
	case e.Document > 0 && e.Line > 0:
		return fmt.Sprintf("document %d (line %d): %s", e.Document, e.Line, msg)
	case e.Document > 0:
		return fmt.Sprintf("document %d: %s", e.Document, msg)
	default:
		return msg
	}
}

func (e *DecodeError) Unwrap() error { return e.Err }

// FromUnstructured reads a CRD from unstructured content, the form of
// k8s.io/apimachinery's unstructured.Unstructured.Object and of JSON decoded
// into a map[string]any: apiVersion must be apiextensions.k8s.io/v1 or
// v1beta1 and kind CustomResourceDefinition; metadata, metadata.annotations
// and spec must be objects (or null or absent); metadata.name, spec.group and
// every annotation value must be strings (or null). Other fields are not
// read. A bad input gets a *DecodeError naming the field; the content is
// never modified.
func FromUnstructured(obj map[string]any) (CRD, error) {
	crd, field, err := fromObject(obj)
	if err != nil {
		return CRD{}, &DecodeError{Field: field, Err: err}
	}
	return crd, nil
}

// fromObject does the work of FromUnstructured and returns the bad field
// separately, so that Decode can add the document's position.
func fromObject(obj map[string]any) (crd CRD, badField string, err error) {
	if obj == nil {
		return CRD{}, "", fmt.Errorf("no object")
	}
	apiVersion, err := requiredString(obj, "apiVersion")
	if err != nil {
		return CRD{}, "apiVersion", err
	}
	kind, err := requiredString(obj, "kind")
	if err != nil {
		return CRD{}, "kind", err
	}
	goodVersion := apiVersion == APIVersionV1 || apiVersion == APIVersionV1beta1
	switch goodKind := kind == "CustomResourceDefinition"; {
	case !goodVersion && !goodKind:
		return CRD{}, "", fmt.Errorf("not a CustomResourceDefinition of apiextensions.k8s.io/v1 or v1beta1: apiVersion %q, kind %q", apiVersion, kind)
	case !goodVersion:
		return CRD{}, "apiVersion", fmt.Errorf("must be %q or %q, not %q", APIVersionV1, APIVersionV1beta1, apiVersion)
	case !goodKind:
		return CRD{}, "kind", fmt.Errorf("must be %q, not %q", "CustomResourceDefinition", kind)
	}
	crd.APIVersion = apiVersion

	metadata, err := optionalObject(obj, "metadata")
	if err != nil {
		return CRD{}, "metadata", err
	}
	if crd.Name, err = optionalString(metadata, "name"); err != nil {
		return CRD{}, "metadata.name", err
	}
	annotations, err := optionalObject(metadata, "annotations")
	if err != nil {
		return CRD{}, "metadata.annotations", err
	}
	if annotations != nil {
		crd.Annotations = make(map[string]string, len(annotations))
		badKey, badErr := "", error(nil)
		for k := range annotations {
			v, err := optionalString(annotations, k)
			if err != nil {
				// Report the first bad key in sorted order, so that the
				// error does not depend on map iteration.
				if badErr == nil || k < badKey {
					badKey, badErr = k, err
				}
				continue
			}
			crd.Annotations[k] = v
		}
		if badErr != nil {
			return CRD{}, "metadata.annotations[" + badKey + "]", badErr
		}
	}

	spec, err := optionalObject(obj, "spec")
	if err != nil {
		return CRD{}, "spec", err
	}
	if crd.Group, err = optionalString(spec, "group"); err != nil {
		return CRD{}, "spec.group", err
	}
	return crd, "", nil
}

func requiredString(obj map[string]any, key string) (string, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		return "", fmt.Errorf("required")
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("must be a string, not %s", jsonType(v))
	}
	if s == "" {
		return "", fmt.Errorf("required")
	}
	return s, nil
}

// optionalString reads obj[key] (obj may be nil); absent and null are "".
func optionalString(obj map[string]any, key string) (string, error) {
	v := obj[key]
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("must be a string, not %s", jsonType(v))
	}
	return s, nil
}

// optionalObject reads obj[key] (obj may be nil); absent and null are nil.
func optionalObject(obj map[string]any, key string) (map[string]any, error) {
	v := obj[key]
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be an object, not %s", jsonType(v))
	}
	return m, nil
}

// jsonType names the JSON type of a value of unstructured content.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean (" + strconv.FormatBool(v) + ")"
	case string:
		return "a string"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return fmt.Sprintf("a number (%v)", v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case json.Number:
		return "a number (" + v.String() + ")"
	default:
		return fmt.Sprintf("a value of Go type %T", v)
	}
}
