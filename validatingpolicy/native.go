package validatingpolicy

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// Native expressions: see "Native expressions" in the package
// documentation.
//
// A native expression is a closure over the request's unstructured objects
// (map[string]any, []any, string, int64, bool, nil) that gives the value
// cel-go would give, and an upper bound of the cost cel-go would charge, or
// reports that it does not know. It does not know whenever cel-go would
// fail (no such key, a field of null, no such overload) and whenever a value
// is one it does not model (a double, a typed nil, any other Go type): the
// expression is then evaluated by cel-go, which gives the exact value, error
// and cost. It follows cel-go's evaluation path exactly when it answers: &&,
// || and ?: short-circuit as cel-go's do, and an operand it does not know
// makes the whole expression unknown (an error is not absorbed natively, so
// that every step cel-go takes is one the closure took and bounded).

// maxNativeDepth is the deepest nesting of comprehensions a native
// expression may have.
const maxNativeDepth = 4

// nativeEnv is what a native expression reads.
type nativeEnv struct {
	ctx               context.Context
	object, oldObject any
	// params is the params' unstructured content (nil: null);
	// paramsState says whether it is known to be what cel-go sees.
	params      any
	paramsState uint8
	// vars are the policy's variables, computed on first use; nil without
	// variables.
	vars *nativeVarState
	// request is `request`; groups are its user's groups as a list, on
	// first use.
	request *admissionv1.AdmissionRequest
	groups  []any
	// locals are the comprehensions' current elements, by depth.
	locals [maxNativeDepth]any
}

// The states of nativeEnv.paramsState and of a variable.
const (
	stateUnknown uint8 = iota
	stateComputing
	stateDone
	stateFailed
)

// nativeVariables are a policy's variables compiled to native closures.
type nativeVariables struct {
	vars *admissioncel.PolicyVariables
	// progs are the variables' closures, by index; nil where a variable
	// has no native form.
	progs []nativeExpr
}

// nativeVarState are the variables of one list of expressions, computed
// on first use as kube-apiserver's lazy variables are (afresh for each list).
type nativeVarState struct {
	progs  []nativeExpr
	values []any
	bounds []uint64
	state  []uint8
	// charged are the variables whose bound the running expression was
	// charged.
	charged []bool
}

func (v *nativeVariables) newState() *nativeVarState {
	if v == nil || len(v.progs) == 0 {
		return nil
	}
	n := len(v.progs)
	return &nativeVarState{progs: v.progs, values: make([]any, n), bounds: make([]uint64, n), state: make([]uint8, n), charged: make([]bool, n)}
}

// nativeExpr evaluates an expression: its value, an upper bound of the cost
// cel-go charges for it (and of its evaluation steps), and whether the
// value is certain to be cel-go's.
type nativeExpr func(env *nativeEnv) (val any, cost uint64, ok bool)

// nativeProgram is an expression compiled to a native closure.
type nativeProgram struct {
	eval nativeExpr
}

// run evaluates the program; the value is cel-go's (types.Bool,
// types.String or types.NullValue).
func (p *nativeProgram) run(env *nativeEnv) (ref.Val, uint64, bool) {
	if env.vars != nil {
		clear(env.vars.charged)
	}
	v, cost, ok := p.eval(env)
	if !ok {
		return nil, 0, false
	}
	switch x := v.(type) {
	case bool:
		return types.Bool(x), cost, true
	case string:
		return types.String(x), cost, true
	case nil:
		return types.NullValue, cost, true
	}
	return nil, 0, false
}

// compileNative compiles a checked expression, or returns nil when it is not
// of the native shapes.
func compileNative(e ast.Expr, vars *nativeVariables) *nativeProgram {
	c := &nativeCompiler{vars: vars}
	f := c.compile(e)
	if f == nil {
		return nil
	}
	return &nativeProgram{eval: f}
}

type nativeCompiler struct {
	vars *nativeVariables
	// scope are the comprehension variables in scope, outermost first;
	// the index of one is its slot in nativeEnv.locals.
	scope []string
}

