package typednormal

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/value"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// kind is what the plan does with a value of a Go type.
type kind uint8

const (
	// unsupported: the plan does not implement the type; a value of it
	// makes Normalize answer "not handled".
	unsupported kind = iota
	stringKind
	boolKind
	intKind   // signed and unsigned integers, in [min, max]
	floatKind // float32 and float64
	bytesKind // []byte, base64 in unstructured content
	pointerKind
	sliceKind
	mapKind // string keys
	structKind
	quantityKind    // resource.Quantity
	timeKind        // metav1.Time
	microTimeKind   // metav1.MicroTime
	durationKind    // metav1.Duration
	intOrStringKind // intstr.IntOrString
	rawJSONKind     // runtime.RawExtension: any JSON value
	fieldsV1Kind    // metav1.FieldsV1: a JSON object
)

// node is the plan of a Go type.
type node struct {
	kind kind
	// min and max bound an intKind; float32 tells a floatKind's size.
	min, max int64
	float32  bool
	// elem is the plan of the element of a pointer, slice or map.
	elem *node
	// fields are the JSON fields of a struct, in the Go type's order.
	fields []field
	// names are the JSON names of a struct's fields and its inlined
	// structs'; dupNames tells one is written twice; inlinePointer tells
	// a struct is inlined through a pointer.
	names         map[string]struct{}
	dupNames      bool
	inlinePointer bool
	// byName are the named fields of a struct and its inlined structs' (the
	// last of a duplicated name), emits those written when absent, and
	// zeroUnknown those whose zero output is unknown: NormalizeShared
	// walks the input's keys with them rather than every field.
	byName      map[string]*field
	emits       []*field
	zeroUnknown []*field
	// alwaysWritten counts the fields written whatever the input.
	alwaysWritten int
	// zero is the converter's output for the zero value of the type (what
	// a null element of a slice or map becomes); zeroOK is false if it
	// could not be computed. zeroScalar tells zero needs no copy.
	zero       any
	zeroOK     bool
	zeroScalar bool
	// marshals tells the type (or a pointer to it) has a MarshalJSON or
	// MarshalText encoding/json would call, other than the special
	// kinds': the encoder declines it.
	marshals bool
}

// field is a field of a struct.
type field struct {
	// name is the JSON name; empty for an inlined embedded struct, whose
	// fields are read from and written to the same map.
	name      string
	omitEmpty bool
	// omitZero is set only for the time kinds (the one use in the API
	// types, ObjectMeta.creationTimestamp): their zero is a nil output.
	omitZero bool
	// skip is a field named "-": the converter reads it from the key "-"
	// and never writes it.
	skip bool
	// jsonDiffers tells encoding/json reads the tag otherwise than the
	// converter: the ",string" option, or "-," (a field named "-",
	// which the converter skips). The encoder declines it.
	jsonDiffers bool
	node        *node
	// zero and zeroEmit are the converter's output for the field when
	// absent or null: emitted (zero) or not. zeroOK false: unknown.
	zero       any
	zeroEmit   bool
	zeroOK     bool
	zeroScalar bool
}

var (
	quantityType    = reflect.TypeFor[resource.Quantity]()
	timeType        = reflect.TypeFor[metav1.Time]()
	microTimeType   = reflect.TypeFor[metav1.MicroTime]()
	durationType    = reflect.TypeFor[metav1.Duration]()
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
	rawExtType      = reflect.TypeFor[runtime.RawExtension]()
	fieldsV1Type    = reflect.TypeFor[metav1.FieldsV1]()

	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// planner builds the plans of Go types, each once; types may be recursive.
type planner struct {
	types map[reflect.Type]*node
}

// plan returns the plan of t.
func (p *planner) plan(t reflect.Type) *node {
	if n, ok := p.types[t]; ok {
		return n
	}
	n := &node{}
	p.types[t] = n
	p.build(n, t)
	n.zero, n.zeroOK = n.zeroOutput(t)
	n.zeroScalar = isScalar(n.zero)
	return n
}

func (p *planner) build(n *node, t reflect.Type) {
	switch t {
	case quantityType:
		n.kind = quantityKind
		return
	case timeType:
		n.kind = timeKind
		return
	case microTimeType:
		n.kind = microTimeKind
		return
	case durationType:
		n.kind = durationKind
		return
	case intOrStringType:
		n.kind = intOrStringKind
		return
	case rawExtType:
		n.kind = rawJSONKind
		return
	case fieldsV1Type:
		n.kind = fieldsV1Kind
		return
	}
	if t.Kind() != reflect.Pointer {
		// (A pointer's methods are its element's, planned there.)
		n.marshals = marshalsJSON(t)
		// A type with its own (un)marshalling that is not one of the
		// above: left to the exact round trip. (A pointer to one of the
		// above converts as the pointed-to type does.)
		entry := value.TypeReflectEntryOf(t)
		if entry.CanConvertToUnstructured() || entry.CanConvertFromUnstructured() {
			return
		}
	}
	switch t.Kind() {
	case reflect.String:
		n.kind = stringKind
	case reflect.Bool:
		n.kind = boolKind
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind = intKind
		bits := t.Bits()
		n.min, n.max = -1<<(bits-1), 1<<(bits-1)-1
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind = intKind
		// Above MaxInt64 the converter fails to write it back.
		n.min, n.max = 0, math.MaxInt64
		if bits := t.Bits(); bits < 64 {
			n.max = 1<<bits - 1
		}
	case reflect.Float32, reflect.Float64:
		n.kind = floatKind
		n.float32 = t.Kind() == reflect.Float32
	case reflect.Pointer:
		if entry := value.TypeReflectEntryOf(t); entry.CanConvertFromUnstructured() {
			return
		}
		n.kind = pointerKind
		n.elem = p.plan(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			n.kind = bytesKind
			return
		}
		n.kind = sliceKind
		n.elem = p.plan(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return
		}
		n.kind = mapKind
		n.elem = p.plan(t.Elem())
	case reflect.Struct:
		if fields, ok := p.structFields(t); ok {
			n.kind = structKind
			n.fields = fields
			n.names = map[string]struct{}{}
			n.byName = map[string]*field{}
			for i, f := range fields {
				if f.name != "" {
					n.addName(f.name)
					n.index(&n.fields[i])
					if f.zeroEmit {
						n.alwaysWritten++
					}
					continue
				}
				if t.Field(i).Type.Kind() == reflect.Pointer || f.node.inlinePointer {
					n.inlinePointer = true
				}
				n.dupNames = n.dupNames || f.node.dupNames
				n.alwaysWritten += f.node.alwaysWritten
				for name := range f.node.names {
					n.addName(name)
				}
				for _, inner := range f.node.byName {
					n.index(inner)
				}
			}
		}
	}
}

// marshalsJSON tells encoding/json writes a value of t with a method of
// its own: MarshalJSON or MarshalText, of t or of *t (addressable values).
func marshalsJSON(t reflect.Type) bool {
	for _, t := range []reflect.Type{t, reflect.PointerTo(t)} {
		if t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) {
			return true
		}
	}
	return false
}

