// Package crdschema turns the schemas of a CustomResourceDefinition
// (apiextensions.k8s.io/v1) into structured-merge-diff schemas, as
// kube-apiserver does for the type converters of mutating admission
// policies: it publishes each version's structural schema as OpenAPI v3
// (metadata a reference to ObjectMeta, apiVersion and kind strings, the
// same three properties added to every x-kubernetes-embedded-resource) and
// converts that with kube-openapi's schemaconv (preserveUnknownFields false):
//
//   - a schema without a type (x-kubernetes-int-or-string or
//     x-kubernetes-preserve-unknown-fields) is at once untyped scalar, atomic
//     list of anything and map of deduced values;
//   - an object without properties, or under
//     x-kubernetes-preserve-unknown-fields (which holds for the whole
//     subtree), keeps unknown fields as deduced values (granular maps,
//     atomic lists);
//   - x-kubernetes-list-type map and set are associative (keyed by
//     x-kubernetes-list-map-keys), every other list is atomic;
//   - x-kubernetes-map-type atomic or granular sets the relationship of an
//     object or map;
//   - string formats other than "" and "byte" are untyped scalars.
//
// A version whose schema kube-apiserver would not publish (no schema) is the
// whole object deduced, as there.
package crdschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/yaml"
)

// Names of the types the schemas refer to.
const (
	ObjectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	Untyped    = "__untyped_atomic_"
	Deduced    = "__untyped_deduced_"
)

// maxDepth bounds the nesting of a schema.
const maxDepth = 100