func (c *nativeCompiler) compile(e ast.Expr) nativeExpr {
	switch e.Kind() {
	case ast.LiteralKind:
		var v any
		switch l := e.AsLiteral().(type) {
		case types.Bool:
			v = bool(l)
		case types.String:
			v = string(l)
		case types.Int:
			v = int64(l)
		case types.Null:
			v = nil
		default:
			return nil
		}
		return func(*nativeEnv) (any, uint64, bool) { return v, 1, true }
	case ast.IdentKind:
		return c.ident(e.AsIdent())
	case ast.SelectKind:
		sel := e.AsSelect()
		if v := c.variable(sel); v != nil {
			return v
		}
		if r := c.requestField(sel); r != nil {
			return r
		}
		operand := c.compile(sel.Operand())
		if operand == nil {
			return nil
		}
		field := sel.FieldName()
		if sel.IsTestOnly() {
			return func(env *nativeEnv) (any, uint64, bool) {
				m, cost, ok := operand(env)
				if !ok {
					return nil, 0, false
				}
				mm, isMap := m.(map[string]any)
				if !isMap || mm == nil {
					return nil, 0, false
				}
				_, found := mm[field]
				return found, cost + 1, true
			}
		}
		return func(env *nativeEnv) (any, uint64, bool) {
			m, cost, ok := operand(env)
			if !ok {
				return nil, 0, false
			}
			v, ok := lookup(m, field)
			return v, cost + 1, ok
		}
	case ast.ListKind:
		return c.list(e.AsList())
	case ast.CallKind:
		return c.call(e.AsCall())
	case ast.ComprehensionKind:
		return c.comprehension(e.AsComprehension())
	}
	return nil
}

// list compiles a list literal.
func (c *nativeCompiler) list(l ast.ListExpr) nativeExpr {
	if len(l.OptionalIndices()) > 0 {
		return nil
	}
	elems := make([]nativeExpr, l.Size())
	for i, e := range l.Elements() {
		if elems[i] = c.compile(e); elems[i] == nil {
			return nil
		}
	}
	return func(env *nativeEnv) (any, uint64, bool) {
		out := make([]any, len(elems))
		// cel-go's cost of creating a list.
		cost := uint64(common.ListCreateBaseCost) + 1
		for i, e := range elems {
			v, c, ok := e(env)
			if !ok {
				return nil, 0, false
			}
			out[i] = v
			cost += c
		}
		return out, cost, true
	}
}

func (c *nativeCompiler) ident(name string) nativeExpr {
	for i := len(c.scope) - 1; i >= 0; i-- {
		if c.scope[i] == name {
			return func(env *nativeEnv) (any, uint64, bool) { return env.locals[i], 1, true }
		}
	}
	switch name {
	case admissioncel.ObjectVarName:
		return func(env *nativeEnv) (any, uint64, bool) { return env.object, 1, true }
	case admissioncel.OldObjectVarName:
		return func(env *nativeEnv) (any, uint64, bool) { return env.oldObject, 1, true }
	case admissioncel.ParamsVarName:
		return func(env *nativeEnv) (any, uint64, bool) {
			if env.paramsState == stateUnknown {
				env.paramsState = stateFailed
				if jsonStable(env.params) {
					env.paramsState = stateDone
				}
			}
			return env.params, 1, env.paramsState == stateDone
		}
	}
	return nil
}

// jsonStable reports whether unstructured content is unchanged by a JSON
// round trip, which kube-apiserver's params go through (an
// unstructured.Unstructured converted to CEL): valid UTF-8 strings and
// keys, int64s, bools, nulls, non-nil lists and maps. Doubles (2.0 becomes
// an int), typed nils (null), other Go types and invalid UTF-8 (replaced)
// are not.
func jsonStable(v any) bool {
	switch x := v.(type) {
	case nil, bool, int64:
		return true
	case string:
		return utf8.ValidString(x)
	case []any:
		if x == nil {
			return false
		}
		for _, e := range x {
			if !jsonStable(e) {
				return false
			}
		}
		return true
	case map[string]any:
		if x == nil {
			return false
		}
		for k, e := range x {
			if !utf8.ValidString(k) || !jsonStable(e) {
				return false
			}
		}
		return true
	}
	return false
}

