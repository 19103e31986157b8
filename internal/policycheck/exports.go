package policycheck

import (
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Parse returns the parsed AST of an expression, nil if it does not parse.
func Parse(text string) ast.Expr { return parse(text) }

// MatchedKinds returns the kinds of the objects that the resource rules of
// mr match (wildcard resources left out), at most 16, sorted.
func MatchedKinds(mr *admissionregistrationv1.MatchResources, k *Kinds) []schema.GroupVersionKind {
	return matchedKinds(mr, k.Served())
}

// EveryRequest tells whether a policy's expressions that do not depend on
// a choice within them are evaluated on every request its rules match and
// that their errors fail the request: failurePolicy Fail, no match
// condition, no wildcard resource.
func EveryRequest(p *Policy) bool {
	if p.FailurePolicyIgnore || hasWildcardResource(p.MatchConstraints) {
		return false
	}
	for _, e := range p.Expressions {
		if e.Kind == MatchCondition {
			return false
		}
	}
	return true
}

// Unconditional tells whether an expression builds its value without a
// choice: no conditional, no logical operator, no optional field or entry,
// no comprehension.
func Unconditional(e ast.Expr) bool {
	ok := true
	var visit func(ast.Expr)
	visit = func(e ast.Expr) {
		if !ok {
			return
		}
		switch e.Kind() {
		case ast.CallKind:
			c := e.AsCall()
			switch c.FunctionName() {
			case operators.Conditional, operators.LogicalAnd, operators.LogicalOr:
				ok = false
				return
			}
			if c.IsMemberFunction() {
				visit(c.Target())
			}
			for _, a := range c.Args() {
				visit(a)
			}
		case ast.ComprehensionKind:
			ok = false
		case ast.SelectKind:
			visit(e.AsSelect().Operand())
		case ast.ListKind:
			l := e.AsList()
			if len(l.OptionalIndices()) > 0 {
				ok = false
				return
			}
			for _, el := range l.Elements() {
				visit(el)
			}
		case ast.MapKind:
			for _, en := range e.AsMap().Entries() {
				me := en.AsMapEntry()
				if me.IsOptional() {
					ok = false
					return
				}
				visit(me.Key())
				visit(me.Value())
			}
		case ast.StructKind:
			for _, f := range e.AsStruct().Fields() {
				sf := f.AsStructField()
				if sf.IsOptional() {
					ok = false
					return
				}
				visit(sf.Value())
			}
		}
	}
	visit(e)
	return ok
}

// Parsed returns the expression as Check parsed it, nil before Check or
// if it does not parse.
func (e Expression) Parsed() ast.Expr {
	if e.parsed == nil {
		return nil
	}
	return e.parsed.NativeRep().Expr()
}

// ParsedAt returns the parsed expression of p at a field path, parsing it
// if Check has not.
func (p *Policy) ParsedAt(field, text string) ast.Expr {
	for _, e := range p.Expressions {
		if e.Field == field && e.parsed != nil {
			return e.Parsed()
		}
	}
	return parse(text)
}
