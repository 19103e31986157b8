package policycheck

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// Options are what a check reads besides the policies and bindings.
type Options struct {
	// CRDs are CustomResourceDefinitions (apiextensions.k8s.io/v1, YAML or
	// JSON, one each): their resources are served, and their schemas type
	// the objects and params of their kinds.
	CRDs [][]byte
	// Params are the objects that bindings may take as params. Nil means
	// none were given: then no finding is made about params.
	Params []*unstructured.Unstructured
	// Kube is the kube-apiserver the policies are checked for; the zero
	// Target is the newest release. It decides the costs (cel-go 0.26's
	// before 1.37) and the built-in resources served (its version's).
	Kube kube.Target
}

// Prepare returns the kinds and params of o.
func (o Options) Prepare() (*Kinds, []Param, error) {
	kinds := NewKindsFor(o.Kube)
	var errs []error
	for i, crd := range o.CRDs {
		if err := kinds.AddCRD(crd); err != nil {
			errs = append(errs, fmt.Errorf("CRD %d: %w", i+1, err))
		}
	}
	var params []Param
	if o.Params != nil {
		params = make([]Param, 0, len(o.Params))
		for _, u := range o.Params {
			if u == nil {
				continue
			}
			params = append(params, Param{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()})
		}
	}
	return kinds, params, errors.Join(errs...)
}