// requestField compiles request.<f>, request.userInfo.<f>,
// request.kind.<f> and request.resource.<f> for their strings (and the
// groups of request.userInfo), and has() of them. cel-go sees the
// AdmissionRequest as its JSON object: a field with omitempty is absent
// when empty (has() is false, selecting it fails).
func (c *nativeCompiler) requestField(sel ast.SelectExpr) nativeExpr {
	if c.inScope(admissioncel.RequestVarName) {
		return nil
	}
	operand, field := sel.Operand(), sel.FieldName()
	var read func(r *admissionv1.AdmissionRequest, env *nativeEnv) (any, bool)
	switch {
	case isIdent(operand, admissioncel.RequestVarName):
		switch field {
		case "uid":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return string(r.UID), true }
		case "operation":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return string(r.Operation), true }
		case "name":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return r.Name, r.Name != "" }
		case "namespace":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return r.Namespace, r.Namespace != "" }
		case "subResource":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) {
				return r.SubResource, r.SubResource != ""
			}
		}
	case isRequestField(operand, "userInfo"):
		switch field {
		case "username":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) {
				return r.UserInfo.Username, r.UserInfo.Username != ""
			}
		case "uid":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) {
				return r.UserInfo.UID, r.UserInfo.UID != ""
			}
		case "groups":
			read = func(r *admissionv1.AdmissionRequest, env *nativeEnv) (any, bool) {
				if len(r.UserInfo.Groups) == 0 {
					return nil, false
				}
				if env.groups == nil {
					env.groups = make([]any, len(r.UserInfo.Groups))
					for i, g := range r.UserInfo.Groups {
						env.groups[i] = g
					}
				}
				return env.groups, true
			}
		}
	case isRequestField(operand, "kind"):
		switch field {
		case "group":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return r.Kind.Group, true }
		case "version":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return r.Kind.Version, true }
		case "kind":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return r.Kind.Kind, true }
		}
	case isRequestField(operand, "resource"):
		switch field {
		case "group":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return r.Resource.Group, true }
		case "version":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return r.Resource.Version, true }
		case "resource":
			read = func(r *admissionv1.AdmissionRequest, _ *nativeEnv) (any, bool) { return r.Resource.Resource, true }
		}
	}
	if read == nil {
		return nil
	}
	// request, the selections: at most 3.
	if sel.IsTestOnly() {
		return func(env *nativeEnv) (any, uint64, bool) {
			if env.request == nil {
				return nil, 0, false
			}
			_, present := read(env.request, env)
			return present, 3, true
		}
	}
	return func(env *nativeEnv) (any, uint64, bool) {
		if env.request == nil {
			return nil, 0, false
		}
		v, present := read(env.request, env)
		return v, 3, present
	}
}

func isIdent(e ast.Expr, name string) bool {
	return e.Kind() == ast.IdentKind && e.AsIdent() == name
}

// isRequestField reports whether e is request.<field>.
func isRequestField(e ast.Expr, field string) bool {
	if e.Kind() != ast.SelectKind {
		return false
	}
	sel := e.AsSelect()
	return !sel.IsTestOnly() && sel.FieldName() == field && isIdent(sel.Operand(), admissioncel.RequestVarName)
}

func (c *nativeCompiler) inScope(name string) bool {
	for _, n := range c.scope {
		if n == name {
			return true
		}
	}
	return false
}

// variable compiles variables.<name>: the variable's native closure, run
// on first use (in an environment of its own: it has no comprehension
// variables) and kept for the rest of the list. Each expression that reads
// a variable is charged its bound once, as kube-apiserver charges the cost
// of a variable to the expression that computes it.
func (c *nativeCompiler) variable(sel ast.SelectExpr) nativeExpr {
	operand := sel.Operand()
	if sel.IsTestOnly() || c.vars == nil || !isIdent(operand, admissioncel.VariablesVarName) || c.inScope(admissioncel.VariablesVarName) {
		return nil
	}
	i, ok := c.vars.vars.Index(sel.FieldName())
	if !ok {
		return nil
	}
	return func(env *nativeEnv) (any, uint64, bool) {
		vs := env.vars
		if vs == nil || vs.progs[i] == nil {
			return nil, 0, false
		}
		switch vs.state[i] {
		case stateUnknown:
			vs.state[i] = stateComputing
			sub := nativeEnv{ctx: env.ctx, object: env.object, oldObject: env.oldObject, params: env.params, paramsState: env.paramsState, vars: vs, request: env.request}
			v, bound, ok := vs.progs[i](&sub)
			env.paramsState = sub.paramsState
			if !ok || bound > icel.PerCallLimit {
				vs.state[i] = stateFailed
				return nil, 0, false
			}
			vs.state[i], vs.values[i], vs.bounds[i] = stateDone, v, bound
		case stateDone:
		default:
			return nil, 0, false
		}
		cost := uint64(2)
		if !vs.charged[i] {
			vs.charged[i] = true
			cost += vs.bounds[i]
		}
		return vs.values[i], cost, true
	}
}

