package policycheck

import (
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// parseAST returns the parsed AST of an expression in kube-apiserver's
// environment (every macro and syntax), nil if it does not parse
// (kube-apiserver's compile errors are the validators' to report).
func parseAST(text string) *cel.Ast {
	env, err := costEnv()
	if err != nil {
		return nil
	}
	a, iss := env.Parse(text)
	if iss.Err() != nil {
		return nil
	}
	return a
}

// parse returns the expression of parseAST, nil if it does not parse.
func parse(text string) ast.Expr {
	a := parseAST(text)
	if a == nil {
		return nil
	}
	return a.NativeRep().Expr()
}

// Path segments beyond field names.
const (
	segItem  = "[*]" // an item of a list, or a key of a map (a one-variable comprehension)
	segValue = "[v]" // an item of a list, or a value of a map
	segKey   = "[k]" // a constant map key or list index, resolved by the schema
)

// path is a value read from a root variable (object, oldObject, params).
type path struct {
	root string
	segs []string
}

func (p path) child(s string) path {
	segs := make([]string, len(p.segs), len(p.segs)+1)
	copy(segs, p.segs)
	return path{root: p.root, segs: append(segs, s)}
}

// String writes the path as CEL: object.spec.containers[*].image.
func (p path) String() string {
	var b strings.Builder
	b.WriteString(p.root)
	for _, s := range p.segs {
		if k, ok := strings.CutPrefix(s, segKey); ok {
			b.WriteString("['" + k + "']")
			continue
		}
		if strings.HasPrefix(s, "[") {
			if s == segValue {
				s = segItem
			}
			b.WriteString(s)
			continue
		}
		b.WriteByte('.')
		b.WriteString(s)
	}
	return b.String()
}

// scope maps the names an expression can read to paths: iteration and
// bound variables, and variables.<name>.
type scope struct {
	vars   map[string]path
	parent *scope
}

func (s *scope) lookup(name string) (path, bool) {
	for ; s != nil; s = s.parent {
		if p, ok := s.vars[name]; ok {
			return p, true
		}
	}
	return path{}, false
}

func (s *scope) with(name string, p path, ok bool) *scope {
	child := &scope{vars: map[string]path{}, parent: s}
	if ok {
		child.vars[name] = p
	} else {
		// hide an outer binding of the same name
		child.vars[name] = path{}
	}
	return child
}

// roots are the variables whose fields have schemas.
var roots = map[string]bool{"object": true, "oldObject": true, "params": true}

// pathOf returns the path e reads, if it reads one from a root through
// field selections and indexes.
func pathOf(e ast.Expr, sc *scope) (path, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		name := e.AsIdent()
		if p, ok := sc.lookup(name); ok {
			return p, p.root != ""
		}
		if roots[name] {
			return path{root: name}, true
		}
	case ast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return path{}, false
		}
		if op := s.Operand(); op.Kind() == ast.IdentKind && op.AsIdent() == "variables" {
			p, ok := sc.lookup("variables." + s.FieldName())
			return p, ok && p.root != ""
		}
		p, ok := pathOf(s.Operand(), sc)
		if !ok {
			return path{}, false
		}
		return p.child(s.FieldName()), true
	case ast.CallKind:
		c := e.AsCall()
		if c.FunctionName() == operators.Index && len(c.Args()) == 2 {
			p, ok := pathOf(c.Args()[0], sc)
			if !ok {
				return path{}, false
			}
			if k, isStr := constString(c.Args()[1]); isStr {
				return p.child(segKey + k), true
			}
			return p.child(segValue), true
		}
	}
	return path{}, false
}

func constString(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}

// optionalPathOf returns the path an optional chain reads (a.?b.?c, a.b.?c),
// its optional selections taken as field selections.
func optionalPathOf(e ast.Expr, sc *scope) (path, bool) {
	if e.Kind() == ast.CallKind {
		c := e.AsCall()
		if c.FunctionName() == operators.OptSelect && len(c.Args()) == 2 {
			p, ok := optionalPathOf(c.Args()[0], sc)
			name, isStr := constString(c.Args()[1])
			if !ok || !isStr {
				return path{}, false
			}
			return p.child(name), true
		}
	}
	if e.Kind() == ast.SelectKind && !e.AsSelect().IsTestOnly() {
		p, ok := optionalPathOf(e.AsSelect().Operand(), sc)
		if !ok {
			return path{}, false
		}
		return p.child(e.AsSelect().FieldName()), true
	}
	return pathOf(e, sc)
}
