package crdapproval

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromUnstructured(t *testing.T) {
	base := func(mutate func(obj map[string]any)) map[string]any {
		obj := map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata": map[string]any{
				"name":        "foos.x.k8s.io",
				"annotations": map[string]any{AnnotationKey: approvedURL, "other": "x"},
			},
			"spec": map[string]any{"group": "x.k8s.io", "names": map[string]any{"plural": "foos"}},
		}
		if mutate != nil {
			mutate(obj)
		}
		return obj
	}
	meta := func(obj map[string]any) map[string]any { return obj["metadata"].(map[string]any) }
	annotations := func(obj map[string]any) map[string]any { return meta(obj)["annotations"].(map[string]any) }

	tests := []struct {
		name    string
		obj     map[string]any
		want    CRD
		wantErr string
	}{
		{
			name: "v1",
			obj:  base(nil),
			want: CRD{APIVersion: APIVersionV1, Name: "foos.x.k8s.io", Group: "x.k8s.io", Annotations: map[string]string{AnnotationKey: approvedURL, "other": "x"}},
		},
		{
			name: "v1beta1",
			obj:  base(func(o map[string]any) { o["apiVersion"] = "apiextensions.k8s.io/v1beta1" }),
			want: CRD{APIVersion: APIVersionV1beta1, Name: "foos.x.k8s.io", Group: "x.k8s.io", Annotations: map[string]string{AnnotationKey: approvedURL, "other": "x"}},
		},
		{
			name: "no metadata, no spec",
			obj:  base(func(o map[string]any) { delete(o, "metadata"); delete(o, "spec") }),
			want: CRD{APIVersion: APIVersionV1},
		},
		{
			name: "null metadata, annotations, group",
			obj: base(func(o map[string]any) {
				o["metadata"] = map[string]any{"name": nil, "annotations": nil}
				o["spec"] = map[string]any{"group": nil}
			}),
			want: CRD{APIVersion: APIVersionV1},
		},
		{
			name: "a null annotation value is empty",
			obj:  base(func(o map[string]any) { annotations(o)[AnnotationKey] = nil }),
			want: CRD{APIVersion: APIVersionV1, Name: "foos.x.k8s.io", Group: "x.k8s.io", Annotations: map[string]string{AnnotationKey: "", "other": "x"}},
		},
		{
			name: "empty annotations",
			obj:  base(func(o map[string]any) { meta(o)["annotations"] = map[string]any{} }),
			want: CRD{APIVersion: APIVersionV1, Name: "foos.x.k8s.io", Group: "x.k8s.io", Annotations: map[string]string{}},
		},
		{
			name: "unknown fields are not read",
			obj:  base(func(o map[string]any) { o["status"] = 3; o["Spec"] = "x"; meta(o)["labels"] = []any{1} }),
			want: CRD{APIVersion: APIVersionV1, Name: "foos.x.k8s.io", Group: "x.k8s.io", Annotations: map[string]string{AnnotationKey: approvedURL, "other": "x"}},
		},

		{name: "nil", obj: nil, wantErr: "no object"},
		{name: "no apiVersion", obj: base(func(o map[string]any) { delete(o, "apiVersion") }), wantErr: "apiVersion: required"},
		{name: "empty apiVersion", obj: base(func(o map[string]any) { o["apiVersion"] = "" }), wantErr: "apiVersion: required"},
		{name: "numeric apiVersion", obj: base(func(o map[string]any) { o["apiVersion"] = int64(1) }), wantErr: "apiVersion: must be a string, not a number (1)"},
		{name: "other apiVersion", obj: base(func(o map[string]any) { o["apiVersion"] = "apiextensions.k8s.io/v1alpha1" }),
			wantErr: `apiVersion: must be "apiextensions.k8s.io/v1" or "apiextensions.k8s.io/v1beta1", not "apiextensions.k8s.io/v1alpha1"`},
		{name: "apiVersion differs by case", obj: base(func(o map[string]any) { o["apiVersion"] = "apiextensions.k8s.io/V1" }),
			wantErr: `apiVersion: must be "apiextensions.k8s.io/v1" or "apiextensions.k8s.io/v1beta1", not "apiextensions.k8s.io/V1"`},
		{name: "no kind", obj: base(func(o map[string]any) { delete(o, "kind") }), wantErr: "kind: required"},
		{name: "other kind", obj: base(func(o map[string]any) { o["kind"] = "CustomResourceDefinitionList" }),
			wantErr: `kind: must be "CustomResourceDefinition", not "CustomResourceDefinitionList"`},
		{name: "kind is a boolean", obj: base(func(o map[string]any) { o["kind"] = true }), wantErr: "kind: must be a string, not a boolean (true)"},
		{name: "metadata is a string", obj: base(func(o map[string]any) { o["metadata"] = "x" }), wantErr: "metadata: must be an object, not a string"},
		{name: "name is a number", obj: base(func(o map[string]any) { meta(o)["name"] = 1.5 }), wantErr: "metadata.name: must be a string, not a number (1.5)"},
		{name: "annotations is an array", obj: base(func(o map[string]any) { meta(o)["annotations"] = []any{"a"} }),
			wantErr: "metadata.annotations: must be an object, not an array"},
		{name: "annotations of the wrong Go type", obj: base(func(o map[string]any) { meta(o)["annotations"] = map[string]string{"a": "b"} }),
			wantErr: "metadata.annotations: must be an object, not a value of Go type map[string]string"},
		{name: "approval is a number", obj: base(func(o map[string]any) { annotations(o)[AnnotationKey] = json.Number("1111") }),
			wantErr: "metadata.annotations[api-approved.kubernetes.io]: must be a string, not a number (1111)"},
		{name: "approval is a boolean", obj: base(func(o map[string]any) { annotations(o)[AnnotationKey] = true }),
			wantErr: "metadata.annotations[api-approved.kubernetes.io]: must be a string, not a boolean (true)"},
		{name: "approval is an object", obj: base(func(o map[string]any) { annotations(o)[AnnotationKey] = map[string]any{} }),
			wantErr: "metadata.annotations[api-approved.kubernetes.io]: must be a string, not an object"},
		{name: "two bad annotations: the first in order", obj: base(func(o map[string]any) { annotations(o)["z"] = 1; annotations(o)["b"] = 2; annotations(o)["y"] = 3 }),
			wantErr: "metadata.annotations[b]: must be a string, not a number (2)"},
		{name: "spec is an array", obj: base(func(o map[string]any) { o["spec"] = []any{} }), wantErr: "spec: must be an object, not an array"},
		{name: "group is a number", obj: base(func(o map[string]any) { o["spec"] = map[string]any{"group": int64(8)} }), wantErr: "spec.group: must be a string, not a number (8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromUnstructured(tt.obj)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				var de *DecodeError
				assert.True(t, errors.As(err, &de), "a *DecodeError")
				assert.Equal(t, CRD{}, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFromUnstructuredDoesNotModifyItsInput(t *testing.T) {
	obj := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"annotations": map[string]any{AnnotationKey: nil, "a": "b"}},
		"spec":       map[string]any{"group": "x.k8s.io"},
	}
	before, err := json.Marshal(obj)
	require.NoError(t, err)
	crd, err := FromUnstructured(obj)
	require.NoError(t, err)
	crd.Annotations["a"] = "changed"
	after, err := json.Marshal(obj)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after))
}

func TestDecodeErrorText(t *testing.T) {
	tests := []struct {
		err  DecodeError
		want string
	}{
		{DecodeError{Err: errors.New("bad")}, "bad"},
		{DecodeError{Field: "spec.group", Err: errors.New("bad")}, "spec.group: bad"},
		{DecodeError{Document: 2, Err: errors.New("bad")}, "document 2: bad"},
		{DecodeError{Document: 2, Line: 14, Field: "kind", Err: errors.New("bad")}, "document 2 (line 14): kind: bad"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
	inner := errors.New("inner")
	assert.ErrorIs(t, &DecodeError{Err: inner}, inner)
}
