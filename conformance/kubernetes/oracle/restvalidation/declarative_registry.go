//go:build !k8s135 && !k8s136

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

// declarative is what the registry of 1.37 and 1.38 does after the
// strategy's Validate or ValidateUpdate (rest.BeforeCreate, BeforeUpdate;
// every admission strategy embeds rest.DeclarativeValidation): the
// declarative validation of the v1 request's object, whose errors replace
// the handwritten ones they cover and come last (the handwritten errors pass
// through ErrorList.Filter, which reports identical ones once). 1.38's
// handwritten validation left some checks, such as a binding's policyName,
// to it.
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
