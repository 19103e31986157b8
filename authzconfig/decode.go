package authzconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	before138 "github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/v1before138"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// Decode reads an AuthorizationConfiguration of apiserver.config.k8s.io
// v1alpha1, v1beta1 or v1, in YAML or JSON, exactly as kube-apiserver 1.37
// loads its --authorization-config file: strictly (unknown, duplicate and
// wrong-case fields are errors), with the version's defaults applied
// (authorizedTTL 5m and unauthorizedTTL 30s when zero, cache switches true
// when absent), and with kube-apiserver's error texts.
//
// Like kube-apiserver, Decode reads only the first YAML document and ignores
// any others; DecodeSingleDocument reports them instead. Empty data (nil or
// zero bytes) is not an error: it gives a configuration with no authorizers,
// which Validate rejects. Data of only whitespace or comments is an error
// (the kind is missing).
//
// Decode does no semantic validation: a configuration that decodes may still
// be invalid. Call Validate.
func Decode(data []byte) (*Configuration, error) {
	return DecodeFor(kube.Target{}, data)
}

// DecodeFor is Decode as the kube-apiserver of t decodes: 1.38 knows a
// webhook's conditionsReview (in v1), the versions before do not (an
// unknown field).
func DecodeFor(t kube.Target, data []byte) (*Configuration, error) {
	if cfg, ok := fastDecode(data); ok {
		return cfg, nil
	}
	return decodeExactFor(t, data)
}

// decodeExact is Decode step by step as kube-apiserver decodes, without the
// fast path for plain YAML.
func decodeExact(data []byte) (*Configuration, error) {
	return decodeExactFor(kube.Target{}, data)
}

func decodeExactFor(t kube.Target, data []byte) (*Configuration, error) {
	cfg, err := decodeSteps(t, data)
	var de *decodeError
	if errors.As(err, &de) && schemeName != kubeversions.SchemeName(t) {
		// kube-apiserver as t names its scheme otherwise.
		return nil, &decodeError{msg: strings.ReplaceAll(de.msg, `in scheme "`+schemeName+`"`, `in scheme "`+kubeversions.SchemeName(t)+`"`)}
	}
	return cfg, err
}

func decodeSteps(t kube.Target, data []byte) (*Configuration, error) {
	if len(data) == 0 {
		return &Configuration{}, nil
	}
	// kube-apiserver's decoder picks the serializer from the data: JSON when
	// the first non-space character is '{' (so flow-style YAML starting with
	// '{' is read as JSON), protobuf for its magic prefix, YAML otherwise.
	switch {
	case looksLikeJSON(data):
		return decodeDocument(t, data, data, nil)
	case hasProtobufPrefix(data):
		return decodeProtobuf(data)
	}
	jsonData, yamlStrictErr, err := yamlToJSON(data)
	if err != nil {
		return nil, err
	}
	return decodeDocument(t, data, jsonData, yamlStrictErr)
}

