package smdcodec

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"sigs.k8s.io/structured-merge-diff/v6/schema"
)

// Limits that keep a corrupt or hostile input from costing unbounded memory
// or time.
const (
	maxInflated = 64 << 20
	maxDepth    = 64
)

// Table is an opened encoding: the index of its types and roots. It is
// immutable and safe for concurrent use.
type Table struct {
	data    []byte // inflated
	records []byte
	types   []typeEntry
	roots   map[Root]int // Type left empty
}

type typeEntry struct {
	name        string
	offset, len int
}

// Open inflates data and reads its index; the type records are decoded only
// by Closure.
func Open(data []byte) (*Table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("smdcodec: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxInflated+1))
	if err != nil {
		return nil, fmt.Errorf("smdcodec: %w", err)
	}
	if len(raw) > maxInflated {
		return nil, errors.New("smdcodec: data inflates beyond 64 MiB")
	}
	if !bytes.HasPrefix(raw, []byte(magic)) {
		return nil, errors.New("smdcodec: not an SMDC1 encoding")
	}
	d := &decoder{buf: raw[len(magic):]}
	n := d.count()
	t := &Table{data: raw}
	t.types = make([]typeEntry, 0, min(n, len(d.buf)))
	for i := 0; i < n && d.err == nil; i++ {
		t.types = append(t.types, typeEntry{name: d.str(), offset: d.count(), len: d.count()})
	}
	nr := d.count()
	t.roots = make(map[Root]int, min(nr, len(d.buf)))
	for i := 0; i < nr && d.err == nil; i++ {
		r := Root{Group: d.str(), Version: d.str(), Kind: d.str()}
		ti := d.count()
		if ti >= len(t.types) {
			d.fail("root type index out of range")
		}
		t.roots[r] = ti
	}
	if d.err != nil {
		return nil, d.err
	}
	t.records = d.buf
	for _, te := range t.types {
		if te.offset+te.len > len(t.records) || te.offset+te.len < te.offset {
			return nil, fmt.Errorf("smdcodec: record of type %q out of range", te.name)
		}
	}
	return t, nil
}

// Roots returns the roots of the table, with their type names.
func (t *Table) Roots() []Root {
	out := make([]Root, 0, len(t.roots))
	for r, i := range t.roots {
		r.Type = t.types[i].name
		out = append(out, r)
	}
	return out
}

// RootType returns the name of the type of group, version and kind.
func (t *Table) RootType(group, version, kind string) (string, bool) {
	i, ok := t.roots[Root{Group: group, Version: version, Kind: kind}]
	if !ok {
		return "", false
	}
	return t.types[i].name, true
}

// Closure decodes the named type and every type it reaches, and returns them
// as a schema in which name can be resolved.
func (t *Table) Closure(name string) (*schema.Schema, error) {
	start := -1
	for i, te := range t.types {
		if te.name == name {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("smdcodec: no type %q", name)
	}
	return t.closure(start)
}

// RootClosure is Closure for the type of group, version and kind.
func (t *Table) RootClosure(group, version, kind string) (*schema.Schema, string, error) {
	i, ok := t.roots[Root{Group: group, Version: version, Kind: kind}]
	if !ok {
		return nil, "", fmt.Errorf("smdcodec: no type for %s/%s %s", group, version, kind)
	}
	s, err := t.closure(i)
	return s, t.types[i].name, err
}

func (t *Table) closure(start int) (*schema.Schema, error) {
	seen := map[int]bool{start: true}
	queue := []int{start}
	var types []schema.TypeDef
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		te := t.types[i]
		d := &decoder{buf: t.records[te.offset : te.offset+te.len], types: t.types}
		a := d.atom(0)
		if d.err == nil && len(d.buf) != 0 {
			d.fail("trailing bytes")
		}
		if d.err != nil {
			return nil, fmt.Errorf("smdcodec: type %q: %w", te.name, d.err)
		}
		types = append(types, schema.TypeDef{Name: te.name, Atom: a})
		for _, r := range d.refs {
			if !seen[r] {
				seen[r] = true
				queue = append(queue, r)
			}
		}
	}
	return &schema.Schema{Types: types}, nil
}

type decoder struct {
	buf   []byte
	types []typeEntry
	refs  []int
	err   error
}

func (d *decoder) fail(msg string) {
	if d.err == nil {
		d.err = errors.New(msg)
	}
	d.buf = nil
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail("truncated or overlong integer")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// count reads an integer that counts or indexes bytes of the input, so that
// it cannot exceed the input's length.
func (d *decoder) count() int {
	v := d.uint()
	if v > maxInflated {
		d.fail("count out of range")
		return 0
	}
	return int(v)
}

func (d *decoder) byte() byte {
	if len(d.buf) == 0 {
		d.fail("truncated")
		return 0
	}
	b := d.buf[0]
	d.buf = d.buf[1:]
	return b
}

func (d *decoder) str() string {
	n := d.count()
	if n > len(d.buf) {
		d.fail("truncated string")
		return ""
	}
	s := string(d.buf[:n])
	d.buf = d.buf[n:]
	return s
}

func (d *decoder) boolean() bool { return d.byte() != 0 }

func (d *decoder) atom(depth int) schema.Atom {
	var a schema.Atom
	if depth > maxDepth {
		d.fail("nesting too deep")
		return a
	}
	tag := d.byte()
	if tag&^(hasScalar|hasList|hasMap) != 0 {
		d.fail("bad atom tag")
		return a
	}
	if tag&hasScalar != 0 {
		s := schema.Scalar(d.str())
		a.Scalar = &s
	}
	if tag&hasList != 0 {
		l := &schema.List{ElementType: d.ref(depth)}
		l.ElementRelationship = schema.ElementRelationship(d.str())
		if n := d.count(); n > 0 {
			l.Keys = make([]string, 0, min(n-1, len(d.buf)))
			for i := 0; i < n-1 && d.err == nil; i++ {
				l.Keys = append(l.Keys, d.str())
			}
		}
		a.List = l
	}
	if tag&hasMap != 0 {
		m := &schema.Map{}
		if n := d.count(); n > 0 {
			m.Fields = make([]schema.StructField, 0, min(n, len(d.buf)))
			for i := 0; i < n && d.err == nil; i++ {
				f := schema.StructField{Name: d.str()}
				f.Type = d.ref(depth)
				f.Default = d.value(depth)
				m.Fields = append(m.Fields, f)
			}
		}
		if n := d.count(); n > 0 {
			m.Unions = make([]schema.Union, 0, min(n, len(d.buf)))
			for i := 0; i < n && d.err == nil; i++ {
				var u schema.Union
				if d.boolean() {
					s := d.str()
					u.Discriminator = &s
				}
				u.DeduceInvalidDiscriminator = d.boolean()
				if nf := d.count(); nf > 0 {
					u.Fields = make([]schema.UnionField, 0, min(nf, len(d.buf)))
					for j := 0; j < nf && d.err == nil; j++ {
						u.Fields = append(u.Fields, schema.UnionField{FieldName: d.str(), DiscriminatorValue: d.str()})
					}
				}
				m.Unions = append(m.Unions, u)
			}
		}
		m.ElementType = d.ref(depth)
		m.ElementRelationship = schema.ElementRelationship(d.str())
		a.Map = m
	}
	return a
}

func (d *decoder) ref(depth int) schema.TypeRef {
	var r schema.TypeRef
	tag := d.byte()
	if tag&^(refNamed|refRelationship|refNullable) != 0 {
		d.fail("bad reference tag")
		return r
	}
	if tag&refNamed != 0 {
		i := d.count()
		if i >= len(d.types) {
			d.fail("type index out of range")
			return r
		}
		name := d.types[i].name
		r.NamedType = &name
		d.refs = append(d.refs, i)
	}
	if tag&refRelationship != 0 {
		er := schema.ElementRelationship(d.str())
		r.ElementRelationship = &er
	}
	r.Nullable = tag&refNullable != 0
	r.Inlined = d.atom(depth + 1)
	return r
}

func (d *decoder) value(depth int) interface{} {
	if depth > maxDepth {
		d.fail("nesting too deep")
		return nil
	}
	switch d.byte() {
	case valNil:
		return nil
	case valFalse:
		return false
	case valTrue:
		return true
	case valInt:
		v, n := binary.Varint(d.buf)
		if n <= 0 {
			d.fail("truncated integer")
			return nil
		}
		d.buf = d.buf[n:]
		return int(v)
	case valFloat:
		if len(d.buf) < 8 {
			d.fail("truncated float")
			return nil
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(d.buf))
		d.buf = d.buf[8:]
		return v
	case valString:
		return d.str()
	case valMap:
		n := d.count()
		m := make(map[interface{}]interface{}, min(n, len(d.buf)))
		for i := 0; i < n && d.err == nil; i++ {
			k := d.str()
			m[k] = d.value(depth + 1)
		}
		return m
	case valList:
		n := d.count()
		l := make([]interface{}, 0, min(n, len(d.buf)))
		for i := 0; i < n && d.err == nil; i++ {
			l = append(l, d.value(depth+1))
		}
		return l
	default:
		d.fail("bad value tag")
		return nil
	}
}