// index adds f to the struct's lookups.
func (n *node) index(f *field) {
	n.byName[f.name] = f
	if f.zeroEmit {
		n.emits = append(n.emits, f)
	}
	if !f.zeroOK {
		n.zeroUnknown = append(n.zeroUnknown, f)
	}
}

func (n *node) addName(name string) {
	if _, dup := n.names[name]; dup {
		n.dupNames = true
	}
	n.names[name] = struct{}{}
}

// structFields returns the fields of struct t as the converter names them
// (fieldInfoFromField); false if the plan cannot follow the struct.
func (p *planner) structFields(t reflect.Type) ([]field, bool) {
	var fields []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			return nil, false
		}
		var f field
		tag, hasTag := sf.Tag.Lookup("json")
		if !hasTag || tag == "" {
			if !sf.Anonymous {
				f.name = sf.Name
			}
		} else {
			items := strings.Split(tag, ",")
			f.name = items[0]
			f.jsonDiffers = f.name == "-" && len(items) > 1
			if f.name == "" && !sf.Anonymous {
				f.name = sf.Name
			}
			for _, item := range items[1:] {
				switch item {
				case "omitempty":
					f.omitEmpty = true
				case "omitzero":
					f.omitZero = true
				case "string":
					f.jsonDiffers = true
				case "embed":
					// Go 1.27's inlining of tagged fields: not followed.
					return nil, false
				}
			}
		}
		f.skip = f.name == "-"
		if f.name == "" {
			// Inlined: the converter reads the same map into it and
			// writes it into the same map; a plain struct, or a pointer
			// to one (always allocated by the conversion).
			if f.omitZero {
				return nil, false
			}
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			f.node = p.plan(et)
			if f.node.kind != structKind {
				return nil, false
			}
			fields = append(fields, f)
			continue
		}
		f.node = p.plan(sf.Type)
		// The zero value is written unless omitempty drops it (it drops
		// any zero value but a struct's) or omitzero does; "-" never is.
		k := sf.Type.Kind()
		f.zeroEmit = !f.skip && !(f.omitEmpty && k != reflect.Struct && k != reflect.Array) && !f.omitZero
		f.zero, f.zeroOK, f.zeroScalar = f.node.zero, f.node.zeroOK || !f.zeroEmit, f.node.zeroScalar
		if f.omitZero && f.node.kind != timeKind && f.node.kind != microTimeKind {
			// A type's own IsZero may say otherwise: not followed.
			f.node = &node{kind: unsupported}
			f.zeroOK = false
		}
		fields = append(fields, f)
	}
	return fields, true
}

// zeroOutput is the converter's output for the zero value of t, of plan
// n: built from the plan for the kinds it follows (a struct's from its
// fields' zero outputs), and asked of the converter for the others.
func (n *node) zeroOutput(t reflect.Type) (any, bool) {
	switch n.kind {
	case stringKind:
		return "", true
	case boolKind:
		return false, true
	case intKind:
		return int64(0), true
	case floatKind:
		return float64(0), true
	case bytesKind, pointerKind, sliceKind, mapKind:
		return nil, true
	case structKind:
		m := map[string]any{}
		if !n.writeZero(m, t) {
			return nil, false
		}
		return m, true
	}
	return convertedZero(t)
}

// writeZero writes into m the fields of the zero value of struct t, of plan
// n; false if one is unknown.
func (n *node) writeZero(m map[string]any, t reflect.Type) bool {
	for i := range n.fields {
		f := &n.fields[i]
		if f.name == "" {
			// An inlined struct's fields; a nil pointer writes nothing.
			et := t.Field(i).Type
			if et.Kind() == reflect.Pointer {
				continue
			}
			if !f.node.writeZero(m, et) {
				return false
			}
			continue
		}
		if !f.zeroOK {
			return false
		}
		if f.zeroEmit {
			m[f.name] = deepCopy(f.zero)
		}
	}
	return true
}

// convertedZero is the converter's output for the zero value of t, read
// from the conversion of a struct of one field of type t.
func convertedZero(t reflect.Type) (out any, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	st := reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: `json:"v"`}})
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(reflect.New(st).Interface())
	if err != nil {
		return nil, false
	}
	out, ok = u["v"]
	return out, ok
}

// isScalar tells v, an unstructured value, can be shared.
func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}
