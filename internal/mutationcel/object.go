package mutationcel

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"google.golang.org/protobuf/types/known/structpb"
)

// The types that mutation expressions construct: `Object{...}` (any
// dotted name under Object, with fields of any name, each dyn, unchecked at
// compile time) and `JSONPatch{op, path, from, value}`, resolved as
// kube-apiserver's DynamicTypeResolver resolves them.

const (
	objectTypeName    = "Object"
	jsonPatchTypeName = "JSONPatch"
)

var (
	jsonPatchType       = types.NewObjectType(jsonPatchTypeName)
	applyConfigType     = types.NewObjectType(objectTypeName)
	jsonPatchListType   = types.NewListType(jsonPatchType)
	jsonPatchFieldNames = []string{"op", "from", "path", "value"}
	mapStringAnyType    = reflect.TypeFor[map[string]any]()
	structpbStructType  = reflect.TypeFor[*structpb.Struct]()
	structpbValueType   = reflect.TypeFor[*structpb.Value]()
	jsonPatchValNative  = reflect.TypeFor[*jsonPatchVal]()
)

// isObjectTypeName tells the names that resolve to an Object type.
func isObjectTypeName(name string) bool {
	return name == objectTypeName || strings.HasPrefix(name, objectTypeName+".")
}

// patchTypes is the type provider of Object and JSONPatch over the
// environment's own provider.
type patchTypes struct {
	base    types.Provider
	objects *objectTypes
}

var _ types.Provider = patchTypes{}

// patchTypesOption declares Object and JSONPatch in an environment.
func patchTypesOption() cel.EnvOption {
	return func(e *cel.Env) (*cel.Env, error) {
		return cel.CustomTypeProvider(patchTypes{base: e.CELTypeProvider(), objects: &objectTypes{}})(e)
	}
}

// objectTypes keeps the type of each Object type name an evaluation
// constructs, so that constructing an Object does not make its type anew:
// the names are those of the compiled expressions (policy text, never
// request data). Reads take no lock. It keeps at most maxObjectTypes
// names, so that an environment that outlives many policies (new names
// with each) stays bounded: past that, a type is made at each use.
type objectTypes struct {
	mu    sync.Mutex // serializes additions
	names atomic.Pointer[map[string]*types.Type]
}

// maxObjectTypes bounds the names an objectTypes keeps: far more than the
// Object types of the mutations of a cluster's policies.
const maxObjectTypes = 4096

