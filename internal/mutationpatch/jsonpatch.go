package mutationpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// MaxCopyBytes bounds the bytes a JSON patch's copy operations may
// add to a document, as kube-apiserver's generic server bounds them
// (JSONPatchMaxCopyBytes, 3 MiB, which it sets as json-patch's
// AccumulatedCopySizeLimit). Without it a few dozen copy operations, each
// doubling the document, would exhaust memory.
const MaxCopyBytes = 3 << 20

// JSONPatch applies a JSON patch (RFC 6902, with the semantics of
// gopkg.in/evanphx/json-patch.v4 v4.13.0 that kube-apiserver uses) to the
// JSON of object, of kind gvk, then decodes the result as kube-apiserver's
// patcher does: strictly into the Go type of a built-in kind, as
// unstructured content otherwise. A patch whose test operation fails leaves
// the object unchanged: object itself is returned, with no error. object is
// not modified, and a result other than object shares nothing with it (a
// webhook's Defaulter modifies it).
//
// Patches of add, replace, remove and test operations are applied without
// JSON when the outcome is certain (fastJSONPatch); the others through
// JSON, as kube-apiserver applies them.
func JSONPatch(ops []byte, object map[string]any, gvk schema.GroupVersionKind, builtin bool) (map[string]any, error) {
	tk, err := builtinTypes()
	if err != nil {
		return nil, err
	}
	if out, ok := tk.fastJSONPatch(ops, object, gvk, builtin); ok {
		return out, nil
	}
	return tk.exactJSONPatch(ops, object, gvk, builtin)
}

// exactJSONPatch is JSONPatch through JSON, as kube-apiserver does it:
// its results and errors are kube-apiserver's.
func (t *typedKinds) exactJSONPatch(ops []byte, object map[string]any, gvk schema.GroupVersionKind, builtin bool) (map[string]any, error) {
	p, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	doc, err := json.Marshal(object)
	if err != nil {
		return nil, fmt.Errorf("failed to create JSON patch: %w", err)
	}
	patched, err := applyBounded(p, doc)
	if err != nil {
		if errors.Is(err, jsonpatch.ErrTestFailed) {
			return object, nil
		}
		var pe *panicError
		if errors.As(err, &pe) {
			return nil, pe.StatusError
		}
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	if !builtin || !t.isTyped(gvk) {
		u := &unstructured.Unstructured{}
		if _, _, err := t.strict.Decode(patched, nil, u); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return u.Object, nil
	}
	out, err := t.decodeStrict(gvk, patched)
	if err != nil {
		// The error lists unknown fields in the document's order, which
		// is the Go type's field order where kube-apiserver encoded the
		// typed object: rebuild the document that way to say the same.
		if doc, derr := t.encode(gvk, object); derr == nil {
			if patched, perr := applyBounded(p, doc); perr == nil {
				if _, err2 := t.decodeStrict(gvk, patched); err2 != nil {
					err = err2
				}
			}
		}
		return nil, err
	}
	// dispatchOne converts the patcher's result to the admitted version,
	// which sets its apiVersion and kind.
	if out, err = t.scheme.UnsafeConvertToVersion(out, gvk.GroupVersion()); err != nil {
		return nil, err
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(out)
}

// decodeStrict is the JSON patcher's decoding of the patched document of a
// built-in kind: strict, into the kind's Go type; its errors are
// kube-apiserver's 500s.
func (t *typedKinds) decodeStrict(gvk schema.GroupVersionKind, doc []byte) (runtime.Object, error) {
	into, err := t.scheme.New(gvk)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, _, err := t.strict.Decode(doc, nil, into)
	if err != nil {
		return nil, apierrors.NewInternalError(KubeSchemeError(err, t.scheme))
	}
	return out, nil
}

// KubeSchemeError is err, an error of scheme s, as kube-apiserver writes
// it: a kind not registered names kube-apiserver's scheme (legacyscheme),
// not s.
func KubeSchemeError(err error, s *runtime.Scheme) error {
	if !runtime.IsNotRegisteredError(err) {
		return err
	}
	return errors.New(strings.Replace(err.Error(), fmt.Sprintf("in scheme %q", s.Name()), fmt.Sprintf("in scheme %q", kubeSchemeName), 1))
}

// kubeSchemeName is the name of kube-apiserver's scheme (legacyscheme) in
// its errors.
const kubeSchemeName = "pkg/api/legacyscheme/scheme.go:30"

// encode is the JSON of object as kube-apiserver encodes the typed object:
// fields in the Go type's order.
func (t *typedKinds) encode(gvk schema.GroupVersionKind, object map[string]any) ([]byte, error) {
	obj, err := t.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object, obj); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// applyBounded applies p to doc as p.Apply does, with copy operations
// bounded to MaxCopyBytes in all, as kube-apiserver bounds them.
// json-patch's own bound is a package variable, which a library must not
// set; so a patch with copy operations is applied in runs that end at each
// copy, and the size each copy adds is measured as json-patch measures it
// (the compact JSON of the copied value).
func applyBounded(p jsonpatch.Patch, doc []byte) ([]byte, error) {
	var copied int64
	start := 0
	for i, op := range p {
		if op.Kind() != "copy" {
			continue
		}
		var err error
		if i > start {
			if doc, err = apply(p[start:i], doc); err != nil {
				return nil, err
			}
		}
		sz := copySize(doc, op)
		if doc, err = apply(p[i:i+1], doc); err != nil {
			return nil, err
		}
		copied += sz
		if copied > MaxCopyBytes {
			return nil, jsonpatch.NewAccumulatedCopySizeError(MaxCopyBytes, copied)
		}
		start = i + 1
	}
	if start == 0 {
		return apply(p, doc)
	}
	if start < len(p) {
		return apply(p[start:], doc)
	}
	return doc, nil
}

// apply is p.Apply(doc), with json-patch's panics made errors: v4.13.0
// dereferences a nil value for a replace of the whole document ("path": "")
// without a value, and writes to a nil map after the whole document is
// replaced by null. In kube-apiserver the panic fails the request with a 500
// ("This request caused apiserver to panic"); here it is a 500 StatusError,
// which the dispatcher reports as kube-apiserver's 500s are, whatever the
// failure policy.
func apply(p jsonpatch.Patch, doc []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, &panicError{apierrors.NewInternalError(fmt.Errorf("JSON Patch: json-patch panicked: %v", r))}
		}
	}()
	return p.Apply(doc)
}

