package admissioncel

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
	smdvalue "sigs.k8s.io/structured-merge-diff/v6/value"
)

// Typed Go values of admission expressions (the AdmissionRequest, a typed
// object, params) as kube-apiserver presents them to CEL: as the
// unstructured form that JSON encoding would give (JSON field names, fields
// with omitempty absent when empty, custom JSON or unstructured encodings
// applied), read lazily field by field rather than converted up front, with
// kube-apiserver's error texts (its "schemaless typed" values). Every value
// is a map, list or scalar to CEL; type() of an object is map.
//
// A value caches what it has read: it belongs to one evaluation.

// TypedToVal converts a Go value.
func TypedToVal(v any) ref.Val {
	if v == nil {
		return types.NullValue
	}
	switch t := v.(type) {
	case bool:
		return types.Bool(t)
	case string:
		return types.String(t)
	case int:
		return types.Int(t)
	case int32:
		return types.Int(t)
	case int64:
		return types.Int(t)
	case float32:
		return types.Double(t)
	case float64:
		return types.Double(t)
	case []byte:
		if t == nil {
			return types.NullValue
		}
		return types.String(base64.StdEncoding.EncodeToString(t))
	case intstr.IntOrString:
		switch t.Type {
		case intstr.Int:
			return types.Int(t.IntVal)
		case intstr.String:
			return types.String(t.StrVal)
		}
	}
	return reflectedToVal(reflect.ValueOf(v))
}

func reflectedToVal(rv reflect.Value) ref.Val {
	if !rv.IsValid() {
		return types.NewErr("invalid data, got invalid reflect value: %v", rv)
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		if rv.IsNil() {
			return types.NullValue
		}
	}
	entry := smdvalue.TypeReflectEntryOf(rv.Type())
	if entry.CanConvertToUnstructured() {
		if !rv.CanAddr() {
			addressable := reflect.New(rv.Type()).Elem()
			addressable.Set(rv)
			rv = addressable
		}
		u, err := entry.ToUnstructured(rv)
		if err != nil {
			return types.NewErr("failed to convert to unstructured: %v", err)
		}
		if u == nil {
			return types.NullValue
		}
		return types.DefaultTypeAdapter.NativeToValue(u)
	}
	switch rv.Kind() {
	case reflect.Pointer:
		return TypedToVal(rv.Elem().Interface())
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return types.String(base64.StdEncoding.EncodeToString(rv.Bytes()))
		}
		return &typedList{value: rv}
	case reflect.Map:
		return &typedMap{value: rv}
	case reflect.Struct:
		return &typedStruct{value: rv}
	case reflect.Bool:
		return types.Bool(rv.Bool())
	case reflect.String:
		return types.String(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return types.Int(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return types.NewErr("unsigned value %d does not fit into int64 (overflow)", u)
		}
		return types.Int(u)
	case reflect.Float32, reflect.Float64:
		return types.Double(rv.Float())
	}
	return types.NewErr("unsupported Go type for CEL: %v", rv.Type())
}

// typedList is a Go slice.
type typedList struct {
	value reflect.Value
	elems []ref.Val // converted elements, on first use
}

var _ traits.Lister = (*typedList)(nil)

func (l *typedList) ConvertToNative(t reflect.Type) (any, error) {
	if t.Kind() == reflect.Slice {
		return l.value.Interface(), nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", l.Type(), t)
}

func (l *typedList) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.ListType:
		return l
	case types.TypeType:
		return types.ListType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", l.Type(), t.TypeName())
}

func (l *typedList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	n := l.Size().(types.Int)
	if n != o.Size().(types.Int) {
		return types.False
	}
	for i := range n {
		if l.Get(i).Equal(o.Get(i)) != types.True {
			return types.False
		}
	}
	return types.True
}

func (l *typedList) Type() ref.Type { return types.ListType }
func (l *typedList) Value() any     { return l.value.Interface() }
func (l *typedList) Size() ref.Val  { return types.Int(l.value.Len()) }

func (l *typedList) Contains(v ref.Val) ref.Val {
	for i := range l.Size().(types.Int) {
		if l.Get(i).Equal(v) == types.True {
			return types.True
		}
	}
	return types.False
}

