package authzcond

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
	authorizationv1 "k8s.io/api/authorization/v1"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// compiledCondition is one compiled match condition.
type compiledCondition struct {
	index      int // in the list given to Compile
	expression string
	uses       selectorUse
	// loops tells whether the expression has a comprehension: only
	// comprehensions check the context.
	loops bool

	// fast is the untracked plan (see fastpath.go); nil when the condition
	// must always be tracked.
	fast interpreter.InterpretableV2
	// native is the condition compiled to Go (see native.go), used where
	// fast is; nil when the condition is not of the native shapes.
	native nativeCond
	// tracked is the program with kube-apiserver's cost tracking.
	tracked *icel.Program
}

// evaluation is the state of the conditions of one call.
type evaluation struct {
	ctx context.Context
	act interpreter.Activation
	// spec is the request of native conditions; nil: none is evaluated.
	spec *authorizationv1.SubjectAccessReviewSpec
	fast bool // the request is within the fast path's size bound
	// frame is the frame of the untracked plans, created on first use.
	frame        *interpreter.ExecutionFrame
	contextBound bool
}

func (e *evaluation) close() {
	if e.frame != nil {
		e.frame.Close()
		e.frame = nil
	}
}

// eval evaluates c. Traced evaluations are always tracked, to report their
// cost.
func (e *evaluation) eval(c *compiledCondition, traced bool) evalResult {
	// A comprehension of cel-go may see a cancelled context; a native one
	// does not look.
	if e.fast && !traced && c.native != nil && e.spec != nil && (!c.loops || e.ctx.Err() == nil) {
		if v, ok := c.native(nativeEnv{s: e.spec}); ok {
			return evalResult{val: types.Bool(v)}
		}
	}
	if e.fast && !traced && c.fast != nil {
		if e.frame == nil {
			f, err := interpreter.NewExecutionFrame(e.act)
			if err != nil {
				return evalResult{err: err}
			}
			e.frame = f
		}
		// Binding the context costs a context.WithCancel: only when a
		// comprehension may look at it.
		if c.loops && !e.contextBound && e.ctx.Done() != nil {
			if err := e.frame.SetContext(e.ctx, InterruptCheckFrequency); err != nil {
				return evalResult{err: err}
			}
			e.contextBound = true
		}
		val, err := execUntracked(c.fast, e.frame)
		if err != nil && errors.Is(err, interpreter.InterruptError{}) {
			err = fmt.Errorf("%w: %w", err, context.Cause(e.ctx))
		}
		return evalResult{val: val, err: err}
	}
	var ctx context.Context
	if c.loops && e.ctx.Done() != nil {
		ctx = e.ctx // a context that can be cancelled, and comprehensions to check it
	}
	val, cost, err := c.tracked.Eval(ctx, e.act)
	return evalResult{val: val, cost: cost, err: err}
}
