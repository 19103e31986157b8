package resources

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const widgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  versions:
  - {name: v1, served: true, storage: true}
  - {name: v1beta1, served: true, storage: false}
  - {name: v1alpha1, served: false, storage: false}
`

const gadgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Cluster
  names: {kind: Gadget, plural: gadgets}
  conversion: {strategy: None}
  versions:
  - {name: v2, served: true, storage: true}
`

func obj(apiVersion, kind string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": "w", "namespace": "ns"},
		"spec":     map[string]any{"size": int64(3)},
	}}
}

func TestNoneConverter(t *testing.T) {
	c, err := NewNoneConverter([]byte(widgetsCRD), []byte(gadgetsCRD))
	require.NoError(t, err)
	gvk := func(g, v, k string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: g, Version: v, Kind: k}
	}
	for _, tc := range []struct {
		name        string
		in          *unstructured.Unstructured
		to          schema.GroupVersionKind
		wantVersion string // apiVersion of the result
		wantKind    string
		wantErr     string
	}{
		{name: "to another version", in: obj("example.com/v1", "Widget"), to: gvk("example.com", "v1beta1", "Widget"), wantVersion: "example.com/v1beta1", wantKind: "Widget"},
		{name: "to an unserved version", in: obj("example.com/v1", "Widget"), to: gvk("example.com", "v1alpha1", "Widget"), wantVersion: "example.com/v1alpha1", wantKind: "Widget"},
		{name: "already there", in: obj("example.com/v1", "Widget"), to: gvk("example.com", "v1", "Widget"), wantVersion: "example.com/v1", wantKind: "Widget"},
		{name: "kind set to the target's", in: obj("example.com/v1", "Other"), to: gvk("example.com", "v1beta1", "Widget"), wantVersion: "example.com/v1beta1", wantKind: "Widget"},
		{name: "list kind", in: obj("example.com/v1", "WidgetList"), to: gvk("example.com", "v1beta1", "WidgetList"), wantVersion: "example.com/v1beta1", wantKind: "WidgetList"},
		{name: "default list kind", in: obj("example.com/v2", "GadgetList"), to: gvk("example.com", "v3", "GadgetList"), wantErr: "request to convert CR to an invalid group/version: example.com/v3"},
		{name: "unknown target version", in: obj("example.com/v1", "Widget"), to: gvk("example.com", "v9", "Widget"), wantErr: "request to convert CR to an invalid group/version: example.com/v9"},
		{name: "unknown source version", in: obj("example.com/v9", "Widget"), to: gvk("example.com", "v1", "Widget"), wantErr: "request to convert CR from an invalid group/version: example.com/v9"},
		{name: "other group", in: obj("other.io/v1", "Widget"), to: gvk("example.com", "v1", "Widget"), wantErr: `other.io/v1, Kind=Widget is unstructured and is not suitable for converting to "example.com/v1"`},
		{name: "malformed apiVersion", in: obj("a/b/c", "Widget"), to: gvk("example.com", "v1", "Widget"), wantErr: `/, Kind= is unstructured and is not suitable for converting to "example.com/v1"`},
		{name: "chosen by the object's kind", in: obj("example.com/v1", "Widget"), to: gvk("other.io", "v1", "Thing"), wantErr: `example.com/v1, Kind=Widget is unstructured and is not suitable for converting to "other.io/v1"`},
		{name: "versions of the target's CRD", in: obj("example.com/v1", "Widget"), to: gvk("example.com", "v2", "Gadget"), wantErr: "request to convert CR from an invalid group/version: example.com/v1"},
		{name: "built-in", in: obj("apps/v1", "Deployment"), to: gvk("apps", "v1beta1", "Deployment"), wantErr: "cannot convert apps/v1, Kind=Deployment to apps/v1beta1, Kind=Deployment: neither kind is a custom resource of the converter's CRDs (built-in kinds need a converter of their own: NoneConverter.Or)"},
		{name: "built-in already there", in: obj("apps/v1", "Deployment"), to: gvk("apps", "v1", "Deployment"), wantVersion: "apps/v1", wantKind: "Deployment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.DeepCopy()
			out, err := c.Convert(tc.in, tc.to)
			assert.Equal(t, before, tc.in, "the input is not modified")
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				assert.Nil(t, out)
				return
			}
			require.NoError(t, err)
			want := tc.in.DeepCopy()
			want.SetAPIVersion(tc.wantVersion)
			want.SetKind(tc.wantKind)
			assert.Equal(t, want, out)
			// The result shares nothing with the input.
			out.Object["spec"].(map[string]any)["size"] = int64(4)
			assert.Equal(t, before, tc.in)
		})
	}
}