// DecodeSingleDocument is Decode, except that data holding more than one YAML
// document is an error instead of having all documents after the first
// ignored. Empty documents (a trailing "---", or documents of only comments)
// do not count.
func DecodeSingleDocument(data []byte) (*Configuration, error) {
	if cfg, ok := fastDecode(data); ok {
		// The fast path reads single documents only.
		return cfg, nil
	}
	cfg, err := decodeExact(data)
	if err != nil {
		return nil, err
	}
	if looksLikeJSON(data) || hasProtobufPrefix(data) {
		// JSON holds one value, or Decode failed; protobuf is one message.
		return cfg, nil
	}
	if err := checkSingleDocument(data); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Load reads the file at path and decodes it with Decode.
func Load(path string) (*Configuration, error) {
	return LoadFor(kube.Target{}, path)
}

// LoadFor reads the file at path and decodes it with DecodeFor.
func LoadFor(t kube.Target, path string) (*Configuration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeFor(t, data)
}

// schemeName is the name kube-apiserver's private scheme gives itself in its
// "not registered" errors (the source location where the scheme was created),
// up to 1.37; decodeExactFor puts the target's (kubeversions.SchemeName).
const schemeName = "pkg/runtime/scheme.go:111"

// looksLikeJSON reports whether kube-apiserver's JSON serializer claims the
// data: its first non-space character (Unicode spaces included) is '{'.
func looksLikeJSON(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{"))
}

// yamlToJSON converts YAML to JSON as kube-apiserver's YAML serializer does,
// parsing once in the common case: the strict conversion (duplicate keys are
// errors) gives the same JSON as the lenient one when it succeeds. When only
// the strict conversion fails, its error is a strict decoding error, reported
// later, and the lenient conversion's JSON is used.
func yamlToJSON(data []byte) (jsonData []byte, strictErr, err error) {
	jsonData, strictErr = yaml.YAMLToJSONStrict(data)
	if strictErr == nil {
		return jsonData, nil, nil
	}
	jsonData, err = yaml.YAMLToJSON(data)
	if err != nil {
		return nil, nil, err
	}
	return jsonData, strictErr, nil
}

// groupVersionKind is a parsed apiVersion and kind.
type groupVersionKind struct {
	group, version, kind string
}

func (g groupVersionKind) groupVersion() string {
	if g.group == "" {
		return g.version
	}
	return g.group + "/" + g.version
}

// interpret reads apiVersion and kind the way kube-apiserver does: with
// encoding/json (so the keys match case-insensitively, and the last of
// duplicate keys wins), then splitting apiVersion into group and version.
func interpret(jsonData []byte) (groupVersionKind, error) {
	var meta struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}
	if err := json.Unmarshal(jsonData, &meta); err != nil {
		return groupVersionKind{}, fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	g, err := interpretAPIVersion(meta.APIVersion)
	g.kind = meta.Kind
	return g, err
}

// interpretAPIVersion splits an apiVersion into group and version.
func interpretAPIVersion(gv string) (groupVersionKind, error) {
	switch strings.Count(gv, "/") {
	case 0:
		return groupVersionKind{version: gv}, nil
	case 1:
		if gv == "/" {
			return groupVersionKind{}, nil
		}
		i := strings.IndexByte(gv, '/')
		return groupVersionKind{group: gv[:i], version: gv[i+1:]}, nil
	}
	return groupVersionKind{}, fmt.Errorf("unexpected GroupVersion string: %v", gv)
}

// decodeDocument decodes JSON (converted from the YAML original when the
// input was YAML) whose apiVersion and kind are not yet known.
func decodeDocument(t kube.Target, original, jsonData []byte, yamlStrictErr error) (*Configuration, error) {
	gvk, err := interpret(jsonData)
	if err != nil {
		return nil, err
	}
	if gvk.kind == "" {
		return nil, &decodeError{msg: fmt.Sprintf("Object 'Kind' is missing in '%s'", original)}
	}
	if gvk.version == "" {
		return nil, &decodeError{msg: fmt.Sprintf("Object 'apiVersion' is missing in '%s'", original)}
	}
	target, err := targetFor(gvk)
	if err != nil {
		return nil, err
	}
	var strictErrs []error
	if yamlStrictErr != nil {
		strictErrs = append(strictErrs, yamlStrictErr)
	}
	if gvk.group == configGroup && gvk.kind == Kind && gvk.version == VersionV1 && !kubeversions.Has(t, kubeversions.AuthorizationConditionsReview) &&
		(bytes.Contains(jsonData, []byte("conditionsReview")) || bytes.Contains(jsonData, []byte(`\u`))) {
		// Before 1.38 the field is unknown: that version's errors.
		errs, err := kjson.UnmarshalStrict(jsonData, &before138.AuthorizationConfiguration{})
		if err != nil {
			return nil, err
		}
		if len(errs) > 0 {
			return nil, strictDecodingError(append(strictErrs, errs...))
		}
	}
	if target.into != nil {
		errs, err := kjson.UnmarshalStrict(jsonData, target.into)
		if err != nil {
			return nil, err
		}
		strictErrs = append(strictErrs, errs...)
	}
	return target.finish(strictErrs)
}

// strictDecodingError formats strict errors as kube-apiserver does.
func strictDecodingError(errs []error) error {
	var b strings.Builder
	b.WriteString("strict decoding error: ")
	for i, err := range errs {
		if i != 0 {
			b.WriteString(", ")
		}
		b.WriteString(err.Error())
	}
	return &decodeError{msg: b.String()}
}

// decodeError is an error whose text is kube-apiserver's.
type decodeError struct{ msg string }

func (e *decodeError) Error() string { return e.msg }

func notRegisteredError(gvk groupVersionKind) error {
	if gvk.version == internalVersion {
		return &decodeError{msg: fmt.Sprintf("no kind %q is registered for the internal version of group %q in scheme %q", gvk.kind, gvk.group, schemeName)}
	}
	return &decodeError{msg: fmt.Sprintf("no kind %q is registered for version %q in scheme %q", gvk.kind, gvk.groupVersion(), schemeName)}
}

func wrongKindError(goType string) error {
	return &decodeError{msg: "expected AuthorizationConfiguration, got " + goType}
}
