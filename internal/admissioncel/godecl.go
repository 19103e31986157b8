package admissioncel

import (
	"reflect"
	"strings"

	"github.com/google/cel-go/common/types"

	"github.com/gatehouse-dev/gatehouse/internal/celdecl"
)

// GoTypeDecl declares the CEL type kube-apiserver's type checker gives the
// objects of a built-in kind, whose Go type is t, under the name root: the
// type common.SchemaDeclType makes of the kind's OpenAPI schema (as
// k8s.io/kubernetes' generated definitions describe the Go type, references
// resolved), named as DeclType.MaybeAssignTypeName names it. The schema is
// derived from the Go type as openapi-gen derives it:
//
//   - exported struct fields under their JSON names, inline and anonymous
//     structs merged into their parent, `json:"-"` left out, names escaped
//     as CEL field names (namespace is __namespace__);
//   - a type with an OpenAPISchemaType method has that type and its
//     OpenAPISchemaFormat: metav1.Time and MicroTime are timestamps
//     (date-time), metav1.Duration a string; a type with
//     OpenAPIV3OneOfTypes has no type (its definition is a oneOf), so it is
//     left out — resource.Quantity, and so every resource list — unless
//     its format is int-or-string (intstr.IntOrString), which is dyn;
//   - []byte is bytes, other slices lists, maps maps with string keys,
//     pointers their element, integers int, floats double;
//   - a struct type met again inside itself is an object without fields
//     (the resolver's placeholder for a circular reference), and a struct
//     without JSON fields an object without fields; interface fields are
//     left out.
func GoTypeDecl(t reflect.Type, root string) *celdecl.Decl {
	g := goDecls{visiting: map[reflect.Type]bool{}}
	return g.decl(t, root)
}

type goDecls struct {
	visiting map[reflect.Type]bool
}

var stringDecl = celdecl.ScalarDecl(types.StringType)

func (g *goDecls) decl(t reflect.Type, path string) *celdecl.Decl {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if d, ok := openAPISchemaDecl(t); ok {
		return d
	}
	switch t.Kind() {
	case reflect.Bool:
		return celdecl.ScalarDecl(types.BoolType)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return celdecl.ScalarDecl(types.IntType)
	case reflect.Float32, reflect.Float64:
		return celdecl.ScalarDecl(types.DoubleType)
	case reflect.String:
		return stringDecl
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return celdecl.ScalarDecl(types.BytesType)
		}
		elem := g.decl(t.Elem(), path+".@idx")
		if elem == nil {
			return nil
		}
		return celdecl.ListDecl(elem)
	case reflect.Map:
		elem := g.decl(t.Elem(), path+".@elem")
		if elem == nil {
			return nil
		}
		return celdecl.MapDecl(stringDecl, elem)
	case reflect.Struct:
		if g.visiting[t] {
			return celdecl.ObjectDecl(path)
		}
		g.visiting[t] = true
		defer delete(g.visiting, t)
		var fields []celdecl.DeclField
		g.fields(t, path, &fields)
		return celdecl.ObjectDecl(path, fields...)
	}
	return nil
}

// fields appends the properties of struct t (named path) to out.
func (g *goDecls) fields(t reflect.Type, path string, out *[]celdecl.DeclField) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "") || hasOption(opts, "inline") {
			if ft.Kind() == reflect.Struct {
				g.fields(ft, path, out)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		escaped, ok := EscapeFieldName(name)
		if !ok {
			continue
		}
		d := g.decl(f.Type, path+"."+escaped)
		if d == nil {
			continue
		}
		// A later property of the same name replaces an earlier one.
		replaced := false
		for j := range *out {
			if (*out)[j].Name == escaped {
				(*out)[j].Type, replaced = d, true
			}
		}
		if !replaced {
			*out = append(*out, Declared(escaped, d))
			// kube-apiserver's type provider also finds a reserved word's
			// field under the word itself (recognizeKeywordAsFieldName).
			if escaped != name && celReservedWord(name) {
				*out = append(*out, Declared(name, d))
			}
		}
	}
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

type openAPISchemaTyper interface{ OpenAPISchemaType() []string }
type openAPISchemaFormatter interface{ OpenAPISchemaFormat() string }

// openAPISchemaDecl is the declaration of a type that states its OpenAPI
// type and format (metav1.Time, intstr.IntOrString, resource.Quantity...).
func openAPISchemaDecl(t reflect.Type) (*celdecl.Decl, bool) {
	v := reflect.New(t).Interface()
	typer, ok := v.(openAPISchemaTyper)
	if !ok {
		return nil, false
	}
	format := ""
	if f, ok := v.(openAPISchemaFormatter); ok {
		format = f.OpenAPISchemaFormat()
	}
	typ := ""
	if ts := typer.OpenAPISchemaType(); len(ts) > 0 {
		typ = ts[0]
	}
	// The definition of a type with OpenAPIV3OneOfTypes is its OpenAPI v3
	// one: a oneOf, without a type.
	if _, ok := v.(interface{ OpenAPIV3OneOfTypes() []string }); ok {
		typ = ""
	}
	return SchemaScalarDecl(typ, format), true
}

// SchemaScalarDecl is the declaration common.SchemaDeclType makes of a
// schema of type typ and format format that is not an array or an object
// with properties: nil when typ is none of kube-apiserver's.
func SchemaScalarDecl(typ, format string) *celdecl.Decl {
	if format == "int-or-string" {
		return celdecl.ScalarDecl(types.DynType)
	}
	switch typ {
	case "string":
		switch format {
		case "byte":
			return celdecl.ScalarDecl(types.BytesType)
		case "duration":
			return celdecl.ScalarDecl(types.DurationType)
		case "date", "date-time":
			return celdecl.ScalarDecl(types.TimestampType)
		}
		return stringDecl
	case "boolean":
		return celdecl.ScalarDecl(types.BoolType)
	case "number":
		return celdecl.ScalarDecl(types.DoubleType)
	case "integer":
		return celdecl.ScalarDecl(types.IntType)
	}
	return nil
}

// EscapeFieldName escapes a property name as kube-apiserver's CEL field
// names: a reserved word w is __w__; "__", ".", "-" and "/" are
// __underscores__, __dot__, __dash__ and __slash__. A name that is empty,
// starts with a digit or has another character cannot be a field.
func EscapeFieldName(name string) (string, bool) {
	if name == "" || ('0' <= name[0] && name[0] <= '9') {
		return "", false
	}
	if celReservedWord(name) {
		return "__" + name + "__", true
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteString("__underscores__")
			i++
		case c == '.':
			b.WriteString("__dot__")
		case c == '-':
			b.WriteString("__dash__")
		case c == '/':
			b.WriteString("__slash__")
		case c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9'):
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}