func TestNoneConverterListItemsKeepTheirVersion(t *testing.T) {
	c, err := NewNoneConverter([]byte(widgetsCRD))
	require.NoError(t, err)
	list := obj("example.com/v1", "WidgetList")
	list.Object["items"] = []any{obj("example.com/v1", "Widget").Object}
	out, err := c.Convert(list, schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "WidgetList"})
	require.NoError(t, err)
	assert.Equal(t, "example.com/v1beta1", out.GetAPIVersion())
	assert.Equal(t, "example.com/v1", out.Object["items"].([]any)[0].(map[string]any)["apiVersion"])
}

func TestNoneConverterNil(t *testing.T) {
	c, err := NewNoneConverter()
	require.NoError(t, err)
	out, err := c.Convert(nil, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	assert.NoError(t, err)
	assert.Nil(t, out)
	out, err = c.Convert(&unstructured.Unstructured{}, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	assert.EqualError(t, err, "cannot convert /, Kind= to /v1, Kind=Pod: neither kind is a custom resource of the converter's CRDs (built-in kinds need a converter of their own: NoneConverter.Or)")
	assert.Nil(t, out)
}

func TestNoneConverterOr(t *testing.T) {
	c, err := NewNoneConverter([]byte(widgetsCRD))
	require.NoError(t, err)
	assert.Same(t, c, c.Or(nil))
	var calls []schema.GroupVersionKind
	next := ConverterFunc(func(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
		calls = append(calls, to)
		return nil, errors.New("next")
	})
	conv := c.Or(next)
	_, err = conv.Convert(obj("apps/v1", "Deployment"), schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"})
	assert.EqualError(t, err, "next")
	// Custom resources and objects already of the kind never reach next.
	out, err := conv.Convert(obj("example.com/v1", "Widget"), schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "Widget"})
	require.NoError(t, err)
	assert.Equal(t, "example.com/v1beta1", out.GetAPIVersion())
	_, err = conv.Convert(obj("example.com/v1", "Widget"), schema.GroupVersionKind{Group: "example.com", Version: "v7", Kind: "Widget"})
	assert.EqualError(t, err, "request to convert CR to an invalid group/version: example.com/v7")
	_, err = conv.Convert(obj("apps/v1", "Deployment"), schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	assert.NoError(t, err)
	assert.Equal(t, []schema.GroupVersionKind{{Group: "apps", Version: "v1beta2", Kind: "Deployment"}}, calls)
}

// ConverterFunc is the engines' adapter, declared here to keep the test
// free of them.
type ConverterFunc func(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error)

func (f ConverterFunc) Convert(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	return f(obj, to)
}

func TestNewNoneConverterErrors(t *testing.T) {
	webhook := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  conversion: {strategy: Webhook}
  versions: [{name: v1, served: true, storage: true}]
`
	unknown := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  conversion: {strategy: Magic}
  versions: [{name: v1, served: true, storage: true}]
`
	for _, tc := range []struct {
		name string
		crds []string
		want string
	}{
		{"webhook", []string{webhook}, "CRD things.example.com: conversion strategy Webhook: gatehouse cannot call conversion webhooks; convert its resources with a Converter of your own"},
		{"unknown strategy", []string{unknown}, `unknown conversion strategy "Magic" for CRD things.example.com`},
		{"same kind twice", []string{widgetsCRD, widgetsCRD}, "CRD widgets.example.com: kind Widget.example.com is also the kind of CRD widgets.example.com"},
		{"not a CRD", []string{"apiVersion: v1\nkind: Pod\n"}, `CRD 0: not an apiextensions.k8s.io/v1 CustomResourceDefinition: apiVersion "v1", kind "Pod"`},
		{"not YAML", []string{"{"}, "CRD 0: yaml: line 1: did not find expected node content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewNoneConverter(toBytes(tc.crds)...)
			assert.EqualError(t, err, tc.want)
			assert.Nil(t, c)
		})
	}
}

func toBytes(s []string) [][]byte {
	var out [][]byte
	for _, x := range s {
		out = append(out, []byte(x))
	}
	return out
}

func TestNoneConverterConcurrent(t *testing.T) {
	c, err := NewNoneConverter([]byte(widgetsCRD))
	require.NoError(t, err)
	in := obj("example.com/v1", "Widget")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				out, err := c.Convert(in, schema.GroupVersionKind{Group: "example.com", Version: "v1beta1", Kind: "Widget"})
				if assert.NoError(t, err) {
					out.SetName("changed")
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, "w", in.GetName())
}
