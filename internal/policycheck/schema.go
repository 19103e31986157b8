package policycheck

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/gatehouse-dev/gatehouse/internal/crdschema"
)

// NodeType is the shape of a value in a schema.
type NodeType uint8

const (
	// TypeAny is a value of any type: no schema, int-or-string, a
	// quantity, preserved unknown fields.
	TypeAny NodeType = iota
	TypeObject
	TypeList
	TypeMap
	TypeString
	TypeInt
	TypeNumber
	TypeBool
)

// Node is the schema of a value as kube-apiserver hands it to admission
// expressions: the fields of objects, and whether each is always present.
type Node struct {
	Type NodeType
	// Fields are an object's fields.
	Fields map[string]*Field
	// Open is set for an object that may hold fields its schema does not
	// name (x-kubernetes-preserve-unknown-fields).
	Open bool
	// Elem is the items of a list or the values of a map.
	Elem *Node
}

// Field is a field of an object.
type Field struct {
	Node *Node
	// Present: the field is in every object kube-apiserver admits (a Go
	// field that is never omitted, a required field of a CRD schema).
	Present bool
}

// anyNode is a value of any type.
var anyNode = &Node{Type: TypeAny}

// Lookup returns the field name of an object node.
func (n *Node) Lookup(name string) (*Field, bool) {
	if n == nil || n.Type != TypeObject {
		return nil, false
	}
	f, ok := n.Fields[name]
	return f, ok
}

// goSchemas are the nodes of Go types, built as needed.
type goSchemas struct {
	nodes map[reflect.Type]*Node
}

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	schemaTyper   = reflect.TypeFor[interface{ OpenAPISchemaType() []string }]()
)

// GoNode returns the schema of the objects of Go type t as
// runtime.DefaultUnstructuredConverter turns them into the content that
// admission expressions read: a field is present unless its tag says
// omitempty (and it can be empty: a struct never is) or omitzero, or it is
// a pointer (null, when not omitted). A slice or map without omitempty is
// taken as present: it is null only in an object that leaves it out, which
// kube-apiserver's validation refuses (a Pod's containers).
func GoNode(t reflect.Type) *Node {
	g := &goSchemas{nodes: map[reflect.Type]*Node{}}
	return g.node(t)
}

func (g *goSchemas) node(t reflect.Type) *Node {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n, ok := g.nodes[t]; ok {
		return n
	}
	if t.Implements(schemaTyper) || reflect.PointerTo(t).Implements(schemaTyper) {
		v := reflect.New(t).Interface().(interface{ OpenAPISchemaType() []string })
		types := v.OpenAPISchemaType()
		if len(types) == 1 {
			return scalarNode(types[0])
		}
		return anyNode
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return anyNode
	}
	switch t.Kind() {
	case reflect.String:
		return &Node{Type: TypeString}
	case reflect.Bool:
		return &Node{Type: TypeBool}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Node{Type: TypeInt}
	case reflect.Float32, reflect.Float64:
		return &Node{Type: TypeNumber}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &Node{Type: TypeString}
		}
		n := &Node{Type: TypeList}
		g.nodes[t] = n
		n.Elem = g.node(t.Elem())
		return n
	case reflect.Map:
		n := &Node{Type: TypeMap}
		g.nodes[t] = n
		n.Elem = g.node(t.Elem())
		return n
	case reflect.Struct:
		n := &Node{Type: TypeObject, Fields: map[string]*Field{}}
		g.nodes[t] = n
		g.fields(t, n)
		return n
	}
	return anyNode
}

// fields adds the JSON fields of struct t to n, inline ones merged.
func (g *goSchemas) fields(t reflect.Type, n *Node) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && (name == "" || hasOpt(opts, "inline")) {
			ft := sf.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, n)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if hasOpt(opts, "inline") {
			continue
		}
		present := !hasOpt(opts, "omitzero")
		switch sf.Type.Kind() {
		case reflect.Pointer, reflect.Interface:
			present = false
		case reflect.Struct:
		default:
			if hasOpt(opts, "omitempty") {
				present = false
			}
		}
		n.Fields[name] = &Field{Node: g.node(sf.Type), Present: present}
	}
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func scalarNode(t string) *Node {
	switch t {
	case "string":
		return &Node{Type: TypeString}
	case "integer":
		return &Node{Type: TypeInt}
	case "number":
		return &Node{Type: TypeNumber}
	case "boolean":
		return &Node{Type: TypeBool}
	}
	return anyNode
}

// CRDNode returns the schema of a custom resource's objects from its
// structural schema (nil: no schema, any object): a field is present if
// the schema requires it. apiVersion, kind and metadata are always present;
// metadata has ObjectMeta's schema.
func CRDNode(p *crdschema.Props) *Node {
	if p == nil {
		return anyNode
	}
	n := crdNode(p, 0)
	if n.Type != TypeObject {
		return n
	}
	meta := objectMetaNode()
	n.Fields["apiVersion"] = &Field{Node: &Node{Type: TypeString}, Present: true}
	n.Fields["kind"] = &Field{Node: &Node{Type: TypeString}, Present: true}
	n.Fields["metadata"] = &Field{Node: meta, Present: true}
	return n
}

// maxDepth bounds the nesting of a schema read.
const maxDepth = 64

func crdNode(p *crdschema.Props, depth int) *Node {
	if depth > maxDepth || p.IntOrString {
		return anyNode
	}
	preserve := p.PreserveUnknown != nil && *p.PreserveUnknown
	switch p.Type {
	case "object":
		if p.AdditionalProperties != nil && (p.AdditionalProperties.Schema != nil || p.AdditionalProperties.Allows) && len(p.Properties) == 0 {
			n := &Node{Type: TypeMap, Elem: anyNode}
			if s := p.AdditionalProperties.Schema; s != nil {
				n.Elem = crdNode(s, depth+1)
			}
			return n
		}
		n := &Node{Type: TypeObject, Fields: map[string]*Field{}, Open: preserve || p.EmbeddedResource}
		for name := range p.Properties {
			prop := p.Properties[name]
			n.Fields[name] = &Field{Node: crdNode(&prop, depth+1)}
		}
		for _, r := range p.Required {
			if f, ok := n.Fields[r]; ok {
				f.Present = true
			}
		}
		if p.EmbeddedResource {
			for _, name := range []string{"apiVersion", "kind", "metadata"} {
				if _, ok := n.Fields[name]; !ok {
					n.Fields[name] = &Field{Node: anyNode}
				}
			}
		}
		if len(p.Properties) == 0 && !preserve && !p.EmbeddedResource {
			// An object without properties: kube-apiserver prunes every
			// field of it, but one whose schema says nothing more is
			// taken as open here (the checker cannot tell).
			n.Open = true
		}
		return n
	case "array":
		n := &Node{Type: TypeList, Elem: anyNode}
		if p.Items != nil {
			n.Elem = crdNode(p.Items, depth+1)
		}
		return n
	case "":
		if preserve {
			return &Node{Type: TypeAny}
		}
		return anyNode
	}
	return scalarNode(p.Type)
}
