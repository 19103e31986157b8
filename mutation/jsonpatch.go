package mutation

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

// maxJSONPatchCopyBytes bounds the bytes a JSON patch's copy operations may
// add to a document, as kube-apiserver's generic server bounds them
// (JSONPatchMaxCopyBytes, 3 MiB, which it sets as json-patch's
// AccumulatedCopySizeLimit). Without it a few dozen copy operations, each
// doubling the document, would exhaust memory.
const maxJSONPatchCopyBytes = 3 << 20

// applyJSONPatch applies a JSON patch (RFC 6902, with the semantics of
// gopkg.in/evanphx/json-patch.v4 v4.13.0 that kube-apiserver uses) to the
// JSON of object, then decodes the result as kube-apiserver's patcher does:
// strictly into the Go type of a built-in kind (tk not nil), as unstructured
// content otherwise.
func applyJSONPatch(ops []byte, object map[string]any, gvk schema.GroupVersionKind, tk *typedKinds) (map[string]any, error) {
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
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	if tk == nil {
		u := &unstructured.Unstructured{}
		if _, _, err := builtinTypes().strict.Decode(patched, nil, u); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return u.Object, nil
	}
	into, err := tk.scheme.New(gvk)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, _, err := tk.strict.Decode(patched, nil, into)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(out)
}

// applyBounded applies p to doc as p.Apply does, with copy operations
// bounded to maxJSONPatchCopyBytes in all, as kube-apiserver bounds them.
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
			if doc, err = p[start:i].Apply(doc); err != nil {
				return nil, err
			}
		}
		sz := copySize(doc, op)
		if doc, err = p[i : i+1].Apply(doc); err != nil {
			return nil, err
		}
		copied += sz
		if copied > maxJSONPatchCopyBytes {
			return nil, jsonpatch.NewAccumulatedCopySizeError(maxJSONPatchCopyBytes, copied)
		}
		start = i + 1
	}
	if start == 0 {
		return p.Apply(doc)
	}
	if start < len(p) {
		return p[start:].Apply(doc)
	}
	return doc, nil
}

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
