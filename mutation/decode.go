package mutation

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	gk := manifest.GroupKinds{Group: group, Versions: decodedVersions, Kinds: []string{kindPolicy, kindBinding}}
	kindErr := func(apiVersion, kind string) error { return &KindError{APIVersion: apiVersion, Kind: kind} }
	err := manifest.TypedObjects(data, gk, kindErr, func(kind, version string, doc []byte) error {
		return decodeObject(kind, version, doc, out)
	})
	return out, err
}

// decodeObject decodes one object of a kind and version Decode reads.
func decodeObject(kind, version string, doc []byte, out *Objects) error {
	v1 := metav1.TypeMeta{APIVersion: group + "/v1", Kind: kind}
	switch kind {
	case kindPolicy:
		p := &admissionregistrationv1.MutatingAdmissionPolicy{}
		if err := manifest.UnmarshalStrict(doc, p); err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		p.TypeMeta = v1
		p.Namespace = ""
		SetDefaultsPolicy(p)
		out.Policies = append(out.Policies, p)
	case kindBinding:
		b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
		if err := manifest.UnmarshalStrict(doc, b); err != nil {
			return fmt.Errorf("%s: %w", kind, err)
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
