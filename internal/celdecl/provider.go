package celdecl

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// declKind is the shape of a declared type.
type declKind uint8

const (
	declScalar declKind = iota
	declObject
	declList
	declMap
)

// Decl declares a type of a CEL variable the way kube-apiserver declares its
// "DeclTypes": named object types with typed fields, lists and maps.
type Decl struct {
	kind    declKind
	name    string // object types only
	celType *types.Type
	elem    *Decl // lists and maps
	fields  []DeclField
}

// CELType is the CEL type d declares.
func (d *Decl) CELType() *types.Type { return d.celType }

// DeclField is a field of an object type. get and isSet, when both are set,
// read the field straight from the Go value that gatehouse puts in the
// activation (see the package documentation); without them cel-go reads the
// field from a map, as it does in kube-apiserver.
type DeclField struct {
	Name  string
	Type  *Decl
	Get   ref.FieldGetter
	IsSet ref.FieldTester
}

func ScalarDecl(t *types.Type) *Decl { return &Decl{kind: declScalar, celType: t} }

func ListDecl(elem *Decl) *Decl {
	return &Decl{kind: declList, elem: elem, celType: types.NewListType(elem.celType)}
}

func MapDecl(key, elem *Decl) *Decl {
	return &Decl{kind: declMap, elem: elem, celType: types.NewMapType(key.celType, elem.celType)}
}

func ObjectDecl(name string, fields ...DeclField) *Decl {
	return &Decl{kind: declObject, name: name, celType: types.NewObjectType(name), fields: fields}
}

// RegisteredType is what the provider knows about one registered type name.
type RegisteredType struct {
	celType *types.Type
	isMap   bool
	elem    *types.FieldType // maps: the type of every "field" (a dynamic key)
	fields  map[string]*types.FieldType
}

// NewObjectRegistration is the registration of an object type without
// fields, to which SetField adds them: kubernetes.variables gains a field as
// each variable of a policy compiles.
func NewObjectRegistration(name string) *RegisteredType {
	return &RegisteredType{celType: types.NewObjectType(name), fields: map[string]*types.FieldType{}}
}

// CELType is the registered type.
func (t *RegisteredType) CELType() *types.Type { return t.celType }

// SetField declares field name of type typ.
func (t *RegisteredType) SetField(name string, typ *types.Type) {
	t.fields[name] = &types.FieldType{Type: typ}
}

// registerDecls names every type reachable from root as kube-apiserver's
// DeclTypeProvider does: an object under its own name, a list or map under the
// path where it appears (<path>.<field>, <path>.@idx, <path>.@elem), the path
// starting at the root object's name.
func registerDecls(root *Decl, into map[string]*RegisteredType) {
	var walk func(path string, d *Decl)
	walk = func(path string, d *Decl) {
		switch d.kind {
		case declObject:
			rt := &RegisteredType{celType: d.celType, fields: make(map[string]*types.FieldType, len(d.fields))}
			for _, f := range d.fields {
				ft := &types.FieldType{Type: f.Type.celType}
				if f.Get != nil && f.IsSet != nil {
					ft.GetFrom, ft.IsSet = f.Get, f.IsSet
				}
				rt.fields[f.Name] = ft
				walk(path+"."+f.Name, f.Type)
			}
			into[d.name] = rt
		case declMap:
			walk(path+".@elem", d.elem)
			into[path] = &RegisteredType{celType: d.celType, isMap: true, elem: &types.FieldType{Type: d.elem.celType}}
		case declList:
			walk(path+".@idx", d.elem)
			into[path] = &RegisteredType{celType: d.celType}
		}
	}
	walk(root.name, root)
}

// scalarTypes are the type names that kube-apiserver's DeclTypeProvider
// resolves besides its declared types (its findScalar). Because of them,
// `duration` and `timestamp` are type identifiers in kube-apiserver's
// environments, and `list` is list(google.protobuf.Any).
func scalarTypes() map[string]*RegisteredType {
	anyType := types.AnyType
	return map[string]*RegisteredType{
		"bool":      {celType: types.BoolType},
		"bytes":     {celType: types.BytesType},
		"double":    {celType: types.DoubleType},
		"duration":  {celType: types.DurationType},
		"int":       {celType: types.IntType},
		"null_type": {celType: types.NullType},
		"string":    {celType: types.StringType},
		"timestamp": {celType: types.TimestampType},
		"uint":      {celType: types.UintType},
		"list":      {celType: types.NewListType(anyType)},
		"map":       {celType: types.NewMapType(anyType, anyType), isMap: true, elem: &types.FieldType{Type: anyType}},
	}
}