// lookup selects a field of an object: known only when the object is a map
// that has it.
func lookup(m any, field string) (any, bool) {
	mm, ok := m.(map[string]any)
	if !ok || mm == nil {
		return nil, false
	}
	v, found := mm[field]
	return v, found
}

// kind is how a native expression sees a value.
type kind uint8

const (
	kindOther kind = iota // a value cel-go must handle
	kindNull
	kindBool
	kindInt
	kindString
	kindList
	kindMap
)

// classify returns the kind of an unstructured value. Typed nil lists
// and maps are of kind other: cel-go sees them as null in the typed view
// and as empty elsewhere.
func classify(v any) kind {
	switch x := v.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBool
	case string:
		return kindString
	case int64, int, int32:
		return kindInt
	case []any:
		if x != nil {
			return kindList
		}
	case map[string]any:
		if x != nil {
			return kindMap
		}
	}
	return kindOther
}

// intOf is the value of a value of kind int.
func intOf(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	}
	return v.(int64)
}

// scalarEqual compares two values of the same scalar kind.
func scalarEqual(k kind, a, b any) bool {
	switch k {
	case kindInt:
		return intOf(a) == intOf(b)
	case kindString:
		return a.(string) == b.(string)
	case kindBool:
		return a.(bool) == b.(bool)
	}
	return true // null
}

// strCost is an upper bound of cel-go's cost of traversing a string of n
// bytes (ceil(runes × 0.1)).
func strCost(n int) uint64 { return uint64(n)/10 + 1 }

func (c *nativeCompiler) call(call ast.CallExpr) nativeExpr {
	args := call.Args()
	fn := call.FunctionName()
	if call.IsMemberFunction() {
		target := c.compile(call.Target())
		if target == nil {
			return nil
		}
		switch {
		case fn == "size" && len(args) == 0:
			return nativeSize(target)
		case (fn == "startsWith" || fn == "endsWith" || fn == "contains") && len(args) == 1:
			arg := c.compile(args[0])
			if arg == nil {
				return nil
			}
			return nativeStringTest(fn, target, arg)
		}
		return nil
	}
	compiled := make([]nativeExpr, len(args))
	for i, a := range args {
		if compiled[i] = c.compile(a); compiled[i] == nil {
			return nil
		}
	}
	switch {
	case fn == "size" && len(args) == 1:
		return nativeSize(compiled[0])
	case fn == operators.LogicalNot && len(args) == 1:
		x := compiled[0]
		return func(env *nativeEnv) (any, uint64, bool) {
			v, cost, ok := x(env)
			b, isBool := v.(bool)
			return !b, cost + 1, ok && isBool
		}
	case (fn == operators.LogicalAnd || fn == operators.LogicalOr) && len(args) == 2:
		l, r := compiled[0], compiled[1]
		decisive := fn == operators.LogicalOr
		return func(env *nativeEnv) (any, uint64, bool) {
			lv, lcost, ok := l(env)
			lb, isBool := lv.(bool)
			if !ok || !isBool {
				return nil, 0, false
			}
			if lb == decisive {
				return decisive, lcost + 1, true
			}
			rv, rcost, ok := r(env)
			rb, isBool := rv.(bool)
			return rb, lcost + rcost + 1, ok && isBool
		}
	case fn == operators.Conditional && len(args) == 3:
		cond, yes, no := compiled[0], compiled[1], compiled[2]
		return func(env *nativeEnv) (any, uint64, bool) {
			cv, ccost, ok := cond(env)
			b, isBool := cv.(bool)
			if !ok || !isBool {
				return nil, 0, false
			}
			branch := no
			if b {
				branch = yes
			}
			v, cost, ok := branch(env)
			return v, ccost + cost + 1, ok
		}
	case (fn == operators.Equals || fn == operators.NotEquals) && len(args) == 2:
		return nativeEquality(compiled[0], compiled[1], fn == operators.Equals)
	case (fn == operators.Less || fn == operators.LessEquals || fn == operators.Greater || fn == operators.GreaterEquals) && len(args) == 2:
		return nativeCompare(fn, compiled[0], compiled[1])
	case fn == operators.In && len(args) == 2:
		return nativeIn(compiled[0], compiled[1])
	case fn == operators.Index && len(args) == 2:
		return nativeIndex(compiled[0], compiled[1])
	case fn == operators.Add && len(args) == 2:
		return nativeConcat(compiled[0], compiled[1])
	}
	return nil
}

