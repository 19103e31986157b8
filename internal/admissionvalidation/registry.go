package admissionvalidation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// Registry is what kube-apiserver's registry does with a strategy's errors
// before it returns them (rest.BeforeCreate, BeforeUpdate): from 1.37
// (kubeversions.RESTDeclarativeValidation) they pass through
// ErrorList.Filter, which reports identical errors (by their text) once,
// keeping the first; the declarative validation's own errors, given as
// declarative, come after them. Before 1.37, errs and declarative as they
// are. From 1.38 (kubeversions.RESTDeclarativeGeneration) the error of a
// negative metadata.generation is the declarative validation's, first of its
// errors, unless generationKept (an update that keeps the generation, which
// the declarative validation does not revalidate).
func Registry(t kube.Target, errs, declarative field.ErrorList, generationKept bool) field.ErrorList {
	if !kubeversions.Has(t, kubeversions.RESTDeclarativeValidation) {
		return append(errs, declarative...)
	}
	moveGeneration := !generationKept && kubeversions.Has(t, kubeversions.RESTDeclarativeGeneration)
	var out, generation field.ErrorList
	seen := map[string]bool{}
	for _, e := range errs {
		text := e.Error()
		if seen[text] {
			continue
		}
		seen[text] = true
		if moveGeneration && e.Field == "metadata.generation" {
			generation = append(generation, e)
			continue
		}
		out = append(out, e)
	}
	return append(append(out, generation...), declarative...)
}
