package cel

import (
	"math"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// costStack is cel-go's cost-tracking stack of observed values (interpreter
// refValStack), with the same semantics, in amortized constant time per
// operation.
//
// cel-go pushes every observed value with the id of its expression; a call
// pops its arguments by id, and several steps "drop" an id: they search the
// stack from the top for the id and remove it and everything above it, or do
// nothing if it is absent. cel-go searches linearly. In a comprehension
// values that no one pops accumulate (the loop condition and step of every
// iteration) and every identifier observed searches for its own id, which is
// absent: each iteration scans the whole stack, which is quadratic in the
// number of iterations (lists.range(100000).exists(i, i < 0) scans about
// 2·10¹⁰ entries). Here each entry links to the entry below it with the same
// id, and top[id] is the topmost entry with that id, so a search is one
// lookup, and every entry is removed at most once.
type costStack struct {
	entries []stackEntry
	// top[id] is 1 + the index of the topmost entry with that id, or 0.
	top []int32
	// topOverflow holds ids beyond len(top) (none in an AST of the program,
	// whose ids are all below its maximum id).
	topOverflow map[int64]int32
	// work counts the entries pushed, looked up and removed: the work of
	// the stack, which tests assert is linear.
	work uint64
	// trace, if set, is told every operation (tests replay them on cel-go's
	// linear search to count its work).
	trace func(op stackOp, id int64)
}

// stackOp is an operation of costStack, for trace.
type stackOp uint8

const (
	opPush stackOp = iota
	opDrop
	opPop
)

type stackEntry struct {
	val ref.Val
	id  int64
	// below is 1 + the index of the next entry down with the same id, or 0.
	below int32
}

func (s *costStack) topOf(id int64) int32 {
	if id >= 0 && id < int64(len(s.top)) {
		return s.top[id]
	}
	return s.topOverflow[id]
}

func (s *costStack) setTop(id int64, t int32) {
	if id >= 0 && id < int64(len(s.top)) {
		s.top[id] = t
		return
	}
	if t == 0 {
		delete(s.topOverflow, id)
		return
	}
	if s.topOverflow == nil {
		s.topOverflow = make(map[int64]int32)
	}
	s.topOverflow[id] = t
}

func (s *costStack) push(val ref.Val, id int64) {
	s.work++
	if s.trace != nil {
		s.trace(opPush, id)
	}
	s.entries = append(s.entries, stackEntry{val: val, id: id, below: s.topOf(id)})
	s.setTop(id, int32(len(s.entries)))
}

// truncate removes the entries from index n up.
func (s *costStack) truncate(n int) {
	for i := len(s.entries) - 1; i >= n; i-- {
		s.work++
		e := &s.entries[i]
		s.setTop(e.id, e.below)
		e.val = nil
	}
	s.entries = s.entries[:n]
}

// drop removes the topmost entry with the id and everything above it.
func (s *costStack) drop(id int64) {
	s.work++
	if s.trace != nil {
		s.trace(opDrop, id)
	}
	if t := s.topOf(id); t > 0 {
		s.truncate(int(t - 1))
	}
}

// dropArgs pops the values of the arguments, last to first, each with
// everything above it, into args. It reports false, having dropped the
// arguments found so far, if an argument is absent.
func (s *costStack) dropArgs(ids []int64, args []ref.Val) bool {
	for i := len(ids) - 1; i >= 0; i-- {
		s.work++
		if s.trace != nil {
			s.trace(opPop, ids[i])
		}
		t := s.topOf(ids[i])
		if t == 0 {
			return false
		}
		args[i] = s.entries[t-1].val
		s.truncate(int(t - 1))
	}
	return true
}

// costTracker is the cost state of one evaluation.
type costTracker struct {
	program   *Program
	limit     uint64
	cost      uint64
	stepLimit uint64
	steps     uint64
	stack     costStack
	args      []ref.Val
	// activation is the root activation, which leads observers from any
	// frame of the evaluation to this tracker.
	activation trackedActivation
}

// trackedActivation wraps the caller's activation with the evaluation's
// cost tracker.
type trackedActivation struct {
	interpreter.Activation
	tracker *costTracker
}

// trackerOf finds the cost tracker of the evaluation that vars belongs to.
func trackerOf(vars interpreter.Activation) *costTracker {
	for a := vars; a != nil; {
		switch x := a.(type) {
		case *trackedActivation:
			return x.tracker
		case *interpreter.ExecutionFrame:
			a = x.Activation
		default:
			a = a.Parent()
		}
	}
	return nil
}

func (t *costTracker) reset(stackIDs int) {
	t.cost = 0
	t.steps = 0
	t.stack.truncate(0)
	t.stack.work = 0
	if cap(t.stack.top) < stackIDs {
		t.stack.top = make([]int32, stackIDs)
	}
	t.stack.top = t.stack.top[:stackIDs]
	clear(t.stack.topOverflow)
}

// argBuffer returns a reusable slice for n argument values.
func (t *costTracker) argBuffer(n int) []ref.Val {
	if cap(t.args) < n {
		t.args = make([]ref.Val, n)
	}
	return t.args[:n]
}

// callCost is the cost of a call, as cel-go's CostTracker computes it: the
// cost trackers of cel-go's extension libraries, then the Kubernetes cost
// model, then cel-go's defaults.
func (t *costTracker) callCost(call *callInfo, args []ref.Val, result ref.Val) uint64 {
	if call.extTracker != nil {
		if c := call.extTracker(args, result); c != nil {
			return *c
		}
	}
	overloadID := call.overloadID
	if c := t.program.estimator.CallCost(call.function, overloadID, args, result); c != nil {
		return *c
	}
	switch overloadID {
	case overloads.StartsWithString, overloads.EndsWithString:
		return ceilCost(runtimeSize(args[1]), common.StringTraversalCostFactor)
	case overloads.StringToBytes, overloads.BytesToString, overloads.ExtQuoteString, overloads.ExtFormatString:
		return ceilCost(runtimeSize(args[0]), common.StringTraversalCostFactor)
	case overloads.InList:
		return runtimeSize(args[1])
	case overloads.LessString, overloads.GreaterString, overloads.LessEqualsString, overloads.GreaterEqualsString,
		overloads.LessBytes, overloads.GreaterBytes, overloads.LessEqualsBytes, overloads.GreaterEqualsBytes,
		overloads.Equals, overloads.NotEquals:
		return ceilCost(min(runtimeSize(args[0]), runtimeSize(args[1])), common.StringTraversalCostFactor)
	case overloads.AddString, overloads.AddBytes:
		return ceilCost(runtimeSize(args[0])+runtimeSize(args[1]), common.StringTraversalCostFactor)
	case overloads.Matches, overloads.MatchesString:
		strCost := uint64(math.Ceil((1.0 + float64(runtimeSize(args[0]))) * common.StringTraversalCostFactor))
		regexCost := ceilCost(runtimeSize(args[1]), common.RegexStringLengthCostFactor)
		return strCost * regexCost
	case overloads.ContainsString:
		return ceilCost(runtimeSize(args[0]), common.StringTraversalCostFactor) *
			ceilCost(runtimeSize(args[1]), common.StringTraversalCostFactor)
	}
	return 1
}

// runtimeSize is cel-go's size of a value in the runtime cost: its Size(),
// the size of an optional's value, or 1.
func runtimeSize(v ref.Val) uint64 {
	if sz, ok := v.(traits.Sizer); ok {
		return uint64(sz.Size().(types.Int))
	}
	if opt, ok := v.(*types.Optional); ok && opt.HasValue() {
		return runtimeSize(opt.GetValue())
	}
	return 1
}

// functionTracker computes the runtime cost of a call from its arguments and
// result, or returns nil to leave it to the next model.
type functionTracker func(args []ref.Val, result ref.Val) *uint64

// extensionCostTracker returns the runtime cost function that cel-go's
// extension libraries register for an overload (ext.Sets, and ext.Lists at
// version 3), or nil.
func extensionCostTracker(overloadID string) functionTracker {
	switch overloadID {
	case "list_sets_contains_list", "list_sets_intersects_list":
		return setsCost(1)
	case "list_sets_equivalent_list":
		return setsCost(2)
	case "list_slice", "lists_range", "list_reverse":
		return func(_ []ref.Val, result ref.Val) *uint64 { return allocatingListCost(1, extSize(result)) }
	case "list_flatten", "list_flatten_int":
		return func(args []ref.Val, _ ref.Val) *uint64 {
			depth := 1.0
			if len(args) == 2 {
				depth = float64(args[1].(types.Int))
			}
			return allocatingListCost(depth, extSize(args[0]))
		}
	case "list_distinct":
		return func(args []ref.Val, _ ref.Val) *uint64 { return selfCompareCost(args[0].(traits.Lister)) }
	}
	if isExtListOverload(overloadID, "_sort") {
		return func(args []ref.Val, _ ref.Val) *uint64 { return selfCompareCost(args[0].(traits.Lister)) }
	}
	if isExtListOverload(overloadID, "_sortByAssociatedKeys") {
		return func(args []ref.Val, _ ref.Val) *uint64 { return selfCompareCost(args[1].(traits.Lister)) }
	}
	return nil
}

// isExtListOverload reports whether id is list_<T><suffix> for one of
// ext.Lists' comparable types.
func isExtListOverload(id, suffix string) bool {
	for _, t := range [...]string{"int", "uint", "double", "bool", "google.protobuf.Duration", "google.protobuf.Timestamp", "string", "bytes"} {
		if id == "list_"+t+suffix {
			return true
		}
	}
	return false
}

// extSize is cel-go's ext package size of a value (no optional unwrapping).
func extSize(v ref.Val) uint64 {
	if sz, ok := v.(traits.Sizer); ok {
		return uint64(sz.Size().(types.Int))
	}
	return 1
}

func setsCost(factor float64) functionTracker {
	return func(args []ref.Val, _ ref.Val) *uint64 {
		c := saturatingAdd(1, uint64(float64(extSize(args[0])*extSize(args[1]))*factor))
		return &c
	}
}

func selfCompareCost(l traits.Lister) *uint64 {
	sz := extSize(l)
	factor := 2.0
	if sz == 0 {
		return allocatingListCost(factor, 0)
	}
	if elem := l.Get(types.IntZero); elem.Type() == types.StringType || elem.Type() == types.BytesType {
		factor += common.StringTraversalCostFactor
	}
	return allocatingListCost(factor, saturatingMul(sz, sz))
}

func allocatingListCost(factor float64, size uint64) *uint64 {
	if factor < 0 {
		factor = 1
	}
	c := saturatingAdd(saturatingAdd(uint64(float64(size)*factor), 1), common.ListCreateBaseCost)
	return &c
}

func saturatingAdd(x, y uint64) uint64 {
	if y > 0 && x > math.MaxUint64-y {
		return math.MaxUint64
	}
	return x + y
}

func saturatingMul(x, y uint64) uint64 {
	if y != 0 && x > math.MaxUint64/y {
		return math.MaxUint64
	}
	return x * y
}
