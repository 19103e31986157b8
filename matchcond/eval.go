package matchcond

import (
	"context"

	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// interruptCheckFrequency is kube-apiserver's celconfig.CheckFrequency: a
// comprehension looks at the context every this many iterations.
const interruptCheckFrequency = 100

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
// returns it, with its cost when it was tracked.
type evalResult struct {
	val  ref.Val
	cost uint64
	err  error
}
