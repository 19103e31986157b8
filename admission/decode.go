package admission

import (
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/mutation"
	"github.com/gatehouse-dev/gatehouse/validatingpolicy"
)

// KindError is the error of a document (or List item) that is none of the
// kinds the chain is configured with, such as a Deployment in a directory of
// manifests: Decode skips it, and a caller that reads mixed manifests can
// find it with errors.As and ignore it.
type KindError struct {
	APIVersion, Kind string
}

func (e *KindError) Error() string {
	return fmt.Sprintf("unsupported kind %s %q: expected an admission policy or binding (admissionregistration.k8s.io/v1, v1beta1 or v1alpha1)", e.Kind, e.APIVersion)
}

// Decode reads the MutatingAdmissionPolicies, ValidatingAdmissionPolicies
// and their bindings of a YAML or JSON stream into a Config, as
// mutation.Decode and validatingpolicy.Decode read them (strictly, with
// their defaults). Webhook configurations are not read (they are
// KindErrors): Config's webhook fields take API objects with their
// defaults (admissionmanifest.SetDefaults). Every document is read even if
// an earlier one is bad; the error joins one *mutation.DecodeError per bad
// document or item, and a *KindError for each document of another kind.
func Decode(data []byte) (*Config, error) {
	m, merr := mutation.Decode(data)
	v, verr := validatingpolicy.Decode(data)
	cfg := &Config{MutatingPolicies: m.Policies, MutatingPolicyBindings: m.Bindings, ValidatingPolicies: v.Policies, ValidatingPolicyBindings: v.Bindings}
	// Each decoder refuses the other's kinds: a document both refuse for
	// its kind is of another kind; any other error is one decoder's own.
	vKinds := map[[2]int]bool{}
	var errs []error
	for _, e := range unjoin(verr) {
		var vk *validatingpolicy.KindError
		var de *mutation.DecodeError
		if errors.As(e, &vk) && errors.As(e, &de) {
			vKinds[[2]int{de.Document, de.Item}] = true
			continue
		}
		errs = append(errs, e)
	}
	for _, e := range unjoin(merr) {
		var mk *mutation.KindError
		var de *mutation.DecodeError
		if errors.As(e, &mk) && errors.As(e, &de) {
			if vKinds[[2]int{de.Document, de.Item}] {
				errs = append(errs, &mutation.DecodeError{Document: de.Document, Line: de.Line, Item: de.Item, Err: &KindError{APIVersion: mk.APIVersion, Kind: mk.Kind}})
			}
			continue
		}
		errs = append(errs, e)
	}
	return cfg, errors.Join(errs...)
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