// binary evaluates both operands, as cel-go's strict calls do.
func binary(env *nativeEnv, l, r nativeExpr) (lv, rv any, cost uint64, ok bool) {
	lv, lcost, ok := l(env)
	if !ok {
		return nil, nil, 0, false
	}
	rv, rcost, ok := r(env)
	if !ok {
		return nil, nil, 0, false
	}
	return lv, rv, lcost + rcost, true
}

func nativeSize(x nativeExpr) nativeExpr {
	return func(env *nativeEnv) (any, uint64, bool) {
		v, cost, ok := x(env)
		if !ok {
			return nil, 0, false
		}
		switch classify(v) {
		case kindString:
			return int64(utf8.RuneCountInString(v.(string))), cost + 2, true
		case kindList:
			return int64(len(v.([]any))), cost + 2, true
		case kindMap:
			return int64(len(v.(map[string]any))), cost + 2, true
		}
		return nil, 0, false
	}
}

func nativeStringTest(fn string, target, arg nativeExpr) nativeExpr {
	return func(env *nativeEnv) (any, uint64, bool) {
		tv, av, cost, ok := binary(env, target, arg)
		if !ok {
			return nil, 0, false
		}
		s, ok1 := tv.(string)
		t, ok2 := av.(string)
		if !ok1 || !ok2 {
			return nil, 0, false
		}
		switch fn {
		case "startsWith":
			// cel-go 0.26 charges the string searched, later ones the prefix.
			return strings.HasPrefix(s, t), cost + strCost(max(len(s), len(t))) + 1, true
		case "endsWith":
			return strings.HasSuffix(s, t), cost + strCost(max(len(s), len(t))) + 1, true
		default:
			return strings.Contains(s, t), cost + strCost(len(s))*strCost(len(t)) + 1, true
		}
	}
}

// nativeEquality is == and != of scalars (strings, ints, bools, null):
// cel-go's heterogeneous equality, false between different kinds.
func nativeEquality(l, r nativeExpr, equal bool) nativeExpr {
	return func(env *nativeEnv) (any, uint64, bool) {
		lv, rv, cost, ok := binary(env, l, r)
		if !ok {
			return nil, 0, false
		}
		lk, rk := classify(lv), classify(rv)
		var eq bool
		switch {
		case lk == kindNull || rk == kindNull:
			// null equals only null, whatever the other side.
			if lk == kindOther || rk == kindOther {
				return nil, 0, false
			}
			eq = lk == rk
		case lk > kindString || rk > kindString || lk == kindOther || rk == kindOther:
			return nil, 0, false
		case lk != rk:
			eq = false
		default:
			eq = scalarEqual(lk, lv, rv)
		}
		size := 1
		if s, isStr := lv.(string); isStr {
			size = len(s)
		}
		if s, isStr := rv.(string); isStr {
			size = min(size, len(s))
		}
		return eq == equal, cost + strCost(size) + 1, true
	}
}

// nativeCompare orders two ints or two strings.
func nativeCompare(fn string, l, r nativeExpr) nativeExpr {
	return func(env *nativeEnv) (any, uint64, bool) {
		lv, rv, cost, ok := binary(env, l, r)
		if !ok {
			return nil, 0, false
		}
		lk, rk := classify(lv), classify(rv)
		var c int
		switch {
		case lk == kindInt && rk == kindInt:
			a, b := intOf(lv), intOf(rv)
			switch {
			case a < b:
				c = -1
			case a > b:
				c = 1
			}
			cost += 2
		case lk == kindString && rk == kindString:
			a, b := lv.(string), rv.(string)
			c = strings.Compare(a, b)
			cost += strCost(min(len(a), len(b))) + 1
		default:
			return nil, 0, false
		}
		var res bool
		switch fn {
		case operators.Less:
			res = c < 0
		case operators.LessEquals:
			res = c <= 0
		case operators.Greater:
			res = c > 0
		default:
			res = c >= 0
		}
		return res, cost, true
	}
}

