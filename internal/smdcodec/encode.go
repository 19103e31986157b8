package smdcodec

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"sigs.k8s.io/structured-merge-diff/v6/schema"
)

const magic = "SMDC1"

// Root names the type of one group, version and kind.
type Root struct {
	Group, Version, Kind string
	Type                 string
}

// Encode writes types and roots in the package's encoding, gzip-compressed.
// The output is deterministic: the same input gives the same bytes. Every
// named reference must name a type of types, every root's type too.
func Encode(types []schema.TypeDef, roots []Root) ([]byte, error) {
	index := make(map[string]int, len(types))
	for i, t := range types {
		if _, dup := index[t.Name]; dup {
			return nil, fmt.Errorf("type %q is defined twice", t.Name)
		}
		index[t.Name] = i
	}
	e := encoder{index: index}
	records := make([][]byte, len(types))
	for i, t := range types {
		e.buf = nil
		if err := e.atom(t.Atom); err != nil {
			return nil, fmt.Errorf("type %q: %w", t.Name, err)
		}
		records[i] = e.buf
	}
	sorted := append([]Root(nil), roots...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})

	e.buf = []byte(magic)
	e.uint(uint64(len(types)))
	offset := 0
	for i, t := range types {
		e.str(t.Name)
		e.uint(uint64(offset))
		e.uint(uint64(len(records[i])))
		offset += len(records[i])
	}
	e.uint(uint64(len(sorted)))
	for i, r := range sorted {
		if i > 0 && r.Group == sorted[i-1].Group && r.Version == sorted[i-1].Version && r.Kind == sorted[i-1].Kind {
			return nil, fmt.Errorf("root %s/%s %s is given twice", r.Group, r.Version, r.Kind)
		}
		ti, ok := index[r.Type]
		if !ok {
			return nil, fmt.Errorf("root %s/%s %s: no type %q", r.Group, r.Version, r.Kind, r.Type)
		}
		e.str(r.Group)
		e.str(r.Version)
		e.str(r.Kind)
		e.uint(uint64(ti))
	}
	for _, rec := range records {
		e.buf = append(e.buf, rec...)
	}

	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(e.buf); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type encoder struct {
	buf   []byte
	index map[string]int
}

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) boolean(b bool) {
	if b {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Atom members.
const (
	hasScalar = 1 << iota
	hasList
	hasMap
)

// TypeRef members.
const (
	refNamed = 1 << iota
	refRelationship
	refNullable
)

func (e *encoder) atom(a schema.Atom) error {
	var tag byte
	if a.Scalar != nil {
		tag |= hasScalar
	}
	if a.List != nil {
		tag |= hasList
	}
	if a.Map != nil {
		tag |= hasMap
	}
	e.buf = append(e.buf, tag)
	if a.Scalar != nil {
		e.str(string(*a.Scalar))
	}
	if l := a.List; l != nil {
		if err := e.ref(l.ElementType); err != nil {
			return err
		}
		e.str(string(l.ElementRelationship))
		e.strs(l.Keys)
	}
	if m := a.Map; m != nil {
		e.uint(uint64(len(m.Fields)))
		for _, f := range m.Fields {
			e.str(f.Name)
			if err := e.ref(f.Type); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
			if err := e.value(f.Default); err != nil {
				return fmt.Errorf("field %q: default: %w", f.Name, err)
			}
		}
		e.uint(uint64(len(m.Unions)))
		for _, u := range m.Unions {
			e.boolean(u.Discriminator != nil)
			if u.Discriminator != nil {
				e.str(*u.Discriminator)
			}
			e.boolean(u.DeduceInvalidDiscriminator)
			e.uint(uint64(len(u.Fields)))
			for _, f := range u.Fields {
				e.str(f.FieldName)
				e.str(f.DiscriminatorValue)
			}
		}
		if err := e.ref(m.ElementType); err != nil {
			return err
		}
		e.str(string(m.ElementRelationship))
	}
	return nil
}

func (e *encoder) strs(ss []string) {
	// nil and empty differ for reflect.DeepEqual: 0 is nil, n+1 is n strings.
	if ss == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(ss)) + 1)
	for _, s := range ss {
		e.str(s)
	}
}

func (e *encoder) ref(r schema.TypeRef) error {
	var tag byte
	if r.NamedType != nil {
		tag |= refNamed
	}
	if r.ElementRelationship != nil {
		tag |= refRelationship
	}
	if r.Nullable {
		tag |= refNullable
	}
	e.buf = append(e.buf, tag)
	if r.NamedType != nil {
		i, ok := e.index[*r.NamedType]
		if !ok {
			return fmt.Errorf("reference to undefined type %q", *r.NamedType)
		}
		e.uint(uint64(i))
	}
	if r.ElementRelationship != nil {
		e.str(string(*r.ElementRelationship))
	}
	return e.atom(r.Inlined)
}

// Default value kinds.
const (
	valNil byte = iota
	valFalse
	valTrue
	valInt
	valFloat
	valString
	valMap
	valList
)

func (e *encoder) value(v interface{}) error {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, valNil)
	case bool:
		if v {
			e.buf = append(e.buf, valTrue)
		} else {
			e.buf = append(e.buf, valFalse)
		}
	case int:
		e.buf = append(e.buf, valInt)
		e.buf = binary.AppendVarint(e.buf, int64(v))
	case float64:
		e.buf = append(e.buf, valFloat)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
	case string:
		e.buf = append(e.buf, valString)
		e.str(v)
	case map[interface{}]interface{}:
		keys := make([]string, 0, len(v))
		for k := range v {
			s, ok := k.(string)
			if !ok {
				return fmt.Errorf("map key %v (%T) is not a string", k, k)
			}
			keys = append(keys, s)
		}
		sort.Strings(keys)
		e.buf = append(e.buf, valMap)
		e.uint(uint64(len(keys)))
		for _, k := range keys {
			e.str(k)
			if err := e.value(v[k]); err != nil {
				return err
			}
		}
	case []interface{}:
		e.buf = append(e.buf, valList)
		e.uint(uint64(len(v)))
		for _, x := range v {
			if err := e.value(x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("value %v of type %T cannot be stored", v, v)
	}
	return nil
}