// typeProvider answers the type questions of the checker and the interpreter
// as kube-apiserver's DeclTypeProvider does.
type typeProvider struct {
	base     types.Provider
	adapter  types.Adapter
	declared map[string]*RegisteredType
	scalars  map[string]*RegisteredType
}

func newTypeProvider(base types.Provider, adapter types.Adapter, roots ...*Decl) *typeProvider {
	p := &typeProvider{
		base:     base,
		adapter:  adapter,
		declared: map[string]*RegisteredType{},
		scalars:  scalarTypes(),
	}
	for _, r := range roots {
		registerDecls(r, p.declared)
	}
	return p
}

var (
	_ types.Provider = (*typeProvider)(nil)
	_ types.Adapter  = (*typeProvider)(nil)
)

func (p *typeProvider) lookup(name string) (*RegisteredType, bool) {
	if t, ok := p.declared[name]; ok {
		return t, true
	}
	t, ok := p.scalars[name]
	return t, ok
}

// EnumValue implements types.Provider.
func (p *typeProvider) EnumValue(name string) ref.Val { return p.base.EnumValue(name) }

// FindIdent implements types.Provider.
func (p *typeProvider) FindIdent(name string) (ref.Val, bool) { return p.base.FindIdent(name) }

// FindStructType implements types.Provider.
func (p *typeProvider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.lookup(name); ok {
		return types.NewTypeTypeWithParam(t.celType), true
	}
	return p.base.FindStructType(name)
}

// FindStructFieldNames implements types.Provider; kube-apiserver's provider
// never lists field names.
func (p *typeProvider) FindStructFieldNames(string) ([]string, bool) { return []string{}, false }

// FindStructFieldType implements types.Provider.
func (p *typeProvider) FindStructFieldType(typeName, fieldName string) (*types.FieldType, bool) {
	t, ok := p.lookup(typeName)
	if !ok {
		return p.base.FindStructFieldType(typeName, fieldName)
	}
	if f, ok := t.fields[fieldName]; ok {
		return f, true
	}
	if t.isMap {
		return t.elem, true
	}
	return nil, false
}

// NewValue implements types.Provider.
func (p *typeProvider) NewValue(typeName string, fields map[string]ref.Val) ref.Val {
	return p.base.NewValue(typeName, fields)
}

// NativeToValue implements types.Adapter. gatehouse's typed values are CEL
// values already (see mapView).
func (p *typeProvider) NativeToValue(v any) ref.Val { return p.adapter.NativeToValue(v) }

// DeclaredTypes is the environment option that declares types over the
// environment's own type provider, as kube-apiserver's environment
// extension does. It must come after the libraries, which register their
// types with that provider. decls receives the provider's adapter, for the
// values the getters build.
func DeclaredTypes(decls ...func(types.Adapter) *Decl) cel.EnvOption {
	return func(e *cel.Env) (*cel.Env, error) {
		adapter := e.CELTypeAdapter()
		roots := make([]*Decl, len(decls))
		for i, d := range decls {
			roots[i] = d(adapter)
		}
		p := newTypeProvider(e.CELTypeProvider(), adapter, roots...)
		e, err := cel.CustomTypeProvider(p)(e)
		if err != nil {
			return nil, err
		}
		return cel.CustomTypeAdapter(p)(e)
	}
}

// DeclaredType is the environment option that declares one type, whose
// registration the caller keeps (to add fields to it later, as
// kube-apiserver does to kubernetes.variables while a policy's variables
// compile).
func DeclaredType(name string, t *RegisteredType) cel.EnvOption {
	return func(e *cel.Env) (*cel.Env, error) {
		p := newTypeProvider(e.CELTypeProvider(), e.CELTypeAdapter())
		p.declared[name] = t
		e, err := cel.CustomTypeProvider(p)(e)
		if err != nil {
			return nil, err
		}
		return cel.CustomTypeAdapter(p)(e)
	}
}
