package matchcond

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// interruptCheckFrequency is kube-apiserver's celconfig.CheckFrequency: a
// comprehension looks at the context every this many iterations.
const interruptCheckFrequency = 100

// programOptions are the options of every program compiled here:
// kube-apiserver's, plus the interrupt check that lets a cancelled context
// stop a comprehension.
func programOptions() []cel.ProgramOption {
	return append(icel.ProgramOptions(), cel.InterruptCheckFrequency(interruptCheckFrequency))
}

// frame is the execution frame of the conditions of one call: the same
// activation for every condition, and the caller's context when it can be
// cancelled. A context that can never be cancelled (Done returns nil) costs
// nothing.
func newFrame(ctx context.Context, act interpreter.Activation) (*interpreter.ExecutionFrame, error) {
	f, err := interpreter.NewExecutionFrame(act)
	if err != nil {
		return nil, err
	}
	if ctx.Done() != nil {
		if err := f.SetContext(ctx, interruptCheckFrequency); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// evalResult is the outcome of one program, as kube-apiserver's ContextEval
// returns it.
type evalResult struct {
	val     ref.Val
	details *cel.EvalDetails
	err     error
}

func (r evalResult) cost() uint64 {
	if c := r.details.ActualCost(); c != nil {
		return *c
	}
	return 0
}

func evalIn(ctx context.Context, prg cel.Program, f *interpreter.ExecutionFrame) evalResult {
	val, det, err := prg.Eval(f)
	if err != nil && errors.Is(err, interpreter.InterruptError{}) {
		err = fmt.Errorf("%w: %w", err, context.Cause(ctx))
	}
	return evalResult{val: val, details: det, err: err}
}
