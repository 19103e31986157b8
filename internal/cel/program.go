package cel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// Planner plans Programs for one environment: it holds what every program
// of the environment shares (the function bindings), prepared once.
type Planner struct {
	interp interpreter.Interpreter
	// estimator is the runtime cost model (the flavor's).
	estimator *CostEstimator
	// range026 binds lists.range as cel-go 0.26 does.
	range026 bool
}

// PlannerOption configures a Planner.
type PlannerOption func(*Planner)

// WithFlavor makes the programs charge as the flavor's cel-go does (the
// environment must be of that flavor: Flavor.NewEnv).
func WithFlavor(f Flavor) PlannerOption {
	return func(p *Planner) { p.estimator, p.range026 = f.CostEstimator(), f.CELGo026 }
}

// NewPlanner prepares the planning of programs for env, an environment built
// with NewEnv (or extending one).
//
// Programs are planned as cel.Env.Program plans them with ProgramOptions,
// from the environment's functions and types, and evaluate with the same
// results and costs, in bounded time (see the package documentation, which
// also lists the differences). Program options that libraries added to env
// beyond the base environment's are not applied.
func NewPlanner(env *cel.Env, opts ...PlannerOption) (*Planner, error) {
	p := &Planner{estimator: &CostEstimator{}}
	for _, o := range opts {
		o(p)
	}
	disp := interpreter.NewDispatcher()
	for name, fn := range env.Functions() {
		bindings, err := fn.Bindings()
		if err != nil {
			return nil, err
		}
		if name == "replace" {
			for i, b := range bindings {
				bindings[i] = boundReplace(b)
			}
		}
		if name == "lists.range" && p.range026 {
			for i, b := range bindings {
				bindings[i] = rebindRange026(b)
			}
		}
		if err := disp.Add(bindings...); err != nil {
			return nil, err
		}
	}
	adapter, provider := env.CELTypeAdapter(), env.CELTypeProvider()
	attrs := interpreter.NewAttributeFactory(env.Container, adapter, provider)
	p.interp = interpreter.NewInterpreter(disp, env.Container, provider, adapter, attrs)
	return p, nil
}

// ProgramOption configures a Program.
type ProgramOption func(*programConfig)

type programConfig struct {
	costLimit      uint64
	stepLimit      uint64
	interruptEvery uint
}

// WithCostLimit sets the limit of the cost of one evaluation; PerCallLimit
// by default. math.MaxUint64 means no limit.
func WithCostLimit(limit uint64) ProgramOption {
	return func(c *programConfig) { c.costLimit = limit }
}

// DefaultStepLimit is the default limit of evaluation steps. Every step is
// one operation of the expression (a variable, a field, a call, an
// operator, a constant, one per element of a comprehension's body), about
// 20 to 40 ns each, so the limit bounds the time of an evaluation to about
// 100 ms. Expressions within kube-apiserver's cost limit take at most
// about 1.25 million steps unless most of their steps cost nothing
// (constants and logical operators, which kube-apiserver's cost model does
// not charge).
const DefaultStepLimit = 2_500_000

// WithStepLimit sets the limit of evaluation steps; DefaultStepLimit by
// default. math.MaxUint64 means no limit, as in kube-apiserver.
func WithStepLimit(limit uint64) ProgramOption {
	return func(c *programConfig) { c.stepLimit = limit }
}

// WithInterruptCheckFrequency makes comprehensions check the evaluation's
// context for cancellation every n iterations, as cel.InterruptCheckFrequency
// does (kube-apiserver uses 100 for admission expressions, and nothing for
// authorization match conditions).
func WithInterruptCheckFrequency(n uint) ProgramOption {
	return func(c *programConfig) { c.interruptEvery = n }
}

// Program is a planned expression. It evaluates with kube-apiserver's
// results, errors and costs (those of cel.Env.Program with ProgramOptions),
// in time bounded by the cost limit. It is safe for concurrent use.
type Program struct {
	root      interpreter.InterpretableV2
	config    programConfig
	stackIDs  int
	estimator *CostEstimator
	trackers  sync.Pool
}

// NewProgram plans a checked AST of the planner's environment.
func (p *Planner) NewProgram(checked *cel.Ast, opts ...ProgramOption) (*Program, error) {
	config := programConfig{costLimit: PerCallLimit, stepLimit: DefaultStepLimit}
	for _, o := range opts {
		o(&config)
	}
	native := checked.NativeRep()
	plan := &planState{ast: native}
	// The planner options of cel.Env.Program, in its order, with this
	// package's observer in place of cel-go's cost observer: the optional
	// library's or/orValue short-circuit, interruptible comprehensions, the
	// optimizer, regex precompilation, then observation.
	plannerOpts := []interpreter.PlannerOption{interpreter.CustomDecoratorV2(decorateOptionalOr)}
	if config.interruptEvery > 0 {
		plannerOpts = append(plannerOpts, interpreter.InterruptableEval())
	}
	plannerOpts = append(plannerOpts,
		interpreter.Optimize(),
		interpreter.CompileRegexConstants(append(regexOptimizations(), interpreter.MatchesRegexOptimization)...),
		interpreter.CustomDecoratorV2(plan.decorate),
	)
	root, err := p.interp.NewInterpretable(native, plannerOpts...)
	if err != nil {
		return nil, err
	}
	plan.finalize()
	// Only comprehensions check for interrupts: a program without any need
	// not bind the context, which costs a cancellable context per
	// evaluation.
	if config.interruptEvery > 0 && len(ast.MatchDescendants(ast.NavigateAST(native), ast.KindMatcher(ast.ComprehensionKind))) == 0 {
		config.interruptEvery = 0
	}
	return &Program{
		root:      root,
		config:    config,
		stackIDs:  int(min(ast.MaxID(native), math.MaxInt32)),
		estimator: p.estimator,
	}, nil
}