// CRD is the part of a CustomResourceDefinition that gives its schemas.
type CRD struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		// Scope and the names' plural and singular say how the CRD's
		// resources are served (the type checker's and the policy checks'
		// REST mappings).
		Scope string `json:"scope"`
		Names struct {
			Kind     string `json:"kind"`
			ListKind string `json:"listKind"`
			Plural   string `json:"plural"`
			Singular string `json:"singular"`
		} `json:"names"`
		// Conversion is the conversion between versions (package
		// resources' converter); nil is strategy None, its default.
		Conversion *struct {
			Strategy string `json:"strategy"`
		} `json:"conversion"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
			Schema *struct {
				OpenAPIV3Schema *Props `json:"openAPIV3Schema"`
			} `json:"schema"`
			Subresources struct {
				Status *struct{} `json:"status"`
				Scale  *struct{} `json:"scale"`
			} `json:"subresources"`
		} `json:"versions"`
	} `json:"spec"`
}

// Props is the part of a JSONSchemaProps that the conversion and the
// policy checks (internal/policycheck) read.
type Props struct {
	Type                 string           `json:"type"`
	Format               string           `json:"format"`
	Nullable             bool             `json:"nullable"`
	Default              *json.RawMessage `json:"default"`
	Properties           map[string]Props `json:"properties"`
	Required             []string         `json:"required"`
	Items                *Props           `json:"items"`
	AdditionalProperties *PropsOrBool     `json:"additionalProperties"`
	PreserveUnknown      *bool            `json:"x-kubernetes-preserve-unknown-fields"`
	EmbeddedResource     bool             `json:"x-kubernetes-embedded-resource"`
	IntOrString          bool             `json:"x-kubernetes-int-or-string"`
	ListType             *string          `json:"x-kubernetes-list-type"`
	ListMapKeys          []string         `json:"x-kubernetes-list-map-keys"`
	MapType              *string          `json:"x-kubernetes-map-type"`
}

// PropsOrBool is additionalProperties: a schema or a boolean.
type PropsOrBool struct {
	Schema *Props
	Allows bool
}

// UnmarshalJSON reads a schema or a boolean.
func (p *PropsOrBool) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch string(data) {
	case "true":
		*p = PropsOrBool{Allows: true}
		return nil
	case "false":
		*p = PropsOrBool{}
		return nil
	}
	p.Allows = true
	p.Schema = &Props{}
	return json.Unmarshal(data, p.Schema)
}

// Decode reads one CRD from YAML or JSON.
func Decode(data []byte) (*CRD, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var crd CRD
	if err := json.Unmarshal(j, &crd); err != nil {
		return nil, err
	}
	if crd.APIVersion != "apiextensions.k8s.io/v1" || crd.Kind != "CustomResourceDefinition" {
		return nil, fmt.Errorf("not an apiextensions.k8s.io/v1 CustomResourceDefinition: apiVersion %q, kind %q", crd.APIVersion, crd.Kind)
	}
	if crd.Spec.Group == "" || crd.Spec.Names.Kind == "" {
		return nil, errors.New("spec.group and spec.names.kind are required")
	}
	if len(crd.Spec.Versions) == 0 {
		return nil, errors.New("spec.versions: at least one version is required")
	}
	return &crd, nil
}

// Version is the schema of one version of a CRD.
type Version struct {
	Version string
	// Type is the name of the root type in Types, the OpenAPI model name
	// kube-apiserver gives it (the group reversed, the version, the kind).
	Type string
	// Root is the root type. The schema it belongs in must also hold
	// ObjectMeta's closure, Untyped and Deduced.
	Root schema.TypeDef
}

// ModelName is the OpenAPI model name of a custom resource's kind.
func ModelName(group, version, kind string) string {
	parts := strings.Split(group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + version + "." + kind
}

// Convert returns the root type of every version of crd.
func Convert(crd *CRD) ([]Version, error) {
	var out []Version
	seen := map[string]bool{}
	for i, v := range crd.Spec.Versions {
		if v.Name == "" || seen[v.Name] {
			return nil, fmt.Errorf("spec.versions[%d].name: empty or repeated", i)
		}
		seen[v.Name] = true
		name := ModelName(crd.Spec.Group, v.Name, crd.Spec.Names.Kind)
		var root schema.Atom
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			root = schema.Atom{Map: &schema.Map{ElementType: ref(Deduced)}}
		} else {
			c := converter{}
			top := *v.Schema.OpenAPIV3Schema
			a, err := c.root(&top)
			if err != nil {
				return nil, fmt.Errorf("spec.versions[%d].schema.openAPIV3Schema: %w", i, err)
			}
			root = a
		}
		out = append(out, Version{Version: v.Name, Type: name, Root: schema.TypeDef{Name: name, Atom: root}})
	}
	return out, nil
}

func ref(name string) schema.TypeRef { n := name; return schema.TypeRef{NamedType: &n} }

type converter struct {
	errs []string
}

func (c *converter) root(p *Props) (schema.Atom, error) {
	if p.Type != "object" {
		return schema.Atom{}, fmt.Errorf("type: the root must be an object, not %q", p.Type)
	}
	props := withTypeMeta(p.Properties)
	p.Properties = props
	a := c.atom(p, false, "", 0)
	if len(c.errs) > 0 {
		return schema.Atom{}, errors.New(strings.Join(c.errs, "; "))
	}
	return a, nil
}

// withTypeMeta returns properties with apiVersion and kind strings and
// metadata, which the conversion turns into a reference to ObjectMeta.
func withTypeMeta(properties map[string]Props) map[string]Props {
	props := make(map[string]Props, len(properties)+3)
	for k, v := range properties {
		props[k] = v
	}
	props["apiVersion"] = Props{Type: "string"}
	props["kind"] = Props{Type: "string"}
	props["metadata"] = Props{Type: metadataRef}
	return props
}

// metadataRef marks, as a type no schema can have, the reference to
// ObjectMeta.
const metadataRef = "\x00ObjectMeta"

func (c *converter) fail(path, format string, args ...any) {
	if path == "" {
		path = "<root>"
	}
	c.errs = append(c.errs, path+": "+fmt.Sprintf(format, args...))
}

func (c *converter) atom(p *Props, preserve bool, path string, depth int) schema.Atom {
	if depth > maxDepth {
		c.fail(path, "nested more than %d levels", maxDepth)
		return schema.Atom{}
	}
	if p.PreserveUnknown != nil && *p.PreserveUnknown {
		preserve = true
	}
	if p.EmbeddedResource {
		p.Properties = withTypeMeta(p.Properties)
	}
	switch p.Type {
	case "":
		if !p.IntOrString && !preserve {
			c.fail(path, "type is required unless x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true")
		}
		return schema.Atom{Scalar: scalar("untyped"), List: c.list(p, preserve, path, depth), Map: c.object(p, preserve, path, depth)}
	case "object":
		return schema.Atom{Map: c.object(p, preserve, path, depth)}
	case "array":
		return schema.Atom{List: c.list(p, preserve, path, depth)}
	case "integer", "number":
		return schema.Atom{Scalar: scalar(schema.Numeric)}
	case "boolean":
		return schema.Atom{Scalar: scalar(schema.Boolean)}
	case "string":
		if p.Format == "" || p.Format == "byte" {
			return schema.Atom{Scalar: scalar(schema.String)}
		}
		return schema.Atom{Scalar: scalar("untyped")}
	default:
		c.fail(path, "unrecognized type %q", p.Type)
		return schema.Atom{Scalar: scalar("untyped")}
	}
}

func scalar(s schema.Scalar) *schema.Scalar { return &s }

func (c *converter) typeRef(p *Props, preserve bool, path string, depth int) schema.TypeRef {
	if p.Type == metadataRef {
		return ref(ObjectMeta)
	}
	return schema.TypeRef{Inlined: c.atom(p, preserve, path, depth+1), Nullable: p.Nullable}
}

func (c *converter) object(p *Props, preserve bool, path string, depth int) *schema.Map {
	m := &schema.Map{}
	names := make([]string, 0, len(p.Properties))
	for name := range p.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		member := p.Properties[name]
		f := schema.StructField{Name: name, Type: c.typeRef(&member, preserve, path+"."+name, depth)}
		if member.Default != nil {
			var v any
			if err := utiljson.Unmarshal(*member.Default, &v); err != nil {
				c.fail(path+"."+name, "default: %v", err)
			}
			f.Default = v
		}
		m.Fields = append(m.Fields, f)
	}
	switch ap := p.AdditionalProperties; {
	case ap == nil:
		if preserve || len(p.Properties) == 0 {
			m.ElementType = ref(Deduced)
		}
	case ap.Schema != nil:
		m.ElementType = c.typeRef(ap.Schema, preserve, path+"[*]", depth)
	case ap.Allows:
		m.ElementType = ref(Deduced)
	}
	if p.MapType != nil {
		switch *p.MapType {
		case "atomic":
			m.ElementRelationship = schema.Atomic
		case "granular":
			m.ElementRelationship = schema.Separable
		default:
			c.fail(path, "unknown x-kubernetes-map-type %q", *p.MapType)
		}
	}
	return m
}

func (c *converter) list(p *Props, preserve bool, path string, depth int) *schema.List {
	l := &schema.List{ElementRelationship: schema.Atomic}
	if p.ListType != nil {
		switch *p.ListType {
		case "atomic":
		case "set":
			l.ElementRelationship = schema.Associative
		case "map":
			l.ElementRelationship = schema.Associative
			if p.ListMapKeys == nil {
				c.fail(path, "x-kubernetes-list-type map without x-kubernetes-list-map-keys")
			}
			l.Keys = p.ListMapKeys
		default:
			c.fail(path, "unknown x-kubernetes-list-type %q", *p.ListType)
		}
	}
	switch {
	case p.Items != nil:
		l.ElementType = c.typeRef(p.Items, preserve, path+"[*]", depth)
	default:
		if p.Type != "" {
			c.fail(path, "items must be specified on arrays")
		}
		l.ElementType = ref(Untyped)
	}
	return l
}
