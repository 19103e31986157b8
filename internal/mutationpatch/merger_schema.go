package mutationpatch

import (
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// maxListKeys bounds the key fields of an associative list the Merger
// handles; lists with more keys take the exact path.
const maxListKeys = 3

// scalarKind is the kind of scalar an atom accepts.
type scalarKind uint8

const (
	noScalar scalarKind = iota
	numericScalar
	stringScalar
	booleanScalar
	untypedScalar
	// unknownScalar is a scalar type structured-merge-diff does not know:
	// every non-null value of it is an error.
	unknownScalar
)

// mergeNode is one resolved type of the schema, as the Merger walks it: the
// atom's scalar, map and list parts, with the types they refer to compiled.
type mergeNode struct {
	// bad is set for a type reference that does not resolve, or an atom
	// with no part: structured-merge-diff reports an error for any value.
	bad bool

	scalar scalarKind

	hasMap    bool
	mapAtomic bool
	// fields are the declared fields of a struct; elem, if not nil, the type
	// of any other key.
	fields map[string]*mergeNode
	elem   *mergeNode

	hasList     bool
	listAtomic  bool
	listAssoc   bool
	listElem    *mergeNode
	keys        []string
	keyDefaults []any
	// keysBad is set for an associative list with keys whose keys the
	// Merger does not handle (too many, no map element, a default it cannot
	// compare).
	keysBad bool
}

// kinds counts the parts of the atom.
func (n *mergeNode) kinds() int {
	k := 0
	if n.scalar != noScalar {
		k++
	}
	if n.hasMap {
		k++
	}
	if n.hasList {
		k++
	}
	return k
}

// field returns the type of key k of a map, or nil if the schema declares
// none (a field structured-merge-diff's validation rejects).
func (n *mergeNode) field(k string) *mergeNode {
	if f, ok := n.fields[k]; ok {
		return f
	}
	return n.elem
}

// namedRef identifies a named type and its element relationship override.
type namedRef struct {
	name     string
	override smdschema.ElementRelationship
	has      bool
}

// nodeCompiler compiles type references to mergeNodes; named types once,
// so recursive types (JSONSchemaProps, the deduced type) close on themselves.
type nodeCompiler struct {
	s     *smdschema.Schema
	named map[namedRef]*mergeNode
}

func (c *nodeCompiler) compile(tr smdschema.TypeRef) *mergeNode {
	var key namedRef
	if tr.NamedType != nil {
		key.name = *tr.NamedType
		if tr.ElementRelationship != nil {
			key.override, key.has = *tr.ElementRelationship, true
		}
		if n, ok := c.named[key]; ok {
			return n
		}
	}
	n := &mergeNode{}
	if tr.NamedType != nil {
		c.named[key] = n
	}
	a, ok := c.s.Resolve(tr)
	if !ok {
		n.bad = true
		return n
	}
	if a.Scalar != nil {
		switch *a.Scalar {
		case smdschema.Numeric:
			n.scalar = numericScalar
		case smdschema.String:
			n.scalar = stringScalar
		case smdschema.Boolean:
			n.scalar = booleanScalar
		case smdschema.Untyped:
			n.scalar = untypedScalar
		default:
			n.scalar = unknownScalar
		}
	}
	if m := a.Map; m != nil {
		n.hasMap = true
		n.mapAtomic = m.ElementRelationship == smdschema.Atomic
		n.fields = make(map[string]*mergeNode, len(m.Fields))
		for _, f := range m.Fields {
			// As Map.FindField, the last of two fields of one name wins.
			n.fields[f.Name] = c.compile(f.Type)
		}
		if m.ElementType != (smdschema.TypeRef{}) {
			n.elem = c.compile(m.ElementType)
		}
	}
	if l := a.List; l != nil {
		n.hasList = true
		n.listAtomic = l.ElementRelationship == smdschema.Atomic
		n.listAssoc = l.ElementRelationship == smdschema.Associative
		n.listElem = c.compile(l.ElementType)
		if n.listAssoc && len(l.Keys) > 0 {
			n.keys = l.Keys
			n.keyDefaults, n.keysBad = c.keyDefaults(l)
		}
	}
	if n.kinds() == 0 {
		n.bad = true
	}
	return n
}

// keyDefaults returns the default of each key field of an associative list,
// as getAssociativeKeyDefault finds them, or bad if the Merger cannot use
// them.
func (c *nodeCompiler) keyDefaults(l *smdschema.List) (defaults []any, bad bool) {
	if len(l.Keys) > maxListKeys {
		return nil, true
	}
	a, ok := c.s.Resolve(l.ElementType)
	if !ok || a.Map == nil {
		return nil, true
	}
	defaults = make([]any, len(l.Keys))
	for i, k := range l.Keys {
		f, _ := a.Map.FindField(k)
		switch d := f.Default.(type) {
		case nil:
		case string, bool, int64:
			defaults[i] = d
		case int:
			defaults[i] = int64(d)
		default:
			return nil, true
		}
	}
	return defaults, false
}
