package mutation

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/gatehouse-dev/gatehouse/internal/builtinschema"
)

// JSONPatchMaxCopyBytes bounds the bytes that the copy operations of one JSON
// Patch may add to the object: kube-apiserver's generic server sets json-patch
// v4's process-wide limit to this value (its JSONPatchMaxCopyBytes) when it
// starts. gatehouse does not touch that package's globals: it applies a patch
// with copies one operation at a time and counts the bytes itself.
const JSONPatchMaxCopyBytes = 3 * 1024 * 1024

// applyJSONPatch applies a JSON Patch document to object as kube-apiserver's
// jsonPatcher does with gopkg.in/evanphx/json-patch.v4: a failed `test`
// discards the whole patch (object is returned as it is), any other failure
// is "JSON Patch: <the library's error>", and the patched document is
// decoded back, strictly for built-in kinds (their Go types in
// kube-apiserver; their schema here), an error being a 500.
func applyJSONPatch(patchJSON []byte, object map[string]any, sch *Schema, schemas *Schemas) (map[string]any, error) {
	ops, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	doc, err := json.Marshal(object)
	if err != nil {
		return nil, fmt.Errorf("failed to create JSON patch: %w", err)
	}
	patched, err := applyOperationsSafely(ops, doc)
	if err != nil {
		var status *apierrors.StatusError
		if errors.As(err, &status) {
			return nil, err
		}
		if errors.Is(err, jsonpatch.ErrTestFailed) {
			return object, nil
		}
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(patched, &out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if !sch.typedKind {
		// Decoded as unstructured content, which needs a kind.
		if kind, _ := out["kind"].(string); kind == "" {
			return nil, apierrors.NewInternalError(missingKindError(patched))
		}
		return out, nil
	}
	// Decoded into the kind's Go type: a patch that changes the kind to one
	// the scheme does not have fails (kube-apiserver names its scheme as a
	// build without source paths does); the fields are checked strictly.
	if err := kindChange(object, out, schemas); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if err := strictDecodeErrors(sch, out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}

// missingKindError is apimachinery's error for content without a kind.
func missingKindError(data []byte) error {
	//lint:ignore ST1005 apimachinery's text
	return fmt.Errorf("Object 'Kind' is missing in '%s'", data)
}

// kindChange is the decoding error of an object whose apiVersion or kind
// the patch changed to one that is not a built-in kind; nil when they did
// not change.
func kindChange(before, after map[string]any, schemas *Schemas) error {
	av, _ := after["apiVersion"].(string)
	k, _ := after["kind"].(string)
	if av == before["apiVersion"] && k == before["kind"] || k == "" {
		return nil
	}
	gv, err := schema.ParseGroupVersion(av)
	if err != nil {
		return err
	}
	if _, ok, _ := schemas.builtin.Lookup(builtinschema.GVK{Group: gv.Group, Version: gv.Version, Kind: k}); ok {
		return nil
	}
	return fmt.Errorf("no kind %q is registered for version %q in scheme %q", k, av, "pkg/api/legacyscheme/scheme.go:30")
}

// applyOperationsSafely is applyOperations, with json-patch's panics (a
// replace of the whole document without a value dereferences nil) turned
// into the 500 that kube-apiserver's handler answers a panicking request
// with.
func applyOperationsSafely(ops jsonpatch.Patch, doc []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, apierrors.NewInternalError(fmt.Errorf("JSON Patch: %v", r))
		}
	}()
	return applyOperations(ops, doc)
}

// applyOperations applies ops to doc. Without copies it is one
// Patch.Apply, as in kube-apiserver; with copies, one operation at a time,
// counting the bytes copied against JSONPatchMaxCopyBytes as json-patch does
// with its process-wide limit.
func applyOperations(ops jsonpatch.Patch, doc []byte) ([]byte, error) {
	hasCopy := false
	for _, op := range ops {
		if op.Kind() == "copy" {
			hasCopy = true
			break
		}
	}
	if !hasCopy {
		return ops.Apply(doc)
	}
	var copied int64
	for i, op := range ops {
		if op.Kind() == "copy" {
			n, err := copySize(op, doc)
			if err == nil {
				copied += n
				if copied > JSONPatchMaxCopyBytes {
					return nil, jsonpatch.NewAccumulatedCopySizeError(JSONPatchMaxCopyBytes, copied)
				}
			}
		}
		next, err := ops[i : i+1].Apply(doc)
		if err != nil {
			return nil, err
		}
		doc = next
	}
	return doc, nil
}

// copySize is the size of the JSON value that a copy operation copies from
// doc; an error when there is none (Apply then reports it).
func copySize(op jsonpatch.Operation, doc []byte) (int64, error) {
	from, err := op.From()
	if err != nil {
		return 0, err
	}
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		return 0, err
	}
	v, ok := pointerValue(root, from)
	if !ok {
		return 0, errors.New("missing")
	}
	b, err := json.Marshal(v)
	return int64(len(b)), err
}

