package authzcond

import (
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types/ref"
)

// InterruptCheckFrequency is kube-apiserver's celconfig.CheckFrequency: a
// comprehension looks at the context every this many iterations.
const InterruptCheckFrequency = 100

// hasComprehension reports whether an expression has a comprehension.
func hasComprehension(e ast.Expr) bool {
	found := false
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		found = found || e.Kind() == ast.ComprehensionKind
	}))
	return found
}

// evalResult is the outcome of one program, as kube-apiserver's ContextEval
// returns it, with its cost when it was tracked.
type evalResult struct {
	val  ref.Val
	cost uint64
	err  error
}
