package authzcond

import (
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	authorizationv1 "k8s.io/api/authorization/v1"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// Native conditions.
//
// Most authorization match conditions are small boolean formulas over the
// strings of the request: has(request.resourceAttributes),
// request.resourceAttributes.namespace == 'kube-system',
// 'system:masters' in request.groups, request.user.startsWith('system:'),
// !, && and || of those, and request.groups.exists(g, ...) or .all(g, ...)
// of those over g. Such a condition is also compiled to a Go closure over
// the typed SubjectAccessReviewSpec, which the fast path calls instead of
// interpreting the condition with cel-go. A comprehension is left to cel-go
// when the context is cancelled: cel-go's may notice it.
//
// A native condition answers only when its answer is certain: a boolean
// that cel-go's evaluation would also give. Wherever cel-go would fail
// (a field of an absent resourceAttributes: "no such key"), the closure
// reports that it does not know, and the condition is evaluated by cel-go,
// which gives the error with its exact text. Like cel-go, && and || absorb
// such a failure when the other side decides (false && error is false).
// Native conditions are used only where the fast path is (a request within
// sizeBound, a condition whose cost is proven within the limit, no trace),
// so the cost limit can never trigger where they answer.
//
// FuzzNativeConditions compares them with the tracked cel-go program.

// nativeEnv is what a native condition reads: the request, and in the
// predicate of a comprehension over request.groups, the element.
type nativeEnv struct {
	s    *authorizationv1.SubjectAccessReviewSpec
	elem string
}

// nativeCond evaluates a condition; ok is false when cel-go must decide.
type nativeCond func(env nativeEnv) (val, ok bool)

// nativeString reads a string of the request, or a constant; ok is false
// when cel-go's evaluation would fail.
type nativeString func(env nativeEnv) (string, bool)

// compileNative compiles a checked condition to a native closure, or returns
// nil when the condition is not of the native shapes.
func compileNative(e ast.Expr) nativeCond { return compileNativeIn(e, "") }

// compileNativeIn is compileNative where iter, if set, names the element of
// the enclosing comprehension over request.groups.
func compileNativeIn(e ast.Expr, iter string) nativeCond {
	switch e.Kind() {
	case ast.LiteralKind:
		if b, ok := e.AsLiteral().(types.Bool); ok {
			v := bool(b)
			return func(nativeEnv) (bool, bool) { return v, true }
		}
	case ast.SelectKind:
		if e.AsSelect().IsTestOnly() {
			return nativePresence(e.AsSelect())
		}
	case ast.CallKind:
		return nativeCall(e.AsCall(), iter)
	case ast.ComprehensionKind:
		if iter == "" {
			return nativeGroupsComprehension(e.AsComprehension())
		}
	}
	return nil
}

// nativeGroupsComprehension compiles request.groups.exists(g, p) and
// request.groups.all(g, p), p native over g: the comprehensions the
// standard macros expand them to, node for node. As in cel-go, a true p
// decides exists and a false one all, whatever the other elements gave;
// otherwise a p that cel-go must decide leaves the whole to cel-go.
func nativeGroupsComprehension(c ast.ComprehensionExpr) nativeCond {
	q, ok := icel.QuantifierOf(c)
	if !ok || !isRequestField(q.Range, "groups") || q.Iter == sarVarName {
		return nil
	}
	start := q.All
	p := compileNativeIn(q.Predicate, q.Iter)
	if p == nil {
		return nil
	}
	// decisive is the value of p that decides: true for exists, false for
	// all; the result is start when no element decides.
	decisive := !start
	return func(env nativeEnv) (bool, bool) {
		known := true
		for _, g := range env.s.Groups {
			v, ok := p(nativeEnv{s: env.s, elem: g})
			if ok && v == decisive {
				return decisive, true
			}
			known = known && ok
		}
		return !decisive, known
	}
}

func nativeCall(c ast.CallExpr, iter string) nativeCond {
	args := c.Args()
	if c.IsMemberFunction() {
		if len(args) != 1 {
			return nil
		}
		target, arg := nativeStringOf(c.Target(), iter), nativeStringOf(args[0], iter)
		if target == nil || arg == nil {
			return nil
		}
		var op func(s, t string) bool
		switch c.FunctionName() {
		case "startsWith":
			op = strings.HasPrefix
		case "endsWith":
			op = strings.HasSuffix
		case "contains":
			op = strings.Contains
		default:
			return nil
		}
		return func(env nativeEnv) (bool, bool) {
			t, ok := target(env)
			if !ok {
				return false, false
			}
			a, ok := arg(env)
			if !ok {
				return false, false
			}
			return op(t, a), true
		}
	}
	switch c.FunctionName() {
	case "!_":
		if len(args) != 1 {
			return nil
		}
		x := compileNativeIn(args[0], iter)
		if x == nil {
			return nil
		}
		return func(env nativeEnv) (bool, bool) {
			v, ok := x(env)
			return !v, ok
		}
	case "_&&_", "_||_":
		if len(args) != 2 {
			return nil
		}
		l, r := compileNativeIn(args[0], iter), compileNativeIn(args[1], iter)
		if l == nil || r == nil {
			return nil
		}
		// decisive is the value that decides alone: false for &&, true
		// for ||; cel-go returns it even when the other side fails.
		decisive := c.FunctionName() == "_||_"
		return func(env nativeEnv) (bool, bool) {
			lv, lok := l(env)
			if lok && lv == decisive {
				return decisive, true
			}
			rv, rok := r(env)
			if rok && rv == decisive {
				return decisive, true
			}
			if lok && rok {
				return !decisive, true
			}
			return false, false
		}
	case "_==_", "_!=_":
		if len(args) != 2 {
			return nil
		}
		l, r := nativeStringOf(args[0], iter), nativeStringOf(args[1], iter)
		if l == nil || r == nil {
			return nil
		}
		equal := c.FunctionName() == "_==_"
		return func(env nativeEnv) (bool, bool) {
			lv, ok := l(env)
			if !ok {
				return false, false
			}
			rv, ok := r(env)
			if !ok {
				return false, false
			}
			return (lv == rv) == equal, true
		}
	case "@in":
		if len(args) != 2 {
			return nil
		}
		return nativeIn(args[0], args[1], iter)
	}
	return nil
}

// nativeIn compiles elem in list: a string in request.groups, in a list of
// constant strings, or a key of request.extra.
func nativeIn(elemExpr, listExpr ast.Expr, iter string) nativeCond {
	elem := nativeStringOf(elemExpr, iter)
	if elem == nil {
		return nil
	}
	switch {
	case isRequestField(listExpr, "groups"):
		return func(env nativeEnv) (bool, bool) {
			v, ok := elem(env)
			if !ok {
				return false, false
			}
			for _, g := range env.s.Groups {
				if g == v {
					return true, true
				}
			}
			return false, true
		}
	case isRequestField(listExpr, "extra"):
		return func(env nativeEnv) (bool, bool) {
			v, ok := elem(env)
			if !ok {
				return false, false
			}
			_, found := env.s.Extra[v]
			return found, true
		}
	case listExpr.Kind() == ast.ListKind:
		l := listExpr.AsList()
		if len(l.OptionalIndices()) > 0 {
			return nil
		}
		consts := make([]string, 0, l.Size())
		for _, e := range l.Elements() {
			if e.Kind() != ast.LiteralKind {
				return nil
			}
			str, ok := e.AsLiteral().(types.String)
			if !ok {
				return nil
			}
			consts = append(consts, string(str))
		}
		return func(env nativeEnv) (bool, bool) {
			v, ok := elem(env)
			if !ok {
				return false, false
			}
			for _, c := range consts {
				if c == v {
					return true, true
				}
			}
			return false, true
		}
	}
	return nil
}

// nativePresence compiles has(request.f) and has(request.attrs.f).
func nativePresence(sel ast.SelectExpr) nativeCond {
	field, operand := sel.FieldName(), sel.Operand()
	if isRequest(operand) {
		switch field {
		case "resourceAttributes":
			return func(env nativeEnv) (bool, bool) {
				return env.s.ResourceAttributes != nil, true
			}
		case "nonResourceAttributes":
			return func(env nativeEnv) (bool, bool) {
				return env.s.NonResourceAttributes != nil, true
			}
		case "user", "groups", "extra", "uid":
			// Always in kube-apiserver's request.
			return func(nativeEnv) (bool, bool) { return true, true }
		}
		return nil
	}
	switch {
	case isRequestField(operand, "resourceAttributes") && resourceString(field) != nil:
		// The strings are always there; the selectors are left to cel-go.
		return func(env nativeEnv) (bool, bool) {
			return env.s.ResourceAttributes != nil, env.s.ResourceAttributes != nil
		}
	case isRequestField(operand, "nonResourceAttributes") && (field == "path" || field == "verb"):
		return func(env nativeEnv) (bool, bool) {
			return env.s.NonResourceAttributes != nil, env.s.NonResourceAttributes != nil
		}
	}
	return nil
}

// nativeStringOf compiles a string constant or a string field of the
// request.
func nativeStringOf(e ast.Expr, iter string) nativeString {
	switch e.Kind() {
	case ast.LiteralKind:
		if str, ok := e.AsLiteral().(types.String); ok {
			v := string(str)
			return func(nativeEnv) (string, bool) { return v, true }
		}
		return nil
	case ast.IdentKind:
		if iter != "" && e.AsIdent() == iter {
			return func(env nativeEnv) (string, bool) { return env.elem, true }
		}
		return nil
	case ast.SelectKind:
	default:
		return nil
	}
	sel := e.AsSelect()
	if sel.IsTestOnly() {
		return nil
	}
	field, operand := sel.FieldName(), sel.Operand()
	switch {
	case isRequest(operand):
		switch field {
		case "user":
			return func(env nativeEnv) (string, bool) { return env.s.User, true }
		case "uid":
			return func(env nativeEnv) (string, bool) { return string(env.s.UID), true }
		}
	case isRequestField(operand, "resourceAttributes"):
		read := resourceString(field)
		if read == nil {
			return nil
		}
		return func(env nativeEnv) (string, bool) {
			if env.s.ResourceAttributes == nil {
				return "", false
			}
			return read(env.s.ResourceAttributes), true
		}
	case isRequestField(operand, "nonResourceAttributes"):
		var read func(*authorizationv1.NonResourceAttributes) string
		switch field {
		case "path":
			read = func(a *authorizationv1.NonResourceAttributes) string { return a.Path }
		case "verb":
			read = func(a *authorizationv1.NonResourceAttributes) string { return a.Verb }
		default:
			return nil
		}
		return func(env nativeEnv) (string, bool) {
			if env.s.NonResourceAttributes == nil {
				return "", false
			}
			return read(env.s.NonResourceAttributes), true
		}
	}
	return nil
}

// resourceString reads the string field of resourceAttributes by its name;
// nil for the selectors and unknown names.
func resourceString(field string) func(*authorizationv1.ResourceAttributes) string {
	switch field {
	case "namespace":
		return func(a *authorizationv1.ResourceAttributes) string { return a.Namespace }
	case "verb":
		return func(a *authorizationv1.ResourceAttributes) string { return a.Verb }
	case "group":
		return func(a *authorizationv1.ResourceAttributes) string { return a.Group }
	case "version":
		return func(a *authorizationv1.ResourceAttributes) string { return a.Version }
	case "resource":
		return func(a *authorizationv1.ResourceAttributes) string { return a.Resource }
	case "subresource":
		return func(a *authorizationv1.ResourceAttributes) string { return a.Subresource }
	case "name":
		return func(a *authorizationv1.ResourceAttributes) string { return a.Name }
	}
	return nil
}

// isRequest reports whether e is the variable request.
func isRequest(e ast.Expr) bool {
	return e.Kind() == ast.IdentKind && e.AsIdent() == sarVarName
}

// isRequestField reports whether e is request.<field>.
func isRequestField(e ast.Expr, field string) bool {
	if e.Kind() != ast.SelectKind {
		return false
	}
	sel := e.AsSelect()
	return !sel.IsTestOnly() && sel.FieldName() == field && isRequest(sel.Operand())
}
