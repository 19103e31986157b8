package authzconfig

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/apiserver"
	wirev1 "github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/v1"
	"github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/v1alpha1"
	"github.com/gatehouse-dev/gatehouse/authzconfig/internal/wire/v1beta1"
)

// This file reproduces what kube-apiserver's private scheme for the file
// (k8s.io/apiserver/pkg/apis/apiserver/install) registers: which apiVersion
// and kind pairs decode at all, into what, and what the loader then says.

const (
	configGroup     = "apiserver.config.k8s.io"
	legacyGroup     = "apiserver.k8s.io"
	internalVersion = "__internal"
)

// target is what a registered kind decodes into, and what happens next.
type target struct {
	// into receives the JSON; nil when the kind's fields are not checked.
	into any
	// finish defaults and converts after a decoding without fatal errors,
	// given the strict errors (unknown and duplicate fields) found so far.
	finish func(strictErrs []error) (*Configuration, error)
}

func targetFor(gvk groupVersionKind) (target, error) {
	if gvk.group == configGroup && gvk.kind == Kind {
		switch gvk.version {
		case VersionV1:
			obj := &wirev1.AuthorizationConfiguration{}
			return target{obj, func(errs []error) (*Configuration, error) {
				return orStrictError(withDefaults(fromV1(obj)), errs)
			}}, nil
		case VersionV1Beta1:
			obj := &v1beta1.AuthorizationConfiguration{}
			return target{obj, func(errs []error) (*Configuration, error) {
				return orStrictError(withDefaults(fromV1Beta1(obj)), errs)
			}}, nil
		case VersionV1Alpha1:
			obj := &v1alpha1.AuthorizationConfiguration{}
			return target{obj, func(errs []error) (*Configuration, error) {
				return orStrictError(withDefaults(fromV1Alpha1(obj)), errs)
			}}, nil
		case internalVersion:
			// Decoded as is into the internal type: no defaults.
			obj := &apiserver.AuthorizationConfiguration{}
			return target{obj, func(errs []error) (*Configuration, error) {
				return orStrictError(fromInternal(obj), errs)
			}}, nil
		}
	}
	if t, ok := otherKind(gvk); ok {
		return t, nil
	}
	return target{}, notRegisteredError(gvk)
}

func orStrictError(cfg *Configuration, strictErrs []error) (*Configuration, error) {
	if len(strictErrs) > 0 {
		return nil, strictDecodingError(strictErrs)
	}
	return cfg, nil
}

// otherKind handles the kinds other than AuthorizationConfiguration that
// kube-apiserver's scheme knows. They decode, and the loader then rejects the
// result for its Go type.
func otherKind(gvk groupVersionKind) (target, bool) {
	if into, internalType := apiserverKind(gvk); into != nil {
		return target{into, func(errs []error) (*Configuration, error) {
			if len(errs) > 0 {
				return nil, strictDecodingError(errs)
			}
			return nil, wrongKindError("*apiserver." + internalType)
		}}, true
	}
	options, watchEvent := metaKinds(gvk.groupVersion())
	switch gvk.kind {
	case "ListOptions", "GetOptions", "DeleteOptions", "CreateOptions", "UpdateOptions", "PatchOptions":
		if options {
			// metav1's option kinds decode, but cannot be converted to an
			// internal version; that error wins over strict errors.
			into := newMetaOptions(gvk.kind)
			return target{into, func([]error) (*Configuration, error) {
				return nil, notRegisteredError(groupVersionKind{legacyGroup, internalVersion, gvk.kind})
			}}, true
		}
	case "WatchEvent":
		if watchEvent {
			var into any = &metav1.WatchEvent{}
			if gvk.version == internalVersion {
				into = &metav1.InternalEvent{}
			}
			return target{into, func(errs []error) (*Configuration, error) {
				if len(errs) > 0 {
					return nil, strictDecodingError(errs)
				}
				return nil, wrongKindError("*v1.InternalEvent")
			}}, true
		}
	}
	// metav1's unversioned kinds are found by kind alone, whatever the
	// apiVersion says.
	var into any
	switch gvk.kind {
	case "Status":
		into = &metav1.Status{}
	case "APIVersions":
		into = &metav1.APIVersions{}
	case "APIGroupList":
		into = &metav1.APIGroupList{}
	case "APIGroup":
		into = &metav1.APIGroup{}
	case "APIResourceList":
		into = &metav1.APIResourceList{}
	default:
		return target{}, false
	}
	return target{into, func(errs []error) (*Configuration, error) {
		if len(errs) > 0 {
			return nil, strictDecodingError(errs)
		}
		return nil, wrongKindError("*v1." + gvk.kind)
	}}, true
}

