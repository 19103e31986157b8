//go:build k8s138

package restvalidation

import (
	"context"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// declarative is what 1.38's registry does after the strategy's Validate or
// ValidateUpdate (rest.BeforeCreate, BeforeUpdate): the declarative
// validation of the v1 request's object (the handwritten validation of 1.38
// left some checks, such as a binding's policyName, to it).
func declarative(obj, old runtime.Object, errs field.ErrorList, resource string) field.ErrorList {
	verb, op := "create", operation.Create
	if old != nil {
		verb, op = "update", operation.Update
	}
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              verb,
		APIGroup:          "admissionregistration.k8s.io",
		APIVersion:        "v1",
		Resource:          resource,
	})
	return rest.DeclarativeValidation{Scheme: legacyscheme.Scheme}.ValidateDeclaratively(ctx, obj, old, errs, op, rest.DeclarativeValidationConfig{})
}
