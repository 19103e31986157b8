package resources

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/internal/admissionpolicy"
	"github.com/gatehouse-dev/gatehouse/internal/crdschema"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Converter converts an object to another version of its kind: the
// Converter of packages mutation, validatingpolicy, admissionwebhook and
// admission.
type Converter = admissionpolicy.Converter

// NoneConverter converts the custom resources of CRDs whose conversion
// strategy is None as kube-apiserver 1.37 converts them for admission. It is
// immutable and safe for concurrent use.
type NoneConverter struct {
	// crds indexes the CRDs by group and kind, and by group and list kind.
	crds map[schema.GroupKind]*noneCRD
}

// noneCRD is what kube-apiserver's converter of a CRD keeps.
type noneCRD struct {
	name string
	// versions are every version of spec.versions, served or not
	// (apiextensions' validVersions).
	versions map[schema.GroupVersion]bool
}

// NewNoneConverter returns a converter of the custom resources of crds,
// each one apiextensions.k8s.io/v1 CustomResourceDefinition as YAML or JSON.
// A CRD whose spec.conversion.strategy is Webhook is an error (gatehouse
// does not call conversion webhooks), as are two CRDs of one kind.
func NewNoneConverter(crds ...[]byte) (*NoneConverter, error) {
	c := &NoneConverter{crds: map[schema.GroupKind]*noneCRD{}}
	for i, data := range crds {
		crd, err := crdschema.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("CRD %d: %w", i, err)
		}
		name := crd.Metadata.Name
		if name == "" {
			name = crd.Spec.Names.Plural + "." + crd.Spec.Group
		}
		strategy := "None" // the default of apiextensions.k8s.io/v1
		if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy != "" {
			strategy = crd.Spec.Conversion.Strategy
		}
		switch strategy {
		case "None":
		case "Webhook":
			return nil, fmt.Errorf("CRD %s: conversion strategy Webhook: gatehouse cannot call conversion webhooks; convert its resources with a Converter of your own", name)
		default:
			// apiextensions' NewConverter's text.
			return nil, fmt.Errorf("unknown conversion strategy %q for CRD %s", strategy, name)
		}
		n := &noneCRD{name: name, versions: map[schema.GroupVersion]bool{}}
		for _, v := range crd.Spec.Versions {
			n.versions[schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}] = true
		}
		listKind := crd.Spec.Names.ListKind
		if listKind == "" {
			listKind = crd.Spec.Names.Kind + "List"
		}
		for _, kind := range []string{crd.Spec.Names.Kind, listKind} {
			gk := schema.GroupKind{Group: crd.Spec.Group, Kind: kind}
			if other, ok := c.crds[gk]; ok {
				return nil, fmt.Errorf("CRD %s: kind %s is also the kind of CRD %s", name, gk, other.name)
			}
			c.crds[gk] = n
		}
	}
	return c, nil
}

// Convert returns obj converted to the version of to, as kube-apiserver's
// admission converts an object to the kind of an equivalent resource
// (admission.ConvertToGVK with the CRD's creator and safe converter):
//
//   - an object already of kind to is returned as it is (a copy);
//   - a CRD is chosen by the group and kind (or list kind) of to, else of
//     obj; neither is one of the converter's CRDs: an error (see Or);
//   - obj of another group: "<group>/<version>, Kind=<kind> is unstructured
//     and is not suitable for converting to "<group>/<version>"" (a
//     malformed apiVersion is the empty group, version and kind);
//   - to or obj of a version that is not in the CRD's spec.versions: "request
//     to convert CR to (from) an invalid group/version: <group>/<version>";
//     a version that is not served converts;
//   - else a copy of obj whose apiVersion and kind are to's, nothing else
//     changed (an object of a list kind is one object: its items keep
//     their apiVersion, as kube-apiserver's admission leaves them).
//
// A nil obj converts to nil. obj is not modified; it must hold JSON values
// only, as unstructured.Unstructured requires.
func (c *NoneConverter) Convert(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	return c.convert(obj, to, nil)
}

// Or returns a converter that converts the custom resources of c's CRDs with
// c and passes every other object (built-in kinds, aggregated APIs, CRDs
// with conversion webhooks) to next. A nil next is c.
func (c *NoneConverter) Or(next Converter) Converter {
	if next == nil {
		return c
	}
	return orConverter{c, next}
}

type orConverter struct {
	c    *NoneConverter
	next Converter
}

func (o orConverter) Convert(obj *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	return o.c.convert(obj, to, o.next)
}

func (c *NoneConverter) convert(obj *unstructured.Unstructured, to schema.GroupVersionKind, next Converter) (*unstructured.Unstructured, error) {
	if obj == nil {
		return nil, nil
	}
	from := obj.GroupVersionKind()
	// admission.ConvertToGVK: an object of the kind asked for is not
	// converted.
	if from == to {
		return obj.DeepCopy(), nil
	}
	crd := c.crds[to.GroupKind()]
	if crd == nil {
		crd = c.crds[from.GroupKind()]
	}
	if crd == nil {
		if next != nil {
			return next.Convert(obj, to)
		}
		return nil, fmt.Errorf("cannot convert %v to %v: neither kind is a custom resource of the converter's CRDs (built-in kinds need a converter of their own: NoneConverter.Or)", from, to)
	}
	// crConverter.ConvertToVersion with the target group version.
	target := to.GroupVersion()
	toGVK, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{from})
	if !ok {
		return nil, fmt.Errorf("%v is unstructured and is not suitable for converting to %q", from.String(), target)
	}
	if !crd.versions[toGVK.GroupVersion()] {
		return nil, fmt.Errorf("request to convert CR to an invalid group/version: %s", toGVK.GroupVersion().String())
	}
	if !crd.versions[from.GroupVersion()] {
		return nil, fmt.Errorf("request to convert CR from an invalid group/version: %s", from.GroupVersion().String())
	}
	// The safe converter's copy; nopConverter sets the apiVersion (keeping
	// the kind), then ConvertToGVK sets the kind asked for.
	out := obj.DeepCopy()
	if out.Object == nil {
		out.Object = map[string]any{}
	}
	out.SetGroupVersionKind(to)
	return out, nil
}