// Eval evaluates the program on vars (an interpreter.Activation or a
// map[string]any) and returns the result, the cost of the evaluation and
// the error, as cel.Program.ContextEval and EvalDetails.ActualCost do.
//
// Exceeding the cost limit stops the evaluation with kube-apiserver's
// error "operation cancelled: actual cost limit exceeded"; exceeding the step
// limit, with "operation cancelled: evaluation step limit exceeded". ctx is
// checked
// only by comprehensions, when WithInterruptCheckFrequency is set.
func (p *Program) Eval(ctx context.Context, vars any) (out ref.Val, cost uint64, err error) {
	out, cost, _, err = p.eval(ctx, vars, nil)
	return out, cost, err
}

// eval is Eval, also returning the work of the cost stack; trace, if set,
// is told every operation of the stack.
func (p *Program) eval(ctx context.Context, vars any, trace func(stackOp, int64)) (out ref.Val, cost, work uint64, err error) {
	var activation interpreter.Activation
	switch v := vars.(type) {
	case interpreter.Activation:
		activation = v
	default:
		activation, err = interpreter.NewActivation(vars)
		if err != nil {
			return nil, 0, 0, err
		}
	}
	t, _ := p.trackers.Get().(*costTracker)
	if t == nil {
		t = &costTracker{}
	}
	t.program = p
	t.limit = p.config.costLimit
	t.stepLimit = p.config.stepLimit
	t.reset(p.stackIDs)
	t.activation = trackedActivation{Activation: activation, tracker: t}
	t.stack.trace = trace
	defer func() {
		t.reset(0)
		t.stack.trace = nil
		t.activation = trackedActivation{}
		t.program = nil
		p.trackers.Put(t)
	}()
	frame, err := interpreter.NewExecutionFrame(&t.activation)
	if err != nil {
		return nil, 0, 0, err
	}
	defer frame.Close()
	// The context matters only to comprehensions checking for interrupts;
	// setting it costs a cancellable context.
	if ctx != nil && p.config.interruptEvery > 0 {
		if err := frame.SetContext(ctx, p.config.interruptEvery); err != nil {
			return nil, 0, 0, err
		}
	}
	out, err = p.exec(frame)
	cost, work = t.cost, t.stack.work
	if err != nil && ctx != nil && p.config.interruptEvery > 0 && errors.Is(err, interpreter.InterruptError{}) {
		err = fmt.Errorf("%w: %w", err, context.Cause(ctx))
	}
	return out, cost, work, err
}

// exec runs the plan with cel-go's error handling: a cancellation (the cost
// limit) and any panic become errors, and an error value is the error.
func (p *Program) exec(frame *interpreter.ExecutionFrame) (out ref.Val, err error) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
			switch e := r.(type) {
			case interpreter.EvalCancelledError:
				err = e
			default:
				err = fmt.Errorf("internal error: %v", r)
			}
		}
	}()
	out = p.root.Exec(frame)
	if types.IsError(out) {
		err = out.(*types.Err)
	}
	return out, err
}

// decorateOptionalOr makes optional.or and optional.orValue short-circuit,
// as the program options of cel-go's optional types library do.
func decorateOptionalOr(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
	call, ok := i.(interpreter.InterpretableCall)
	if !ok {
		return i, nil
	}
	args := call.Args()
	if len(args) != 2 {
		return i, nil
	}
	switch call.Function() {
	case "or":
		if call.OverloadID() != "" && call.OverloadID() != "optional_or_optional" {
			return i, nil
		}
		return &optionalOr{id: call.ID(), lhs: args[0], rhs: args[1]}, nil
	case "orValue":
		if call.OverloadID() != "" && call.OverloadID() != "optional_orValue_value" {
			return i, nil
		}
		return &optionalOr{id: call.ID(), lhs: args[0], rhs: args[1], value: true}, nil
	}
	return i, nil
}

// optionalOr evaluates lhs, an optional, and returns it (or its value) if
// it has a value; otherwise it evaluates rhs.
type optionalOr struct {
	id       int64
	lhs, rhs interpreter.InterpretableV2
	// value is true for orValue: the value of lhs rather than lhs.
	value bool
}

func (o *optionalOr) ID() int64 { return o.id }

func (o *optionalOr) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	lhs := o.lhs.Exec(frame)
	switch v := lhs.(type) {
	case *types.Err, *types.Unknown:
		return lhs
	case *types.Optional:
		if !v.HasValue() {
			return o.rhs.Exec(frame)
		}
		if o.value {
			return v.GetValue()
		}
		return lhs
	default:
		return types.NoSuchOverloadErr()
	}
}

func (o *optionalOr) Eval(vars interpreter.Activation) ref.Val {
	return o.Exec(interpreter.AsFrame(vars))
}
