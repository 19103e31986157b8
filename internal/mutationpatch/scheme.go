package mutationpatch

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// BuiltinGoType returns the Go type of the built-in kind gvk (a struct
// type), as kube-apiserver's scheme makes it, and whether gvk is one.
func BuiltinGoType(gvk schema.GroupVersionKind) (reflect.Type, bool) {
	tk, err := builtinTypes()
	if err != nil {
		return nil, false
	}
	t, ok := tk.scheme.AllKnownTypes()[gvk]
	return t, ok
}

// BuiltinKinds returns every built-in kind the scheme knows.
func BuiltinKinds() []schema.GroupVersionKind {
	tk, err := builtinTypes()
	if err != nil {
		return nil
	}
	out := make([]schema.GroupVersionKind, 0, len(tk.scheme.AllKnownTypes()))
	for gvk := range tk.scheme.AllKnownTypes() {
		out = append(out, gvk)
	}
	return out
}