// nativeIn is a string, int or bool in a list, or a string key in a map.
func nativeIn(elem, coll nativeExpr) nativeExpr {
	return func(env *nativeEnv) (any, uint64, bool) {
		ev, cv, cost, ok := binary(env, elem, coll)
		if !ok {
			return nil, 0, false
		}
		ek := classify(ev)
		switch classify(cv) {
		case kindMap:
			m := cv.(map[string]any)
			key, isStr := ev.(string)
			if !isStr {
				return nil, 0, false
			}
			_, found := m[key]
			return found, cost + uint64(len(m)) + 2, true
		case kindList:
			if ek != kindString && ek != kindInt && ek != kindBool {
				return nil, 0, false
			}
			l := cv.([]any)
			found := false
			for _, x := range l {
				switch xk := classify(x); {
				case xk == kindOther:
					// A double equals an int of the same value; other
					// values are left to cel-go.
					return nil, 0, false
				case xk == ek && scalarEqual(ek, x, ev):
					found = true
				}
			}
			return found, cost + uint64(len(l)) + 2, true
		}
		return nil, 0, false
	}
}

// nativeIndex is a map indexed by a string, or a list by an int in range.
func nativeIndex(coll, index nativeExpr) nativeExpr {
	return func(env *nativeEnv) (any, uint64, bool) {
		cv, iv, cost, ok := binary(env, coll, index)
		if !ok {
			return nil, 0, false
		}
		ik := classify(iv)
		switch ck := classify(cv); {
		case ck == kindMap && ik == kindString:
			v, found := cv.(map[string]any)[iv.(string)]
			return v, cost + 1, found
		case ck == kindList && ik == kindInt:
			l, i := cv.([]any), intOf(iv)
			if i < 0 || i >= int64(len(l)) {
				return nil, 0, false
			}
			return l[i], cost + 1, true
		}
		return nil, 0, false
	}
}

// nativeConcat is the concatenation of two strings.
func nativeConcat(l, r nativeExpr) nativeExpr {
	return func(env *nativeEnv) (any, uint64, bool) {
		lv, rv, cost, ok := binary(env, l, r)
		if !ok {
			return nil, 0, false
		}
		a, ok1 := lv.(string)
		b, ok2 := rv.(string)
		if !ok1 || !ok2 {
			return nil, 0, false
		}
		return a + b, cost + strCost(len(a)+len(b)) + 1, true
	}
}

// comprehension compiles list.all(x, p) and list.exists(x, p): the
// comprehensions the standard macros expand them to, node for node. As in
// cel-go, the first element whose p decides (false for all, true for
// exists) ends the iteration.
func (c *nativeCompiler) comprehension(comp ast.ComprehensionExpr) nativeExpr {
	q, ok := icel.QuantifierOf(comp)
	if !ok || len(c.scope) >= maxNativeDepth {
		return nil
	}
	start, iter := q.All, q.Iter
	rng := c.compile(q.Range)
	if rng == nil {
		return nil
	}
	slot := len(c.scope)
	c.scope = append(c.scope, iter)
	p := c.compile(q.Predicate)
	c.scope = c.scope[:slot]
	if p == nil {
		return nil
	}
	decisive := !start
	return func(env *nativeEnv) (any, uint64, bool) {
		rv, cost, ok := rng(env)
		if !ok || env.ctx.Err() != nil {
			// cel-go may notice the cancelled context.
			return nil, 0, false
		}
		if classify(rv) != kindList {
			return nil, 0, false
		}
		// The accumulator's initial value and the result.
		cost += 3
		for _, x := range rv.([]any) {
			env.locals[slot] = x
			v, pcost, ok := p(env)
			b, isBool := v.(bool)
			if !ok || !isBool {
				return nil, 0, false
			}
			// The loop condition (the accumulator, ! for exists,
			// @not_strictly_false), the step (the accumulator, && or ||)
			// and p.
			cost += pcost + 6
			if b == decisive {
				env.locals[slot] = nil
				return decisive, cost, true
			}
		}
		env.locals[slot] = nil
		return !decisive, cost, true
	}
}
