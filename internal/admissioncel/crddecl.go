package admissioncel

import (
	"reflect"
	"sort"

	"github.com/google/cel-go/common/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
	"github.com/gatehouse-dev/gatehouse/internal/crdschema"
)

// CRDDecl declares the CEL type kube-apiserver's type checker gives the
// objects of a custom resource version whose structural schema is root (nil
// for a version without one), under the name name: the type
// common.SchemaDeclType makes of the OpenAPI v3 kube-apiserver publishes for
// the version (references resolved), named as DeclType.MaybeAssignTypeName
// names it. The published schema is the structural schema with apiVersion
// and kind strings and metadata the whole ObjectMeta at the root and in
// every x-kubernetes-embedded-resource; a version without a schema is an
// object of apiVersion, kind and metadata.name and generateName. Then, as
// SchemaDeclType does: x-kubernetes-int-or-string is dyn; an object with an
// additionalProperties schema is a map, other objects have their properties
// (those whose types are declared, names escaped); string formats byte,
// date, date-time and duration are bytes, timestamps and durations; a
// schema without a type, an array without items, and a list or map of
// undeclared elements are not declared (nil, and the property is left
// out).
func CRDDecl(root *crdschema.Props, name string) *celdecl.Decl {
	if root == nil {
		return celdecl.ObjectDecl(name,
			Declared("apiVersion", stringDecl),
			Declared("kind", stringDecl),
			Declared("metadata", celdecl.ObjectDecl(name+".metadata", Declared("generateName", stringDecl), Declared("name", stringDecl))),
		)
	}
	return crdDecl(root, name, true)
}

var objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()

func crdDecl(p *crdschema.Props, path string, resource bool) *celdecl.Decl {
	if p.IntOrString {
		return celdecl.ScalarDecl(types.DynType)
	}
	switch p.Type {
	case "array":
		if p.Items == nil {
			return nil
		}
		elem := crdDecl(p.Items, path+".@idx", p.Items.EmbeddedResource)
		if elem == nil {
			return nil
		}
		return celdecl.ListDecl(elem)
	case "object":
		if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil {
			ap := p.AdditionalProperties.Schema
			elem := crdDecl(ap, path+".@elem", ap.EmbeddedResource)
			if elem == nil {
				return nil
			}
			return celdecl.MapDecl(stringDecl, elem)
		}
		names := make([]string, 0, len(p.Properties)+3)
		for n := range p.Properties {
			if !resource || (n != "apiVersion" && n != "kind" && n != "metadata") {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		var fields []celdecl.DeclField
		if resource {
			fields = append(fields,
				Declared("apiVersion", stringDecl),
				Declared("kind", stringDecl),
				Declared("metadata", GoTypeDecl(objectMetaType, path+".metadata")),
			)
		}
		for _, n := range names {
			escaped, ok := EscapeFieldName(n)
			if !ok {
				continue
			}
			prop := p.Properties[n]
			d := crdDecl(&prop, path+"."+escaped, prop.EmbeddedResource)
			if d == nil {
				continue
			}
			fields = append(fields, Declared(escaped, d))
			if escaped != n && celReservedWord(n) {
				fields = append(fields, Declared(n, d))
			}
		}
		return celdecl.ObjectDecl(path, fields...)
	}
	return SchemaScalarDecl(p.Type, p.Format)
}
