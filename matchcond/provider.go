package matchcond

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

// decl declares a type of a CEL variable the way kube-apiserver declares its
// "DeclTypes": named object types with typed fields, lists and maps.
type decl struct {
	kind    declKind
	name    string // object types only
	celType *types.Type
	elem    *decl // lists and maps
	fields  []declField
}

// declField is a field of an object type. get and isSet, when both are set,
// read the field straight from the Go value that gatehouse puts in the
// activation (see the package documentation); without them cel-go reads the
// field from a map, as it does in kube-apiserver.
type declField struct {
	name  string
	typ   *decl
	get   ref.FieldGetter
	isSet ref.FieldTester
}

func scalarDecl(t *types.Type) *decl { return &decl{kind: declScalar, celType: t} }

func listDecl(elem *decl) *decl {
	return &decl{kind: declList, elem: elem, celType: types.NewListType(elem.celType)}
}

func mapDecl(key, elem *decl) *decl {
	return &decl{kind: declMap, elem: elem, celType: types.NewMapType(key.celType, elem.celType)}
}

func objectDecl(name string, fields ...declField) *decl {
	return &decl{kind: declObject, name: name, celType: types.NewObjectType(name), fields: fields}
}

// registeredType is what the provider knows about one registered type name.
type registeredType struct {
	celType *types.Type
	isMap   bool
	elem    *types.FieldType // maps: the type of every "field" (a dynamic key)
	fields  map[string]*types.FieldType
}

// registerDecls names every type reachable from root as kube-apiserver's
// DeclTypeProvider does: an object under its own name, a list or map under the
// path where it appears (<path>.<field>, <path>.@idx, <path>.@elem), the path
// starting at the root object's name.
func registerDecls(root *decl, into map[string]*registeredType) {
	var walk func(path string, d *decl)
	walk = func(path string, d *decl) {
		switch d.kind {
		case declObject:
			rt := &registeredType{celType: d.celType, fields: make(map[string]*types.FieldType, len(d.fields))}
			for _, f := range d.fields {
				ft := &types.FieldType{Type: f.typ.celType}
				if f.get != nil && f.isSet != nil {
					ft.GetFrom, ft.IsSet = f.get, f.isSet
				}
				rt.fields[f.name] = ft
				walk(path+"."+f.name, f.typ)
			}
			into[d.name] = rt
		case declMap:
			walk(path+".@elem", d.elem)
			into[path] = &registeredType{celType: d.celType, isMap: true, elem: &types.FieldType{Type: d.elem.celType}}
		case declList:
			walk(path+".@idx", d.elem)
			into[path] = &registeredType{celType: d.celType}
		}
	}
	walk(root.name, root)
}

// scalarTypes are the type names that kube-apiserver's DeclTypeProvider
// resolves besides its declared types (its findScalar). Because of them,
// `duration` and `timestamp` are type identifiers in kube-apiserver's
// environments, and `list` is list(google.protobuf.Any).
func scalarTypes() map[string]*registeredType {
	anyType := types.AnyType
	return map[string]*registeredType{
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
	declared map[string]*registeredType
	scalars  map[string]*registeredType
}

func newTypeProvider(base types.Provider, adapter types.Adapter, roots ...*decl) *typeProvider {
	p := &typeProvider{
		base:     base,
		adapter:  adapter,
		declared: map[string]*registeredType{},
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

func (p *typeProvider) lookup(name string) (*registeredType, bool) {
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

// declaredTypes is the environment option that declares types over the
// environment's own type provider, as kube-apiserver's environment
// extension does. It must come after the libraries, which register their
// types with that provider. decls receives the provider's adapter, for the
// values the getters build.
func declaredTypes(decls ...func(types.Adapter) *decl) cel.EnvOption {
	return func(e *cel.Env) (*cel.Env, error) {
		adapter := e.CELTypeAdapter()
		roots := make([]*decl, len(decls))
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

// declaredType is the environment option that declares one type, whose
// registration the caller keeps (to add fields to it later, as
// kube-apiserver does to kubernetes.variables while a policy's variables
// compile).
func declaredType(name string, t *registeredType) cel.EnvOption {
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
