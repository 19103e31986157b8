package authzcond

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// The fast path.
//
// kube-apiserver evaluates every match condition with cost tracking: each
// step of the evaluation is observed and charged, so that an evaluation that
// goes over the per-call limit (1,000,000) stops with "operation cancelled:
// actual cost limit exceeded". Tracking is most of the time and of the
// allocations of a small condition, and for most conditions it can never
// trigger: their cost is bounded by a small number for every request whose
// strings, lists and maps are not huge.
//
// So a condition is also planned without cost tracking when cel-go's cost
// estimator, told that every string, list and map of the request has at most
// sizeBound elements, proves that its cost stays within the limit, and when
// it calls only functions whose runtime cost cel-go computes itself (so that
// the estimate and the runtime charge come from the same model). A request
// whose sizes are all within sizeBound is then evaluated on that plan: same
// interpretables, same results and errors, no tracking. Any other request or
// condition, and Explain, which reports costs, use the tracked program, built
// exactly as kube-apiserver builds it.

// sizeBound is the size up to which the fast path's estimates hold: the
// length in bytes of every string, the number of elements of every list and
// map of the request.
const sizeBound = 4096

// isFastFunction tells the functions a condition may call and still be
// planned without cost tracking: cel-go's operators and standard functions
// whose runtime cost cel-go computes (the Kubernetes cost estimator leaves
// them to cel-go) and whose estimate is an upper bound of it.
func isFastFunction(name string) bool {
	switch name {
	case "!_", "-_", "_&&_", "_||_", "_?_:_", "@not_strictly_false",
		"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_",
		"_+_", "_-_", "_*_", "_/_", "_%_",
		"@in", "_[_]", "_[?_]", "_?._",
		"size", "startsWith", "endsWith", "contains", "matches",
		"int", "uint", "double", "string", "bool", "dyn", "type",
		"optional.of", "optional.ofNonZeroValue", "optional.none",
		"hasValue", "value", "orValue", "or":
		return true
	}
	return false
}

// callsOnlyFastFunctions reports whether every call of e is to a fast
// function.
func callsOnlyFastFunctions(e ast.Expr) bool {
	ok := true
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		if ok && e.Kind() == ast.CallKind && !isFastFunction(e.AsCall().FunctionName()) {
			ok = false
		}
	}))
	return ok
}

// fastEstimator is the cost estimator of the fast path's proof.
type fastEstimator struct {
	variables map[string]bool // the variables whose values are bounded at runtime
}

func (e fastEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if p := n.Path(); len(p) > 0 && e.variables[p[0]] {
		return &checker.SizeEstimate{Min: 0, Max: sizeBound}
	}
	return nil
}

// EstimateCallCost leaves every call to cel-go's own estimates: only
// conditions that call fast functions are estimated.
func (fastEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// planner plans conditions for the fast path, sharing one dispatcher (the
// bindings of every function of the environment) between all of them. A
// cel.Program builds a dispatcher of its own, which is most of the time it
// takes to build one.
type planner struct {
	env         *cel.Env
	interpreter interpreter.Interpreter
	estimator   fastEstimator
	options     []interpreter.PlannerOption
}

func newPlanner(env *cel.Env, variables ...string) (*planner, error) {
	// Fast plans call only fast functions: their bindings are enough.
	disp := interpreter.NewDispatcher()
	for name, fn := range env.Functions() {
		if !isFastFunction(name) {
			continue
		}
		bindings, err := fn.Bindings()
		if err != nil {
			return nil, err
		}
		if err := disp.Add(bindings...); err != nil {
			return nil, err
		}
	}
	provider, adapter := env.CELTypeProvider(), env.CELTypeAdapter()
	attrs := interpreter.NewAttributeFactory(env.Container, adapter, provider, interpreter.EnableErrorOnBadPresenceTest(false))
	est := fastEstimator{variables: map[string]bool{}}
	for _, v := range variables {
		est.variables[v] = true
	}
	return &planner{
		env:         env,
		interpreter: interpreter.NewInterpreter(disp, env.Container, provider, adapter, attrs),
		estimator:   est,
		// The options of kube-apiserver's programs
		// without cost tracking, in cel-go's order: the decorators of the
		// libraries (of the functions a fast plan may call, only cel-go's
		// optional library has one), then cel-go's own.
		options: []interpreter.PlannerOption{
			interpreter.CustomDecoratorV2(shortCircuitOptionalOr),
			interpreter.InterruptableEval(),
			interpreter.Optimize(),
			interpreter.CompileRegexConstants(interpreter.MatchesRegexOptimization),
		},
	}, nil
}

// plan returns the untracked plan of a checked expression, or nil when its
// cost cannot be proven to stay within the per-call limit.
func (p *planner) plan(checked *cel.Ast) interpreter.InterpretableV2 {
	if !callsOnlyFastFunctions(checked.NativeRep().Expr()) {
		return nil
	}
	est, err := p.env.EstimateCost(checked, p.estimator)
	if err != nil || est.Max > icel.PerCallLimit {
		return nil
	}
	i, err := p.interpreter.NewInterpretable(checked.NativeRep(), p.options...)
	if err != nil {
		return nil
	}
	return i
}

// execUntracked evaluates a plan as cel.Program.Eval does, without tracking.
func execUntracked(i interpreter.InterpretableV2, f *interpreter.ExecutionFrame) (val ref.Val, err error) {
	defer func() {
		if r := recover(); r != nil {
			if t, ok := r.(interpreter.EvalCancelledError); ok {
				err = t
				return
			}
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	val = i.Exec(f)
	if types.IsError(val) {
		err = val.(*types.Err)
	}
	return val, err
}

// shortCircuitOptionalOr plans optional.or(optional) and
// optional.orValue(value) as cel-go's optional library does (they have no
// function binding): the argument is evaluated only when the optional is
// empty.
func shortCircuitOptionalOr(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
	call, ok := i.(interpreter.InterpretableCall)
	if !ok || len(call.Args()) != 2 {
		return i, nil
	}
	var unwrap bool
	switch call.Function() {
	case "or":
		if id := call.OverloadID(); id != "" && id != "optional_or_optional" {
			return i, nil
		}
	case "orValue":
		if id := call.OverloadID(); id != "" && id != "optional_orValue_value" {
			return i, nil
		}
		unwrap = true
	default:
		return i, nil
	}
	return &optionalOr{id: call.ID(), opt: call.Args()[0], alt: call.Args()[1], unwrap: unwrap}, nil
}

type optionalOr struct {
	id     int64
	opt    interpreter.InterpretableV2
	alt    interpreter.InterpretableV2
	unwrap bool // orValue: the optional's value rather than the optional
}

func (o *optionalOr) ID() int64 { return o.id }

func (o *optionalOr) Exec(f *interpreter.ExecutionFrame) ref.Val {
	v := o.opt.Exec(f)
	switch opt := v.(type) {
	case *types.Err, *types.Unknown:
		return v
	case *types.Optional:
		if !opt.HasValue() {
			return o.alt.Exec(f)
		}
		if o.unwrap {
			return opt.GetValue()
		}
		return v
	default:
		return types.NoSuchOverloadErr()
	}
}

func (o *optionalOr) Eval(a interpreter.Activation) ref.Val { return o.Exec(interpreter.AsFrame(a)) }
