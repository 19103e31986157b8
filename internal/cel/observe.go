package cel

import (
	"reflect"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// This file is the cost observer of Program: a planner decorator equivalent
// to cel-go's cost-tracking observer (interpreter.CostObserver and the
// evalWatch* wrappers of interpreter/decorators.go and interpretable.go),
// with the same wrapping, the same steps observed, the same costs and the
// same stack discipline, but with the stack of costStack and with what each
// step pops worked out once when the program is planned.

// observeKind is what observing a step does before pushing its value, one
// case of cel-go's CostTracker observation.
type observeKind uint8

const (
	// observePush only pushes (constants, and steps with no case).
	observePush observeKind = iota
	// observeQualifier costs 1 (a field or index qualification).
	observeQualifier
	// observeAttribute drops the attribute's id and costs 1, or 0 for a
	// presence test (has() is free in kube-apiserver).
	observeAttribute
	// observeConditional drops the branches and the condition of a ternary.
	observeConditional
	// observeLogical drops the terms of && or ||.
	observeLogical
	// observeFold drops the range of a comprehension.
	observeFold
	// observeCall pops the arguments and, if they are all found, adds the
	// cost of the call.
	observeCall
	// observeConstructor pops the elements and adds the creation cost.
	observeConstructor
)

// observation is the plan of observing one step.
type observation struct {
	kind observeKind
	// pushID is the id the value is pushed with.
	pushID int64
	// ids are the ids dropped or popped, in cel-go's order.
	ids []int64
	// baseCost is the creation cost of a constructor.
	baseCost uint64
	call     *callInfo
	// guard, if set, is the call whose last argument this step evaluates,
	// and whose cost is checked before the call runs (see precheck).
	guard *observation

	// Planning state, resolved by finalize once the plan is complete
	// (attribute ids change as the planner adds qualifiers).
	source   interface{ ID() int64 }
	step     any
	testOnly bool
	exprID   int64
}

// callInfo is what the cost of a call depends on besides its values.
type callInfo struct {
	function   string
	overloadID string
	extTracker functionTracker
}

// observe records the evaluation of the step: cel-go's
// costTrackerFactory.Observe.
func (o *observation) observe(vars interpreter.Activation, val ref.Val) {
	t := trackerOf(vars)
	if t == nil {
		// Evaluated while planning (constant folding): not tracked.
		return
	}
	s := &t.stack
	switch o.kind {
	case observeQualifier:
		t.cost++
	case observeAttribute:
		s.drop(o.ids[0])
		if !o.testOnly {
			t.cost++
		}
	case observeConditional, observeLogical, observeFold:
		for _, id := range o.ids {
			s.drop(id)
		}
	case observeCall:
		args := t.argBuffer(len(o.ids))
		if s.dropArgs(o.ids, args) {
			t.cost += t.callCost(o.call, args, val)
		}
		clear(args)
		if o.call.overloadID == overloads.ExtFormatString {
			// string.format is charged for its format string only; its
			// work is the text it writes, one step per byte.
			if str, ok := val.(types.String); ok {
				t.steps += uint64(len(str))
			}
		}
	case observeConstructor:
		args := t.argBuffer(len(o.ids))
		s.dropArgs(o.ids, args)
		clear(args)
		t.cost += o.baseCost
	}
	s.push(val, o.pushID)
	if t.cost > t.limit {
		panic(costLimitExceeded)
	}
	if t.steps++; t.steps > t.stepLimit {
		panic(stepLimitExceeded)
	}
	if o.guard != nil {
		t.precheck(o.guard)
	}
}

var (
	costLimitExceeded = interpreter.EvalCancelledError{Cause: interpreter.CostLimitExceeded, Message: "operation cancelled: actual cost limit exceeded"}
	stepLimitExceeded = interpreter.EvalCancelledError{Cause: interpreter.CostLimitExceeded, Message: "operation cancelled: evaluation step limit exceeded"}
)

// precheck stops the evaluation before a guarded call (see guarded) if the
// cost that cel-go will charge for it once it has run exceeds the limit.
// cel-go charges a call after running it, so lists.range(999000).distinct()
// runs its 10¹² comparisons and then fails; here it fails at once, with the
// same error and the same cost, since these costs depend on the arguments
// only.
//
// It runs right after the call's last argument was observed: the arguments
// are at the top of the stack, where the call's observation will find them.
func (t *costTracker) precheck(call *observation) {
	s := &t.stack
	args := t.argBuffer(len(call.ids))
	defer clear(args)
	limit := int32(len(s.entries))
	for i := len(call.ids) - 1; i >= 0; i-- {
		at := s.topOf(call.ids[i])
		for at > limit {
			at = s.entries[at-1].below
		}
		if at == 0 {
			return // cel-go will not find the argument and will charge nothing
		}
		v := s.entries[at-1].val
		if v == nil || types.IsUnknownOrError(v) {
			return // the function will not run
		}
		args[i] = v
		limit = at - 1
	}
	cost, ok := predictedCost(call.call.overloadID, call.call.extTracker, args)
	if ok && saturatingAdd(t.cost, cost) > t.limit {
		t.cost += cost
		panic(costLimitExceeded)
	}
}

// predictedCost returns the cost cel-go will charge for a call of a
// guarded overload with args, reporting false if the cost function panics
// (cel-go then reports an internal error, which the call's observation
// reproduces).
func predictedCost(overloadID string, track functionTracker, args []ref.Val) (cost uint64, ok bool) {
	if overloadID == "lists_range" {
		// The cost is that of the result, a list of n elements, or of an
		// error (size 1) for a negative n or one beyond ext.Lists' maximum.
		n, isInt := args[0].(types.Int)
		size := uint64(1)
		if isInt && n >= 0 && n <= maxRangeSize {
			size = uint64(n)
		}
		return *allocatingListCost(1, size), true
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	c := track(args, nil)
	if c == nil {
		return 0, false
	}
	return *c, true
}

// Types of cel-go's interpreter that its cost observer singles out; they are
// unexported, so they are recognized by name when planning.
var (
	evalOrType       = "*interpreter.evalOr"
	evalAndType      = "*interpreter.evalAnd"
	evalFoldType     = "*interpreter.evalFold"
	evalTestOnlyType = "*interpreter.evalTestOnly"
	conditionalType  = "*interpreter.conditionalAttribute"
)

func typeName(v any) string { return reflect.TypeOf(v).String() }

// planState is the state of planning one program.
type planState struct {
	ast          *ast.AST
	exprs        map[int64]ast.Expr
	observations []*observation
}

// newObservation classifies a step as cel-go's observer's type switch does,
// in the same order.
func (p *planState) newObservation(source interface{ ID() int64 }, step any) *observation {
	o := &observation{source: source, step: step}
	switch t := step.(type) {
	case interpreter.ConstantQualifier:
		o.kind = observeQualifier
	case interpreter.InterpretableConst:
		o.kind = observePush
	case interpreter.InterpretableAttribute:
		if typeName(t.Attr()) == conditionalType {
			o.kind = observeConditional
			o.exprID = t.ID()
		} else {
			o.kind = observeAttribute
			o.testOnly = typeName(t) == evalTestOnlyType
		}
	case interpreter.Qualifier:
		o.kind = observeQualifier
	case interpreter.InterpretableCall:
		o.kind = observeCall
	case interpreter.InterpretableConstructor:
		o.kind = observeConstructor
	default:
		switch typeName(step) {
		case evalOrType, evalAndType:
			o.kind = observeLogical
			o.exprID = step.(interpreter.Interpretable).ID()
		case evalFoldType:
			o.kind = observeFold
			o.exprID = step.(interpreter.Interpretable).ID()
		}
	}
	p.observations = append(p.observations, o)
	return o
}

// expr returns the AST node with the id.
func (p *planState) expr(id int64) ast.Expr {
	if p.exprs == nil {
		p.exprs = make(map[int64]ast.Expr)
		ast.PreOrderVisit(ast.NavigateAST(p.ast), ast.NewExprVisitor(func(e ast.Expr) {
			switch e.Kind() {
			case ast.CallKind, ast.ComprehensionKind:
				p.exprs[e.ID()] = e
			}
		}))
	}
	return p.exprs[id]
}

func callArgIDs(e ast.Expr) []int64 {
	if e == nil || e.Kind() != ast.CallKind {
		return nil
	}
	args := e.AsCall().Args()
	ids := make([]int64, len(args))
	for i, a := range args {
		ids[i] = a.ID()
	}
	return ids
}

// finalize resolves the ids of every observation once planning is complete.
func (p *planState) finalize() {
	for _, o := range p.observations {
		o.pushID = o.source.ID()
		switch o.kind {
		case observeAttribute:
			o.ids = []int64{o.step.(interpreter.InterpretableAttribute).Attr().ID()}
		case observeConditional:
			// cel-go drops the falsy branch, the truthy branch and the
			// condition. A qualified ternary ((c ? a : b).f) carries the
			// qualifier on both branches, and its id is theirs.
			args := callArgIDs(p.expr(o.exprID))
			cid := o.step.(interpreter.InterpretableAttribute).Attr().ID()
			if len(args) == 3 {
				if cid != o.exprID {
					o.ids = []int64{cid, cid, args[0]}
				} else {
					o.ids = []int64{args[2], args[1], args[0]}
				}
			}
		case observeLogical:
			o.ids = callArgIDs(p.expr(o.exprID))
		case observeFold:
			if e := p.expr(o.exprID); e != nil && e.Kind() == ast.ComprehensionKind {
				o.ids = []int64{e.AsComprehension().IterRange().ID()}
			}
		case observeCall:
			call := o.step.(interpreter.InterpretableCall)
			args := call.Args()
			o.ids = make([]int64, len(args))
			for i, a := range args {
				o.ids[i] = a.ID()
			}
			o.call = &callInfo{function: call.Function(), overloadID: call.OverloadID(), extTracker: extensionCostTracker(call.OverloadID())}
			if guarded(o.call.overloadID) && len(args) > 0 {
				if last := observationOf(args[len(args)-1]); last != nil {
					last.guard = o
				}
			}
		case observeConstructor:
			c := o.step.(interpreter.InterpretableConstructor)
			vals := c.InitVals()
			o.ids = make([]int64, len(vals))
			for i, v := range vals {
				o.ids[i] = v.ID()
			}
			switch c.Type() {
			case types.ListType:
				o.baseCost = 10
			case types.MapType:
				o.baseCost = 30
			default:
				o.baseCost = 40
			}
		}
		o.source, o.step = nil, nil
	}
	p.observations = nil
}

// maxRangeSize is the largest list lists.range makes (ext.Lists' default).
const maxRangeSize = 1_000_000

// guarded reports whether a call of the overload is checked against the
// cost limit before it runs: its work grows faster than its arguments
// (distinct, sort, sortBy, sets.*) or it allocates in proportion to an
// argument (lists.range), and its cost is known from its arguments.
func guarded(overloadID string) bool {
	switch overloadID {
	case "list_distinct", "list_sets_contains_list", "list_sets_intersects_list", "list_sets_equivalent_list", "lists_range":
		return true
	}
	return isExtListOverload(overloadID, "_sort") || isExtListOverload(overloadID, "_sortByAssociatedKeys")
}

// observationOf returns the observation of a planned step, or nil if the
// step is not one of this package's observers.
func observationOf(i interpreter.InterpretableV2) *observation {
	switch w := i.(type) {
	case *watch:
		return w.obs
	case *watchAttr:
		return w.obs
	case *watchConst:
		return w.obs
	case *watchConstructor:
		return w.obs
	}
	return nil
}

// decorate wraps every planned step in an observer, as cel-go's
// decObserveEval does.
func (p *planState) decorate(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
	switch inst := i.(type) {
	case *watch, *watchAttr, *watchConst, *watchConstructor:
		return i, nil
	case interpreter.InterpretableAttribute:
		w := &watchAttr{InterpretableAttribute: inst, plan: p}
		w.obs = p.newObservation(w, inst)
		return w, nil
	case interpreter.InterpretableConst:
		w := &watchConst{InterpretableConst: inst}
		w.obs = p.newObservation(w, inst)
		return w, nil
	case interpreter.InterpretableConstructor:
		w := &watchConstructor{constructor: inst}
		w.obs = p.newObservation(w, inst)
		return w, nil
	default:
		w := &watch{InterpretableV2: i}
		w.obs = p.newObservation(w, i)
		return w, nil
	}
}

// watch observes a step that is neither an attribute, a constant nor a
// constructor. It exposes only InterpretableV2, like cel-go's evalWatch.
type watch struct {
	interpreter.InterpretableV2
	obs *observation
}

func (w *watch) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	val := w.InterpretableV2.Exec(frame)
	w.obs.observe(frame, val)
	return val
}

func (w *watch) Eval(vars interpreter.Activation) ref.Val { return w.Exec(interpreter.AsFrame(vars)) }

// watchAttr observes an attribute and the qualifiers added to it later.
type watchAttr struct {
	interpreter.InterpretableAttribute
	obs  *observation
	plan *planState
}

// AddQualifier wraps the qualifier in an observer, as cel-go's
// evalWatchAttr.AddQualifier does.
func (w *watchAttr) AddQualifier(q interpreter.Qualifier) (interpreter.Attribute, error) {
	switch qual := q.(type) {
	case interpreter.ConstantQualifier:
		cq := &watchConstQual{ConstantQualifier: qual, adapter: w.Adapter()}
		cq.obs = w.plan.newObservation(cq, qual)
		q = cq
	case *watchAttr:
		// Observed when qualifying rather than when evaluated, as the
		// attribute it wraps.
		q = &watchAttrQual{Attribute: qual.InterpretableAttribute, adapter: w.Adapter(), obs: qual.obs}
	case interpreter.Attribute:
		aq := &watchAttrQual{Attribute: qual, adapter: w.Adapter()}
		aq.obs = w.plan.newObservation(aq, qual)
		q = aq
	default:
		wq := &watchQual{Qualifier: qual, adapter: w.Adapter()}
		wq.obs = w.plan.newObservation(wq, qual)
		q = wq
	}
	_, err := w.InterpretableAttribute.AddQualifier(q)
	return w, err
}

func (w *watchAttr) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	val := w.InterpretableAttribute.Exec(frame)
	w.obs.observe(frame, val)
	return val
}