// pointerValue resolves a JSON pointer in a decoded document.
func pointerValue(root any, pointer string) (any, bool) {
	if pointer == "" {
		return root, true
	}
	parts := strings.Split(pointer, "/")[1:]
	cur := root
	for _, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscanf(p, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// strictDecodeErrors reports what a strict JSON decoding of obj into its Go
// type would reject, found with the kind's schema: unknown fields
// (kube-apiserver: `strict decoding error: unknown field "spec.bogus"`) and
// values of the wrong JSON type.
func strictDecodeErrors(sch *Schema, obj map[string]any) error {
	s, tr := sch.pt.Schema, sch.pt.TypeRef
	var unknown []string
	var typeErr error
	var walk func(path string, tr smdschema.TypeRef, v any)
	walk = func(path string, tr smdschema.TypeRef, v any) {
		a, ok := s.Resolve(tr)
		if !ok || v == nil || typeErr != nil {
			return
		}
		if a.Scalar != nil && *a.Scalar == smdschema.Untyped {
			return // RawExtension, Quantity, IntOrString, deduced: any value
		}
		switch {
		case a.Map != nil:
			m, ok := v.(map[string]any)
			if !ok {
				typeErr = jsonTypeError(path, v, "object")
				return
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				child := k
				if path != "" {
					child = path + "." + k
				}
				if f, ok := a.Map.FindField(k); ok {
					walk(child, f.Type, m[k])
					continue
				}
				if len(a.Map.Fields) == 0 {
					walk(child, a.Map.ElementType, m[k]) // a map, not a struct
					continue
				}
				unknown = append(unknown, child)
			}
		case a.List != nil:
			l, ok := v.([]any)
			if !ok {
				typeErr = jsonTypeError(path, v, "array")
				return
			}
			for i, e := range l {
				walk(fmt.Sprintf("%s[%d]", path, i), a.List.ElementType, e)
			}
		case a.Scalar != nil:
			switch *a.Scalar {
			case smdschema.Numeric:
				switch v.(type) {
				case int64, float64, json.Number:
				default:
					typeErr = jsonTypeError(path, v, "number")
				}
			case smdschema.String:
				if _, ok := v.(string); !ok {
					typeErr = jsonTypeError(path, v, "string")
				}
			case smdschema.Boolean:
				if _, ok := v.(bool); !ok {
					typeErr = jsonTypeError(path, v, "bool")
				}
			}
		}
	}
	walk("", tr, obj)
	if typeErr != nil {
		return typeErr
	}
	if len(unknown) == 0 {
		return nil
	}
	msgs := make([]string, len(unknown))
	for i, u := range unknown {
		msgs[i] = fmt.Sprintf("unknown field %q", u)
	}
	return fmt.Errorf("strict decoding error: %s", strings.Join(msgs, ", "))
}

// jsonTypeError is the error of a value of the wrong JSON type, in the
// words of encoding/json.
func jsonTypeError(path string, v any, want string) error {
	var got string
	switch v.(type) {
	case string:
		got = "string"
	case bool:
		got = "bool"
	case int64, float64, json.Number:
		got = "number"
	case []any:
		got = "array"
	case map[string]any:
		got = "object"
	default:
		got = fmt.Sprintf("%T", v)
	}
	return fmt.Errorf("json: cannot unmarshal %s into Go struct field %s of type %s", got, path, want)
}