// Add concatenates, with cel-go's list of values as the result.
func (l *typedList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	n, _ := o.Size().(types.Int)
	all := make([]ref.Val, 0, l.value.Len()+int(n))
	for i := range l.value.Len() {
		all = append(all, l.Get(types.Int(i)))
	}
	for it := o.Iterator(); it.HasNext() == types.True; {
		all = append(all, it.Next())
	}
	return types.NewRefValList(types.DefaultTypeAdapter, all)
}

func (l *typedList) Get(index ref.Val) ref.Val {
	i, ok := index.(types.Int)
	if !ok {
		return types.ValOrErr(index, "unsupported index type: %T", index)
	}
	if i < 0 || int(i) >= l.value.Len() {
		return types.NewErr("index out of bounds: %d", i)
	}
	if l.elems == nil {
		l.elems = make([]ref.Val, l.value.Len())
	}
	if v := l.elems[i]; v != nil {
		return v
	}
	v := TypedToVal(l.value.Index(int(i)).Interface())
	l.elems[i] = v
	return v
}

func (l *typedList) Iterator() traits.Iterator { return &typedListIterator{list: l} }

type typedListIterator struct {
	baseIterator
	list *typedList
	next int
}

func (it *typedListIterator) HasNext() ref.Val { return types.Bool(it.next < it.list.value.Len()) }

func (it *typedListIterator) Next() ref.Val {
	if it.next >= it.list.value.Len() {
		return types.NewErr("no more elements")
	}
	v := it.list.Get(types.Int(it.next))
	it.next++
	return v
}

// typedMap is a Go map.
type typedMap struct {
	value reflect.Value
	// seen are the keys looked up and their values (nil: absent): the
	// first few inline, the others in more, as an expression reads few
	// keys of a map.
	seen [4]seenKey
	n    int
	more map[string]ref.Val
}

type seenKey struct {
	key string
	val ref.Val
}

// lookedUp returns the value a key was found with, and whether it was
// looked up.
func (m *typedMap) lookedUp(key string) (ref.Val, bool) {
	for i := range m.n {
		if m.seen[i].key == key {
			return m.seen[i].val, true
		}
	}
	v, ok := m.more[key]
	return v, ok
}

// remember records what a key was found with.
func (m *typedMap) remember(key string, v ref.Val) {
	if m.n < len(m.seen) {
		m.seen[m.n] = seenKey{key, v}
		m.n++
		return
	}
	if m.more == nil {
		m.more = map[string]ref.Val{}
	}
	m.more[key] = v
}

var _ traits.Mapper = (*typedMap)(nil)

func (m *typedMap) ConvertToNative(t reflect.Type) (any, error) {
	if m.value.Type().AssignableTo(t) {
		return m.value.Interface(), nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", m.Type(), t)
}

func (m *typedMap) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return m
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", m.Type(), t.TypeName())
}

func (m *typedMap) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if m.Size() != o.Size() {
		return types.False
	}
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		mine, _ := m.Find(k)
		theirs, found := o.Find(k)
		if !found || mine.Equal(theirs) != types.True {
			return types.False
		}
	}
	return types.True
}

func (m *typedMap) Type() ref.Type { return types.MapType }
func (m *typedMap) Value() any     { return m.value.Interface() }
func (m *typedMap) Size() ref.Val  { return types.Int(m.value.Len()) }

func (m *typedMap) Contains(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if v != nil && types.IsError(v) {
		return v
	}
	return types.Bool(found)
}

func (m *typedMap) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.ValOrErr(key, "unsupported map key type: %T", key), false
	}
	name := string(k)
	if v, seen := m.lookedUp(name); seen {
		return v, v != nil
	}
	var v ref.Val
	if um, ok := m.value.Interface().(map[string]any); ok {
		// Unstructured content, the common case: indexed without
		// reflection.
		if e, found := um[name]; found {
			v = TypedToVal(e)
		}
	} else if kt := m.value.Type().Key(); kt.Kind() == reflect.String {
		if e := m.value.MapIndex(reflect.ValueOf(name).Convert(kt)); e.IsValid() {
			v = TypedToVal(e.Interface())
		}
	}
	m.remember(name, v)
	return v, v != nil
}

func (m *typedMap) Get(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if !found {
		if v != nil && types.IsError(v) {
			return v
		}
		return types.ValOrErr(key, "no such key: %v", key)
	}
	return v
}

func (m *typedMap) Iterator() traits.Iterator {
	return &stringsIterator{keys: keyStrings(m.value.MapKeys())}
}