func (o *objectTypes) of(name string) *types.Type {
	if m := o.names.Load(); m != nil {
		if t, ok := (*m)[name]; ok {
			return t
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	old := o.names.Load()
	if old != nil {
		if t, ok := (*old)[name]; ok {
			return t
		}
		if len(*old) >= maxObjectTypes {
			return types.NewObjectType(name)
		}
	}
	next := make(map[string]*types.Type, 1)
	if old != nil {
		next = maps.Clone(*old)
	}
	t := types.NewObjectType(name)
	next[name] = t
	o.names.Store(&next)
	return t
}

func (p patchTypes) EnumValue(name string) ref.Val         { return p.base.EnumValue(name) }
func (p patchTypes) FindIdent(name string) (ref.Val, bool) { return p.base.FindIdent(name) }

func (p patchTypes) FindStructType(name string) (*types.Type, bool) {
	if name == jsonPatchTypeName {
		return types.NewTypeTypeWithParam(jsonPatchType), true
	}
	if isObjectTypeName(name) {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.base.FindStructType(name)
}

func (p patchTypes) FindStructFieldNames(name string) ([]string, bool) {
	if name == jsonPatchTypeName {
		return slices.Clone(jsonPatchFieldNames), true
	}
	if isObjectTypeName(name) {
		return nil, true // every name is a field
	}
	return p.base.FindStructFieldNames(name)
}

func (p patchTypes) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if name == jsonPatchTypeName {
		// An unknown field has no type, as in kube-apiserver: the checker
		// then reports "expected type of field 'foo' is '' but provided
		// type is ...".
		var t *types.Type
		switch field {
		case "op", "from", "path":
			t = types.StringType
		case "value":
			t = types.DynType
		}
		return &types.FieldType{Type: t}, true
	}
	if isObjectTypeName(name) {
		return &types.FieldType{
			Type: types.DynType,
			IsSet: func(target any) bool {
				m, ok := target.(map[string]any)
				if !ok {
					return false
				}
				_, set := m[field]
				return set
			},
			GetFrom: func(target any) (any, error) {
				if m, ok := target.(map[string]any); ok {
					return m[field], nil
				}
				return nil, fmt.Errorf("cannot get field %q", field)
			},
		}, true
	}
	return p.base.FindStructFieldType(name, field)
}

func (p patchTypes) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if name == jsonPatchTypeName {
		return newJSONPatchVal(fields)
	}
	if isObjectTypeName(name) {
		return &objectVal{typ: p.objects.of(name), fields: fields}
	}
	return p.base.NewValue(name, fields)
}

// objectVal is the value of an `Object...{}` initializer.
type objectVal struct {
	typ    *types.Type
	fields map[string]ref.Val
}

var (
	_ ref.Val       = (*objectVal)(nil)
	_ traits.Zeroer = (*objectVal)(nil)
)

// native is the object as map[string]any, each field converted as
// kube-apiserver converts it (see convertField).
func (v *objectVal) native() (map[string]any, error) {
	out := make(map[string]any, len(v.fields))
	for k, f := range v.fields {
		c, err := convertField(f)
		if err != nil {
			return nil, fmt.Errorf("fail to convert field %q: %w", k, err)
		}
		out[k] = c
	}
	return out, nil
}

func (v *objectVal) ConvertToNative(t reflect.Type) (any, error) {
	m, err := v.native()
	if err != nil {
		return nil, err
	}
	switch t {
	case mapStringAnyType:
		return m, nil
	case structpbStructType:
		return structpb.NewStruct(m)
	case structpbValueType:
		return structpb.NewValue(m)
	}
	return nil, fmt.Errorf("unable to convert to %v", t)
}

func (v *objectVal) ConvertToType(t ref.Type) ref.Val {
	if v.typ.TypeName() == t.TypeName() {
		return v
	}
	if t == types.TypeType {
		return types.NewTypeTypeWithParam(v.typ)
	}
	return types.NewErr("unsupported conversion into %v", t)
}

func (v *objectVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(*objectVal)
	if !ok || v.typ.Equal(o.typ) != types.True {
		return types.False
	}
	return types.Bool(reflect.DeepEqual(v.fields, o.fields))
}

func (v *objectVal) Type() ref.Type { return v.typ }

// Value is the object as map[string]any, or the conversion's error as a
// CEL error value, as kube-apiserver's ObjectVal gives it.
func (v *objectVal) Value() any {
	m, err := v.native()
	if err != nil {
		return types.WrapErr(err)
	}
	return m
}

func (v *objectVal) IsZeroValue() bool { return len(v.fields) == 0 }

// convertField converts the value of an Object's field as kube-apiserver's
// ObjectVal does, quirks included: the elements of a list literal and the
// values of a map literal are taken as they are (one level: a map literal
// inside them stays a CEL map, which the schema then rejects), other lists
// and maps (from the object, say) are converted all the way down.
func convertField(value ref.Val) (any, error) {
	raw := value.Value()
	if list, ok := raw.([]ref.Val); ok {
		var out []any // nil when empty, as kube-apiserver's conversion leaves it
		if len(list) > 0 {
			out = make([]any, 0, len(list))
		}
		for _, e := range list {
			out = append(out, e.Value())
		}
		return out, nil
	}
	if m, ok := raw.(map[ref.Val]ref.Val); ok {
		out := make(map[string]any, len(m))
		for k, e := range m {
			s, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %q is of type %T, not string", k, k)
			}
			out[s] = e.Value()
		}
		return out, nil
	}
	if lister, ok := value.(traits.Lister); ok {
		var out []any
		for it := lister.Iterator(); it.HasNext() == types.True; {
			c, err := convertField(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	if mapper, ok := value.(traits.Mapper); ok {
		out := map[string]any{}
		for it := mapper.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			s, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %q is of type %T, not string", k, k)
			}
			c, err := convertField(mapper.Get(k))
			if err != nil {
				return nil, err
			}
			out[s] = c
		}
		return out, nil
	}
	return raw, nil
}

// checkTypeNames checks that every Object nested in v is named after its
// field path from the root Object (lists and maps in between are
// transparent), as kube-apiserver's CheckTypeNamesMatchFieldPathNames does.
// kube-apiserver reports the mismatches in map order; gatehouse in the
// order of field names. The names are first checked without building
// paths or sorting: the errors are only listed when there are some.
func checkTypeNames(v *objectVal) error {
	if typeNamesMatch(v, v.typ.TypeName(), "") {
		return nil
	}
	return errors.Join(typeNameErrors(v, []string{v.typ.TypeName()})...)
}

// typeNamesMatch tells whether every Object in v is named parent.field
// (parent itself when field is ""), and every Object nested in it after
// its own name and its field.
func typeNamesMatch(v ref.Val, parent, field string) bool {
	if o, ok := v.(*objectVal); ok {
		name := o.typ.TypeName()
		if field == "" {
			if name != parent {
				return false
			}
		} else if len(name) != len(parent)+1+len(field) || name[len(parent)] != '.' ||
			!strings.HasPrefix(name, parent) || !strings.HasSuffix(name, field) {
			return false
		}
		for k, f := range o.fields {
			if !typeNamesMatch(f, name, k) {
				return false
			}
		}
		// An Object's Value is its native map, in which no Object is left:
		// nothing more to look at (and building it is costly).
		return true
	}
	switch v.(type) {
	case types.String, types.Int, types.Uint, types.Double, types.Bool, types.Bytes, types.Null:
		// Scalars hold no Object (and their Value would be boxed).
		return true
	}
	switch raw := v.Value().(type) {
	case []ref.Val:
		for _, e := range raw {
			if !typeNamesMatch(e, parent, field) {
				return false
			}
		}
	case map[ref.Val]ref.Val:
		for _, e := range raw {
			if !typeNamesMatch(e, parent, field) {
				return false
			}
		}
	}
	return true
}

func typeNameErrors(v ref.Val, path []string) []error {
	var errs []error
	if o, ok := v.(*objectVal); ok {
		want := strings.Join(path, ".")
		if got := o.typ.TypeName(); got != want {
			errs = append(errs, fmt.Errorf("unexpected type name %q, expected %q, which matches field name path from root Object type", got, want))
		}
		for _, k := range slices.Sorted(mapsKeys(o.fields)) {
			errs = append(errs, typeNameErrors(o.fields[k], append(path[:len(path):len(path)], k))...)
		}
		return errs
	}
	switch raw := v.Value().(type) {
	case []ref.Val:
		for _, e := range raw {
			errs = append(errs, typeNameErrors(e, path)...)
		}
	case map[ref.Val]ref.Val:
		for _, e := range raw {
			errs = append(errs, typeNameErrors(e, path)...)
		}
	}
	return errs
}

func mapsKeys(m map[string]ref.Val) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// jsonPatchVal is the value of a `JSONPatch{...}` initializer.
type jsonPatchVal struct {
	op, from, path string
	val            ref.Val // nil when not set
}

var _ ref.Val = (*jsonPatchVal)(nil)

func newJSONPatchVal(fields map[string]ref.Val) ref.Val {
	p := &jsonPatchVal{}
	for name, value := range fields {
		var dst *string
		switch name {
		case "op":
			dst = &p.op
		case "path":
			dst = &p.path
		case "from":
			dst = &p.from
		case "value":
			p.val = value
			continue
		default:
			return types.NewErr("unexpected JSONPatchType field: %s", name)
		}
		s, ok := value.Value().(string)
		if !ok {
			return types.NewErr("unexpected type %T for JSONPatchType '%s' field", value.Value(), name)
		}
		*dst = s
	}
	return p
}

func (p *jsonPatchVal) ConvertToNative(t reflect.Type) (any, error) {
	if t == jsonPatchValNative {
		return p, nil
	}
	return nil, fmt.Errorf("cannot convert to native type: %v", t)
}

func (p *jsonPatchVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case jsonPatchType:
		return p
	case types.TypeType:
		return types.NewTypeTypeWithParam(jsonPatchType)
	}
	return types.NewErr("unsupported type: %s", t.TypeName())
}

func (p *jsonPatchVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(*jsonPatchVal)
	if !ok || p == nil || o == nil || p.op != o.op || p.from != o.from || p.path != o.path || (p.val == nil) != (o.val == nil) {
		return types.False
	}
	if p.val == nil {
		return types.True
	}
	return p.val.Equal(o.val)
}

func (p *jsonPatchVal) Get(index ref.Val) ref.Val {
	if name, ok := index.Value().(string); ok {
		switch name {
		case "op":
			return types.String(p.op)
		case "path":
			return types.String(p.path)
		case "from":
			return types.String(p.from)
		case "value":
			return p.val
		}
	}
	return types.NewErr("unsupported indexer: %s", index)
}

func (p *jsonPatchVal) IsSet(field ref.Val) ref.Val {
	if name, ok := field.Value().(string); ok {
		switch name {
		case "op":
			return types.Bool(p.op != "")
		case "path":
			return types.Bool(p.path != "")
		case "from":
			return types.Bool(p.from != "")
		case "value":
			return types.Bool(p.val != nil)
		}
	}
	return types.NewErr("unsupported field: %s", field)
}

func (p *jsonPatchVal) Type() ref.Type { return jsonPatchType }
func (p *jsonPatchVal) Value() any     { return p }
