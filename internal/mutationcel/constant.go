package mutationcel

import (
	"context"
	"sync"

	"github.com/google/cel-go/common/ast"
)

// Constant mutations.
//
// A mutation whose expression reads nothing of the request (no identifier:
// not object, oldObject, params, request, namespaceObject, authorizer nor
// variables) and iterates nothing (no comprehension, which could notice a
// cancelled context) evaluates to the same patch, with the same cost and
// errors, on every request: cel-go is deterministic there. The sidecar
// injections of the published policies are such: an Object of constant
// fields. Its patch is evaluated by cel-go once, on first use, and each
// request gets a copy of it (the patch's maps and lists may end up in the
// admitted object). The budget is the mutation's own (MutationCostBudget,
// one per mutation and request), so the first evaluation's verdict is every
// request's.

// constantPatch is a constant mutation's patch, evaluated once.
type constantPatch struct {
	once  sync.Once
	patch Patch
	err   error
}

// isConstant tells whether a checked expression reads nothing of the
// request and iterates nothing.
func isConstant(e ast.Expr) bool {
	constant := true
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		switch e.Kind() {
		case ast.IdentKind, ast.ComprehensionKind:
			constant = false
		}
	}))
	return constant
}

// evaluate returns the constant patch, evaluating it with eval the first
// time, and a copy of it.
func (c *constantPatch) evaluate(eval func(context.Context) (Patch, error)) (Patch, error) {
	c.once.Do(func() { c.patch, c.err = eval(context.Background()) })
	if c.err != nil {
		return Patch{}, c.err
	}
	out := Patch{ApplyConfiguration: copyValue(c.patch.ApplyConfiguration).(map[string]any)}
	if c.patch.JSONPatch != nil {
		out.JSONPatch = append([]byte(nil), c.patch.JSONPatch...)
	}
	return out, nil
}

// copyValue copies the maps and lists of a patch's value; the other values
// (strings, numbers, booleans, and CEL's own values) are immutable.
func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = copyValue(x)
		}
		return out
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = copyValue(x)
		}
		return out
	}
	return v
}
