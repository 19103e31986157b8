package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// ObjectType declares an object type: a named type with typed fields, whose
// runtime values are maps (map[string]any, or any value with string keys).
// It is what kube-apiserver declares with apiservercel.NewObjectType for
// variables such as request and namespaceObject.
type ObjectType struct {
	name   string
	fields map[string]*cel.Type
	typ    *cel.Type
}

// NewObjectType returns the object type name with fields.
func NewObjectType(name string, fields map[string]*cel.Type) *ObjectType {
	return &ObjectType{name: name, fields: fields, typ: cel.ObjectType(name)}
}

// CelType returns the CEL type of the object type, for variable and field
// declarations.
func (o *ObjectType) CelType() *cel.Type { return o.typ }

// isCELReservedWord reports whether s is a word the CEL grammar reserves;
// kube-apiserver escapes a field so named to __word__ when it declares a type
// from a schema.
func isCELReservedWord(s string) bool {
	switch s {
	case "true", "false", "null", "in", "as", "break", "const", "continue", "else",
		"for", "function", "if", "import", "let", "loop", "package", "namespace",
		"return", "var", "void", "while":
		return true
	}
	return false
}

// DeclaredTypes returns an environment option that declares object types,
// like kube-apiserver's DeclTypeProvider at compatibility version 1.31 and
// later: a field named like a CEL reserved word (`namespace`) is also found
// under its escaped name (`__namespace__`). Types it does not declare are
// resolved by the environment's provider.
func DeclaredTypes(objects ...*ObjectType) cel.EnvOption {
	return func(e *cel.Env) (*cel.Env, error) {
		p := &declaredTypes{base: e.CELTypeProvider(), objects: make(map[string]*ObjectType, len(objects))}
		for _, o := range objects {
			p.objects[o.name] = o
		}
		return cel.CustomTypeProvider(p)(e)
	}
}

// declaredTypes is a types.Provider of declared object types over a base
// provider.
type declaredTypes struct {
	base    types.Provider
	objects map[string]*ObjectType
}

func (p *declaredTypes) EnumValue(enumName string) ref.Val { return p.base.EnumValue(enumName) }

func (p *declaredTypes) FindIdent(identName string) (ref.Val, bool) {
	return p.base.FindIdent(identName)
}

func (p *declaredTypes) FindStructType(structType string) (*types.Type, bool) {
	if o, ok := p.objects[structType]; ok {
		return types.NewTypeTypeWithParam(o.typ), true
	}
	return p.base.FindStructType(structType)
}

// FindStructFieldNames reports no field names for declared types, as
// kube-apiserver's provider does.
func (p *declaredTypes) FindStructFieldNames(structType string) ([]string, bool) {
	if _, ok := p.objects[structType]; ok {
		return []string{}, false
	}
	return p.base.FindStructFieldNames(structType)
}

func (p *declaredTypes) FindStructFieldType(structType, fieldName string) (*types.FieldType, bool) {
	o, ok := p.objects[structType]
	if !ok {
		return p.base.FindStructFieldType(structType, fieldName)
	}
	t, found := o.fields[fieldName]
	if !found && isCELReservedWord(fieldName) {
		t, found = o.fields["__"+fieldName+"__"]
	}
	if !found {
		return nil, false
	}
	return &types.FieldType{Type: t}, true
}

func (p *declaredTypes) NewValue(structType string, fields map[string]ref.Val) ref.Val {
	return p.base.NewValue(structType, fields)
}
