//go:build !k8s138

package restvalidation

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// declarative is the strategies' declarative validation: before 1.38 the
// handwritten validation keeps every error it covers, and its errors stand.
func declarative(_, _ runtime.Object, errs field.ErrorList, _ string) field.ErrorList {
	return errs
}