// panicError is the error of a patch that made json-patch panic: returned
// as it is, not wrapped as json-patch's errors are.
type panicError struct{ *apierrors.StatusError }

// ApplyJSON applies p to the JSON document doc as kube-apiserver's
// admission webhook dispatcher does (json-patch v4), its copy operations
// bounded to MaxCopyBytes in all. It returns the patched document; its
// errors are json-patch's (jsonpatch.ErrTestFailed among them), or an
// *apierrors.StatusError for a patch that made json-patch panic.
func ApplyJSON(p jsonpatch.Patch, doc []byte) ([]byte, error) {
	out, err := applyBounded(p, doc)
	var pe *panicError
	if errors.As(err, &pe) {
		return nil, pe.StatusError
	}
	return out, err
}

func (e *panicError) Unwrap() error { return e.StatusError }

// copySize is the size json-patch counts for a copy operation on doc: the
// length of the compact JSON of the value at its from path, found as
// json-patch finds it; 0 when there is none (the operation then fails or
// copies nothing).
func copySize(doc []byte, op jsonpatch.Operation) int64 {
	from, err := op.From()
	if err != nil {
		return 0
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return 0
	}
	split := strings.Split(from, "/")
	if len(split) < 2 {
		return 0
	}
	// json-patch ignores what precedes the first "/".
	for _, part := range split[1:] {
		key := unescapePointer(part)
		switch c := v.(type) {
		case map[string]any:
			v = c[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil {
				return 0
			}
			if i < 0 {
				i += len(c)
			}
			if i < 0 || i >= len(c) {
				return 0
			}
			v = c[i]
		default:
			return 0
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return int64(len(b))
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

func unescapePointer(s string) string { return pointerUnescaper.Replace(s) }
