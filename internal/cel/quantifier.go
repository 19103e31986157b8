package cel

import (
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// Quantifier is a comprehension that the standard macros all(x, p) and
// exists(x, p) expand to, node for node: all is true, while accu, accu &&
// p; exists is false, while !accu, accu || p. The fast paths that evaluate
// such comprehensions natively recognise them here.
type Quantifier struct {
	// All tells all from exists; Iter names the element, Range is the list
	// iterated, Predicate is p.
	All       bool
	Iter      string
	Range     ast.Expr
	Predicate ast.Expr
}

// QuantifierOf recognises an all or exists of one iteration variable; ok is
// false for any other comprehension.
func QuantifierOf(comp ast.ComprehensionExpr) (q Quantifier, ok bool) {
	if comp.HasIterVar2() {
		return q, false
	}
	accu, iter := comp.AccuVar(), comp.IterVar()
	if iter == "" || iter == accu {
		return q, false
	}
	init := comp.AccuInit()
	if init.Kind() != ast.LiteralKind {
		return q, false
	}
	start, isBool := init.AsLiteral().(types.Bool)
	if !isBool {
		return q, false
	}
	isAccu := func(e ast.Expr) bool { return e.Kind() == ast.IdentKind && e.AsIdent() == accu }
	cond := comp.LoopCondition()
	if cond.Kind() != ast.CallKind || cond.AsCall().FunctionName() != operators.NotStrictlyFalse || len(cond.AsCall().Args()) != 1 {
		return q, false
	}
	inner := cond.AsCall().Args()[0]
	step := comp.LoopStep()
	if step.Kind() != ast.CallKind || len(step.AsCall().Args()) != 2 || !isAccu(step.AsCall().Args()[0]) || !isAccu(comp.Result()) {
		return q, false
	}
	if start {
		if !isAccu(inner) || step.AsCall().FunctionName() != operators.LogicalAnd {
			return q, false
		}
	} else {
		if inner.Kind() != ast.CallKind || inner.AsCall().FunctionName() != operators.LogicalNot ||
			len(inner.AsCall().Args()) != 1 || !isAccu(inner.AsCall().Args()[0]) || step.AsCall().FunctionName() != operators.LogicalOr {
			return q, false
		}
	}
	return Quantifier{All: bool(start), Iter: iter, Range: comp.IterRange(), Predicate: step.AsCall().Args()[1]}, true
}