func newMetaOptions(kind string) any {
	switch kind {
	case "ListOptions":
		return &metav1.ListOptions{}
	case "GetOptions":
		return &metav1.GetOptions{}
	case "DeleteOptions":
		return &metav1.DeleteOptions{}
	case "CreateOptions":
		return &metav1.CreateOptions{}
	case "UpdateOptions":
		return &metav1.UpdateOptions{}
	default:
		return &metav1.PatchOptions{}
	}
}

// apiserverKind returns, for the other configuration kinds registered in
// the scheme, a value to decode into and the name of the internal Go type
// kube-apiserver converts them to; nil for other kinds.
func apiserverKind(gvk groupVersionKind) (any, string) {
	switch gvk.groupVersion() {
	case configGroup + "/" + VersionV1:
		switch gvk.kind {
		case "AdmissionConfiguration":
			return &wirev1.AdmissionConfiguration{}, gvk.kind
		case "AuthenticationConfiguration":
			return &wirev1.AuthenticationConfiguration{}, gvk.kind
		case "EncryptionConfiguration":
			return &wirev1.EncryptionConfiguration{}, gvk.kind
		case "TracingConfiguration":
			return &wirev1.TracingConfiguration{}, gvk.kind
		}
	case configGroup + "/" + VersionV1Beta1:
		switch gvk.kind {
		case "AuthenticationConfiguration":
			return &v1beta1.AuthenticationConfiguration{}, gvk.kind
		case "TracingConfiguration":
			return &v1beta1.TracingConfiguration{}, gvk.kind
		}
	case configGroup + "/" + VersionV1Alpha1:
		switch gvk.kind {
		case "AuthenticationConfiguration":
			return &v1alpha1.AuthenticationConfiguration{}, gvk.kind
		case "TracingConfiguration":
			return &v1alpha1.TracingConfiguration{}, gvk.kind
		}
	case configGroup + "/" + internalVersion:
		switch gvk.kind {
		case "AuthenticationConfiguration":
			return &apiserver.AuthenticationConfiguration{}, gvk.kind
		case "EncryptionConfiguration":
			return &apiserver.EncryptionConfiguration{}, gvk.kind
		case "TracingConfiguration":
			return &apiserver.TracingConfiguration{}, gvk.kind
		}
		fallthrough
	case legacyGroup + "/" + internalVersion:
		switch gvk.kind {
		case "AdmissionConfiguration":
			return &apiserver.AdmissionConfiguration{}, gvk.kind
		case "EgressSelectorConfiguration":
			return &apiserver.EgressSelectorConfiguration{}, gvk.kind
		}
	case legacyGroup + "/" + VersionV1Alpha1:
		switch gvk.kind {
		case "AdmissionConfiguration":
			return &v1alpha1.AdmissionConfiguration{}, gvk.kind
		case "EgressSelectorConfiguration":
			return &v1alpha1.EgressSelectorConfiguration{}, gvk.kind
		}
	case legacyGroup + "/" + VersionV1Beta1:
		if gvk.kind == "EgressSelectorConfiguration" {
			return &v1beta1.EgressSelectorConfiguration{}, gvk.kind
		}
	case VersionV1:
		// Registered in the core group too, under a misspelt kind.
		if gvk.kind == "EncryptionConfig" {
			return &wirev1.EncryptionConfiguration{}, "EncryptionConfiguration"
		}
	}
	return nil, ""
}

// metaKinds reports which of metav1's option kinds and WatchEvent the scheme
// registers in the group version: both in the external versions that
// install metav1, WatchEvent alone in the internal versions.
func metaKinds(groupVersion string) (options, watchEvent bool) {
	switch groupVersion {
	case configGroup + "/" + VersionV1, configGroup + "/" + VersionV1Alpha1,
		legacyGroup + "/" + VersionV1Alpha1, legacyGroup + "/" + VersionV1Beta1:
		return true, true
	case configGroup + "/" + internalVersion, legacyGroup + "/" + internalVersion:
		return false, true
	}
	return false, false
}
