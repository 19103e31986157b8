package mutation

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	"github.com/gatehouse-dev/gatehouse/internal/manifest"
)

// Objects are the MutatingAdmissionPolicies and MutatingAdmissionPolicyBindings
// that Decode reads, in the order of the input, as
// admissionregistration.k8s.io/v1 objects with their defaults.
type Objects struct {
	Policies []*admissionregistrationv1.MutatingAdmissionPolicy
	Bindings []*admissionregistrationv1.MutatingAdmissionPolicyBinding
}

// The group and kinds Decode reads.
const (
	group       = admissionregistrationv1.GroupName
	kindPolicy  = "MutatingAdmissionPolicy"
	kindBinding = "MutatingAdmissionPolicyBinding"
	kindList    = "List"
)

// decodedVersions are the versions Decode reads: v1, and the prerelease
// versions that kube-apiserver 1.37 still serves when enabled (v1beta1
// until 1.40, v1alpha1 until 1.38). The three have the same fields with
// the same JSON names (k8s.io/api v0.37.2), so a document of any of them is
// decoded into the v1 type, which is what kube-apiserver's conversion
// through its internal version yields.
var decodedVersions = []string{"v1", "v1beta1", "v1alpha1"}

// DecodeError says what is wrong with a document of a stream, and where
// (File is not set by Decode).
type DecodeError = manifest.DecodeError

// KindError is the error of a document (or List item) that is neither a
// MutatingAdmissionPolicy nor a MutatingAdmissionPolicyBinding, such as a
// Deployment in a directory of manifests. Decode skips it and returns the
// other objects: a caller that reads mixed manifests can find these errors
// (errors.As on each error that the returned error joins, through its
// DecodeError) and ignore them.
type KindError struct {
	APIVersion, Kind string
}

func (e *KindError) Error() string {
	return fmt.Sprintf("unsupported kind %s %q: expected %s or %s (%s/v1, v1beta1 or v1alpha1) or a List of them", e.Kind, e.APIVersion, kindPolicy, kindBinding, group)
}

// Decode reads the MutatingAdmissionPolicies and
// MutatingAdmissionPolicyBindings of a YAML or JSON stream, as kubectl
// apply -f reads a file: several documents separated by "---", or JSON
// objects one after the other. A document may be a List (apiVersion v1),
// whose items are read in order, or a MutatingAdmissionPolicyList or
// MutatingAdmissionPolicyBindingList, whose items may leave out their
// apiVersion and kind.
//
// The objects may be of admissionregistration.k8s.io/v1, v1beta1 or
// v1alpha1; they are returned as v1 objects, with kube-apiserver's defaults
// of their version (see SetDefaultsPolicy, SetDefaultsBinding; v1alpha1
// also defaults a paramRef's parameterNotFoundAction to Deny) and their
// apiVersion and kind set to v1's. Decoding is strict, as kube-apiserver's
// strict field validation: unknown and duplicate fields, field names in the
// wrong case and values of the wrong type are errors. Both kinds are
// cluster-scoped: a namespace is dropped, as kube-apiserver drops it before
// it validates the object. Decode does not validate the objects: see
// Validator.
//
// Every document is read even if an earlier one is bad: Decode returns the
// objects of the good documents and an error that joins one *DecodeError
// per bad document or item. Objects of other kinds are *KindError.
func Decode(data []byte) (*Objects, error) {
	out := &Objects{}
	err := manifest.Objects(data, func(doc []byte) []*DecodeError { return decodeDocument(doc, out) })
	return out, err
}

// typeMeta is the apiVersion and kind of a document.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// version returns the version of an apiVersion of the group that Decode
// reads, or "".
func (tm typeMeta) version() string {
	g, v, ok := strings.Cut(tm.APIVersion, "/")
	if !ok || g != group {
		return ""
	}
	for _, d := range decodedVersions {
		if v == d {
			return v
		}
	}
	return ""
}

// list is a List or a typed list: its items are read afterwards.
type list struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ListMeta   `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

// decodeDocument decodes one document into out.
func decodeDocument(doc []byte, out *Objects) []*DecodeError {
	var tm typeMeta
	if err := unmarshalLoose(doc, &tm); err != nil {
		return []*DecodeError{{Err: err}}
	}
	typedList := tm.version() != "" && (tm.Kind == kindPolicy+"List" || tm.Kind == kindBinding+"List")
	if !(tm.APIVersion == "v1" && tm.Kind == kindList) && !typedList {
		if err := decodeObject(doc, typeMeta{}, out); err != nil {
			return []*DecodeError{{Err: err}}
		}
		return nil
	}
	var l list
	if err := unmarshalStrict(doc, &l); err != nil {
		return []*DecodeError{{Err: err}}
	}
	var itemType typeMeta
	if typedList {
		itemType = typeMeta{APIVersion: tm.APIVersion, Kind: strings.TrimSuffix(tm.Kind, "List")}
	}
	var errs []*DecodeError
	for i, item := range l.Items {
		if err := decodeObject(item, itemType, out); err != nil {
			errs = append(errs, &DecodeError{Item: i + 1, Err: err})
		}
	}
	return errs
}

// decodeObject decodes one object; itemType is the type of a typed list's
// items, which may leave out their apiVersion and kind.
func decodeObject(doc []byte, itemType typeMeta, out *Objects) error {
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
	version := tm.version()
	if version == "" || (tm.Kind != kindPolicy && tm.Kind != kindBinding) {
		return &KindError{APIVersion: tm.APIVersion, Kind: tm.Kind}
	}
	v1 := metav1.TypeMeta{APIVersion: group + "/v1", Kind: tm.Kind}
	switch tm.Kind {
	case kindPolicy:
		p := &admissionregistrationv1.MutatingAdmissionPolicy{}
		if err := unmarshalStrict(doc, p); err != nil {
			return fmt.Errorf("%s: %w", tm.Kind, err)
		}
		p.TypeMeta = v1
		p.Namespace = ""
		SetDefaultsPolicy(p)
		out.Policies = append(out.Policies, p)
	case kindBinding:
		b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
		if err := unmarshalStrict(doc, b); err != nil {
			return fmt.Errorf("%s: %w", tm.Kind, err)
		}
		b.TypeMeta = v1
		b.Namespace = ""
		if version == "v1alpha1" {
			setDefaultsBindingV1alpha1(b)
		} else {
			SetDefaultsBinding(b)
		}
		out.Bindings = append(out.Bindings, b)
	}
	return nil
}

// unmarshalLoose reads the type of a document; what else it holds is
// checked by unmarshalStrict.
func unmarshalLoose(doc []byte, into any) error {
	if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, into); err != nil {
		return fmt.Errorf("not an object: %w", err)
	}
	return nil
}

// unmarshalStrict decodes like kube-apiserver's strict field validation:
// case-sensitive, unknown and duplicate fields are errors.
func unmarshalStrict(doc []byte, into any) error {
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
