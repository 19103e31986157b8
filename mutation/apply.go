package mutation

import (
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/internal/mutationpatch"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// JSONPatchMaxCopyBytes bounds the bytes that the copy operations of one JSON
// Patch may add to the object: kube-apiserver's generic server sets json-patch
// v4's process-wide limit to this value (its JSONPatchMaxCopyBytes) when it
// starts. gatehouse does not touch that package's globals: it applies a patch
// with copies in runs that end at each copy and counts the bytes as
// json-patch does.
const JSONPatchMaxCopyBytes = mutationpatch.MaxCopyBytes

// applyPatch applies one mutation's patch to object, unstructured content of
// kind gvk, and returns the object kube-apiserver holds afterwards, in
// unstructured form: for a built-in kind the result has been through the
// kind's Go type, as kube-apiserver's dispatcher converts it (see
// "Application" in the package documentation). object is not modified; the
// result may share unchanged content with it.
//
// A kind without a schema is kube-apiserver's 503 StatusError, for JSON
// patches too; a JSON patch whose result does not decode strictly into the
// built-in kind's Go type is its 500 StatusError; other errors are plain,
// with kube-apiserver's texts. A JSON patch whose `test` operation fails
// leaves the object unchanged: object itself is returned, with no error.
func applyPatch(p patch, object map[string]any, gvk schema.GroupVersionKind, schemas *Schemas) (map[string]any, error) {
	s, err := schemas.Lookup(gvk)
	if errors.Is(err, ErrNoSchema) {
		return nil, noSchemaError(gvk)
	}
	if err != nil {
		return nil, err
	}
	if p.jsonPatch != nil {
		return mutationpatch.JSONPatch(p.jsonPatch, object, gvk, s.typedKind)
	}
	return mutationpatch.ApplyConfiguration(p.applyConfiguration, object, gvk, s, s.typedKind)
}

// noSchemaError is kube-apiserver's error for a kind its type converters do
// not know.
func noSchemaError(gvk schema.GroupVersionKind) error {
	return apierrors.NewServiceUnavailable(fmt.Sprintf("Resource kind %s not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", gvk))
}

// normalizeObject returns object, unstructured content of kind gvk, as
// kube-apiserver holds it before the first mutation: an object of a
// built-in kind is held as its Go type, so what CEL sees (and what a JSON
// patch applies to) is the object converted to the Go type and back, with
// empty omitempty fields dropped, struct fields without omitempty added,
// quantities and times canonical. Custom resources and kinds without a
// schema are returned as they are. object is not modified.
func normalizeObject(object map[string]any, gvk schema.GroupVersionKind, schemas *Schemas) (map[string]any, error) {
	return schemas.Normalize(object, gvk)
}

// Normalize returns object, of kind gvk, as kube-apiserver holds it when it
// admits it: an object of a built-in kind converted to its Go type and back
// (empty optional fields dropped, fields without omitempty added,
// quantities and times canonical), which is what policies see and what the
// Dispatcher returns; custom resources and kinds without a schema as they
// are. object is not modified. A tool that compares an object with its
// admitted form compares the normalized one.
func (schemas *Schemas) Normalize(object map[string]any, gvk schema.GroupVersionKind) (map[string]any, error) {
	s, err := schemas.Lookup(gvk)
	if err != nil {
		return object, nil
	}
	return mutationpatch.Normalize(object, gvk, s.typedKind)
}