func (w *watchAttr) Eval(vars interpreter.Activation) ref.Val {
	return w.Exec(interpreter.AsFrame(vars))
}

// qualifiedValue is the value a qualifier observer records: the error, the
// value, or for a presence test its result.
func qualifiedValue(id int64, adapter types.Adapter, out any, err error) ref.Val {
	if err != nil {
		return types.LabelErrNode(id, types.WrapErr(err))
	}
	return adapter.NativeToValue(out)
}

func presenceValue(id int64, adapter types.Adapter, out any, present, presenceOnly bool, err error) ref.Val {
	switch {
	case err != nil:
		return types.LabelErrNode(id, types.WrapErr(err))
	case out != nil:
		return adapter.NativeToValue(out)
	case presenceOnly:
		return types.Bool(present)
	}
	return nil
}

// watchConstQual observes a qualification by a constant.
type watchConstQual struct {
	interpreter.ConstantQualifier
	adapter types.Adapter
	obs     *observation
}

func (w *watchConstQual) Qualify(vars interpreter.Activation, obj any) (any, error) {
	out, err := w.ConstantQualifier.Qualify(vars, obj)
	w.obs.observe(vars, qualifiedValue(w.ID(), w.adapter, out, err))
	return out, err
}

func (w *watchConstQual) QualifyIfPresent(vars interpreter.Activation, obj any, presenceOnly bool) (any, bool, error) {
	out, present, err := w.ConstantQualifier.QualifyIfPresent(vars, obj, presenceOnly)
	val := presenceValue(w.ID(), w.adapter, out, present, presenceOnly, err)
	if present || presenceOnly {
		w.obs.observe(vars, val)
	}
	return out, present, err
}

