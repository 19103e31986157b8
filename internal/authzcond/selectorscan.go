package authzcond

import (
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// selectorUse records whether an expression selects a field named
// fieldSelector or labelSelector, anywhere and on any operand.
// kube-apiserver puts the selectors into the request only when some condition
// of the webhook does (a static scan of the checked expression, counting
// plain selects and the optional selects .?fieldSelector / .?labelSelector);
// otherwise `has(...)` on them is false even if the request has selectors.
type selectorUse struct {
	field, label bool
}

func scanSelectors(e ast.Expr) selectorUse {
	var use selectorUse
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		if use.field && use.label {
			return
		}
		var name string
		switch e.Kind() {
		case ast.SelectKind:
			name = e.AsSelect().FieldName()
		case ast.CallKind:
			call := e.AsCall()
			if call.FunctionName() != operators.OptSelect {
				return
			}
			args := call.Args()
			if len(args) != 2 || args[1].Kind() != ast.LiteralKind || args[1].AsLiteral().Type() != types.StringType {
				return
			}
			s, _ := args[1].AsLiteral().Value().(string)
			name = s
		}
		switch name {
		case fieldSelectorVarName:
			use.field = true
		case labelSelectorVarName:
			use.label = true
		}
	}))
	return use
}