func keyStrings(keys []reflect.Value) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String()
	}
	return out
}

// typedStruct is a Go struct, seen as its JSON object.
type typedStruct struct {
	value  reflect.Value
	fields map[string]ref.Val // looked up fields; nil value: absent
}

var (
	_ traits.Mapper      = (*typedStruct)(nil)
	_ traits.FieldTester = (*typedStruct)(nil)
)

func (s *typedStruct) ConvertToNative(t reflect.Type) (any, error) {
	if s.value.Type().AssignableTo(t) {
		return s.value.Interface(), nil
	}
	return nil, fmt.Errorf("type conversion error from struct type %v to %v", s.value.Type(), t)
}

func (s *typedStruct) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return s
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from struct to %s", t.TypeName())
}

// Equal compares two structs semantically (apimachinery's semantic
// equality), and a struct with any other map key by key.
func (s *typedStruct) Equal(other ref.Val) ref.Val {
	if o, ok := other.(*typedStruct); ok {
		return types.Bool(equality.Semantic.DeepEqual(s.value.Interface(), o.value.Interface()))
	}
	o, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if s.Size() != o.Size() {
		return types.False
	}
	for it := s.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		mine, _ := s.Find(k)
		theirs, found := o.Find(k)
		if !found {
			return types.False
		}
		if eq := mine.Equal(theirs); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (s *typedStruct) Type() ref.Type { return types.MapType }
func (s *typedStruct) Value() any     { return s.value.Interface() }

func (s *typedStruct) IsSet(field ref.Val) ref.Val {
	v, found := s.field(field)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}

func (s *typedStruct) Find(key ref.Val) (ref.Val, bool) { return s.field(key) }

func (s *typedStruct) Get(key ref.Val) ref.Val {
	v, found := s.field(key)
	if !found {
		return types.ValOrErr(key, "no such key: %v", key)
	}
	return v
}

func (s *typedStruct) Contains(key ref.Val) ref.Val {
	v, found := s.field(key)
	if v != nil && types.IsError(v) {
		return v
	}
	return types.Bool(found)
}

// field is the value of a JSON field, absent if the field is omitted when
// empty. A key that is not a string is an error, reported as found.
func (s *typedStruct) field(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.ValOrErr(key, "unsupported map key type: %T", key), true
	}
	name := string(k)
	if v, seen := s.fields[name]; seen {
		return v, v != nil
	}
	var v ref.Val
	if f, ok := smdvalue.TypeReflectEntryOf(s.value.Type()).Fields()[name]; ok {
		if fv := f.GetFrom(s.value); !f.CanOmit(fv) {
			v = TypedToVal(fv.Interface())
		}
	}
	if s.fields == nil {
		s.fields = map[string]ref.Val{}
	}
	s.fields[name] = v
	return v, v != nil
}

// presentFields are the JSON names of the fields that the JSON object has.
func (s *typedStruct) presentFields() []string {
	var names []string
	for name, f := range smdvalue.TypeReflectEntryOf(s.value.Type()).Fields() {
		if !f.CanOmit(f.GetFrom(s.value)) {
			names = append(names, name)
		}
	}
	return names
}

func (s *typedStruct) Size() ref.Val             { return types.Int(len(s.presentFields())) }
func (s *typedStruct) Iterator() traits.Iterator { return &stringsIterator{keys: s.presentFields()} }

// stringsIterator iterates over map keys.
type stringsIterator struct {
	baseIterator
	keys []string
	next int
}

func (it *stringsIterator) HasNext() ref.Val { return types.Bool(it.next < len(it.keys)) }

func (it *stringsIterator) Next() ref.Val {
	if it.next >= len(it.keys) {
		return types.NewErr("no more elements")
	}
	v := types.String(it.keys[it.next])
	it.next++
	return v
}

// baseIterator is the ref.Val part of an iterator, which CEL never uses as
// a value.
type baseIterator struct{}

func (baseIterator) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from iterator to '%v'", t)
}
func (baseIterator) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("type conversion error from iterator")
}
func (baseIterator) Equal(other ref.Val) ref.Val { return types.MaybeNoSuchOverloadErr(other) }
func (baseIterator) Type() ref.Type              { return types.IteratorType }
func (baseIterator) Value() any                  { return nil }
