package validatingpolicy

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/internal/manifest"
)

// Objects are the ValidatingAdmissionPolicies and
// ValidatingAdmissionPolicyBindings that Decode reads, in the order of the
// input, as admissionregistration.k8s.io/v1 objects with their defaults.
type Objects struct {
	Policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	Bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

const (
	kindPolicy  = "ValidatingAdmissionPolicy"
	kindBinding = "ValidatingAdmissionPolicyBinding"
)

// DecodeError says what is wrong with a document of a stream, and where.
type DecodeError = manifest.DecodeError

// KindError is the error of a document (or List item) that is neither a
// ValidatingAdmissionPolicy nor a ValidatingAdmissionPolicyBinding, such as
// a Deployment in a directory of manifests. Decode skips it; a caller that
// reads mixed manifests can find these errors with errors.As and ignore
// them.
type KindError struct {
	APIVersion, Kind string
}

func (e *KindError) Error() string {
	return fmt.Sprintf("unsupported kind %s %q: expected %s or %s (%s/v1, v1beta1 or v1alpha1) or a List of them", e.Kind, e.APIVersion, kindPolicy, kindBinding, admissionregistrationv1.GroupName)
}

// Decode reads the ValidatingAdmissionPolicies and
// ValidatingAdmissionPolicyBindings of a YAML or JSON stream, as kubectl
// apply -f reads a file (several documents, Lists, typed lists), in
// admissionregistration.k8s.io/v1, v1beta1 or v1alpha1 (whose fields are
// v1's), strictly, with kube-apiserver's defaults of their version
// (admissionmanifest.SetDefaultsValidatingAdmissionPolicy and
// SetDefaultsValidatingAdmissionPolicyBinding; a v1alpha1 paramRef's
// parameterNotFoundAction is Deny). A namespace is dropped, as
// kube-apiserver drops it for these cluster-scoped kinds. Decode does not
// validate: admissionmanifest.Validator does, as the REST API does.
//
// Every document is read even if an earlier one is bad: Decode returns the
// objects of the good documents and an error that joins one *DecodeError
// per bad document or item. Objects of other kinds are *KindError.
func Decode(data []byte) (*Objects, error) {
	out := &Objects{}
	gk := manifest.GroupKinds{Group: admissionregistrationv1.GroupName, Versions: []string{"v1", "v1beta1", "v1alpha1"}, Kinds: []string{kindPolicy, kindBinding}}
	kindErr := func(apiVersion, kind string) error { return &KindError{APIVersion: apiVersion, Kind: kind} }
	err := manifest.TypedObjects(data, gk, kindErr, func(kind, version string, doc []byte) error {
		v1 := metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: kind}
		switch kind {
		case kindPolicy:
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
			if err := manifest.UnmarshalStrict(doc, p); err != nil {
				return fmt.Errorf("%s: %w", kind, err)
			}
			p.TypeMeta, p.Namespace = v1, ""
			admissionmanifest.SetDefaultsValidatingAdmissionPolicy(p)
			out.Policies = append(out.Policies, p)
		case kindBinding:
			b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			if err := manifest.UnmarshalStrict(doc, b); err != nil {
				return fmt.Errorf("%s: %w", kind, err)
			}
			b.TypeMeta, b.Namespace = v1, ""
			admissionmanifest.SetDefaultsValidatingAdmissionPolicyBinding(b)
			if version == "v1alpha1" && b.Spec.ParamRef != nil && b.Spec.ParamRef.ParameterNotFoundAction == nil {
				b.Spec.ParamRef.ParameterNotFoundAction = new(admissionregistrationv1.DenyAction)
			}
			out.Bindings = append(out.Bindings, b)
		}
		return nil
	})
	return out, err
}
