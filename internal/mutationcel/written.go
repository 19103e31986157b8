package mutationcel

import (
	"slices"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// writtenFields computes, from an ApplyConfiguration expression's checked
// AST, the fields its patch may set: every path the Object initializers
// spell out, down to the first value that is not an initializer or a
// literal list or map of them (its whole subtree may then be written).
// "[*]" stands for the items of a list. complete is false when the
// expression's value is not built of initializers (a variable, a function's
// result): then nothing is known statically.
func writtenFields(e ast.Expr) (paths []string, complete bool) {
	set := map[string]bool{}
	complete = collectWritten(e, "", set)
	if !complete {
		return nil, false
	}
	paths = make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths, true
}

// collectWritten adds to set the paths that the Object value e writes under
// path; it returns false when e is not an Object initializer (or a choice
// between them).
func collectWritten(e ast.Expr, path string, set map[string]bool) bool {
	switch e.Kind() {
	case ast.StructKind:
		s := e.AsStruct()
		if !isObjectTypeName(s.TypeName()) {
			return false
		}
		for _, f := range s.Fields() {
			sf := f.AsStructField()
			collectValue(sf.Value(), path+"."+sf.Name(), set)
		}
		return true
	case ast.CallKind:
		c := e.AsCall()
		if c.FunctionName() == operators.Conditional && len(c.Args()) == 3 {
			return collectWritten(c.Args()[1], path, set) && collectWritten(c.Args()[2], path, set)
		}
	}
	return false
}

// collectValue adds the paths a field's value writes at path: those of an
// initializer, of the items of a list literal, of the keys of a map literal
// with constant string keys; otherwise path itself.
func collectValue(e ast.Expr, path string, set map[string]bool) {
	switch e.Kind() {
	case ast.StructKind:
		if len(e.AsStruct().Fields()) == 0 {
			set[path] = true
			return
		}
		if collectWritten(e, path, set) {
			return
		}
	case ast.ListKind:
		elems := e.AsList().Elements()
		if len(elems) == 0 {
			set[path] = true
			return
		}
		for _, el := range elems {
			if el.Kind() == ast.StructKind || el.Kind() == ast.MapKind {
				collectValue(el, path+"[*]", set)
			} else {
				set[path] = true
			}
		}
		return
	case ast.MapKind:
		entries := e.AsMap().Entries()
		if len(entries) == 0 {
			set[path] = true
			return
		}
		for _, en := range entries {
			me := en.AsMapEntry()
			k := me.Key()
			if k.Kind() != ast.LiteralKind {
				set[path] = true
				continue
			}
			s, ok := k.AsLiteral().(types.String)
			if !ok {
				set[path] = true
				continue
			}
			collectValue(me.Value(), path+fieldPathSegment(string(s)), set)
		}
		return
	}
	set[path] = true
}

// fieldPathSegment writes a map key as a path segment: ".key", or "[key]"
// when the key holds a dot or a bracket.
func fieldPathSegment(k string) string {
	if strings.ContainsAny(k, ".[]") {
		return "[" + k + "]"
	}
	return "." + k
}

// WrittenFields computes the fields an ApplyConfiguration expression's
// patch may set from its AST, checked or only parsed (see writtenFields).
func WrittenFields(e ast.Expr) (paths []string, complete bool) { return writtenFields(e) }