// QualifierValueEquals keeps attribute pattern matching working through the
// wrapper.
func (w *watchConstQual) QualifierValueEquals(value any) bool {
	qve, ok := w.ConstantQualifier.(interface{ QualifierValueEquals(any) bool })
	return ok && qve.QualifierValueEquals(value)
}

// watchAttrQual observes a qualification by a value computed at runtime.
type watchAttrQual struct {
	interpreter.Attribute
	adapter types.Adapter
	obs     *observation
}

func (w *watchAttrQual) Qualify(vars interpreter.Activation, obj any) (any, error) {
	out, err := w.Attribute.Qualify(vars, obj)
	w.obs.observe(vars, qualifiedValue(w.ID(), w.adapter, out, err))
	return out, err
}

func (w *watchAttrQual) QualifyIfPresent(vars interpreter.Activation, obj any, presenceOnly bool) (any, bool, error) {
	out, present, err := w.Attribute.QualifyIfPresent(vars, obj, presenceOnly)
	val := presenceValue(w.ID(), w.adapter, out, present, presenceOnly, err)
	if present || presenceOnly {
		w.obs.observe(vars, val)
	}
	return out, present, err
}

// watchQual observes a qualification by another kind of qualifier.
type watchQual struct {
	interpreter.Qualifier
	adapter types.Adapter
	obs     *observation
}

func (w *watchQual) Qualify(vars interpreter.Activation, obj any) (any, error) {
	out, err := w.Qualifier.Qualify(vars, obj)
	w.obs.observe(vars, qualifiedValue(w.ID(), w.adapter, out, err))
	return out, err
}

func (w *watchQual) QualifyIfPresent(vars interpreter.Activation, obj any, presenceOnly bool) (any, bool, error) {
	out, present, err := w.Qualifier.QualifyIfPresent(vars, obj, presenceOnly)
	val := presenceValue(w.ID(), w.adapter, out, present, presenceOnly, err)
	if present || presenceOnly {
		w.obs.observe(vars, val)
	}
	return out, present, err
}

// watchConst observes a constant.
type watchConst struct {
	interpreter.InterpretableConst
	obs *observation
}

func (w *watchConst) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	val := w.Value()
	w.obs.observe(frame, val)
	return val
}

func (w *watchConst) Eval(vars interpreter.Activation) ref.Val {
	return w.Exec(interpreter.AsFrame(vars))
}

// watchConstructor observes the creation of a list, map or object.
type watchConstructor struct {
	constructor interpreter.InterpretableConstructor
	obs         *observation
}

func (w *watchConstructor) InitVals() []interpreter.InterpretableV2 { return w.constructor.InitVals() }
func (w *watchConstructor) Type() ref.Type                          { return w.constructor.Type() }
func (w *watchConstructor) ID() int64                               { return w.constructor.ID() }

func (w *watchConstructor) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	val := w.constructor.Exec(frame)
	w.obs.observe(frame, val)
	return val
}

func (w *watchConstructor) Eval(vars interpreter.Activation) ref.Val {
	return w.Exec(interpreter.AsFrame(vars))
}
