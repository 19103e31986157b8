package matchcond

import (
	"context"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
)

// compiledCondition is one compiled match condition.
type compiledCondition struct {
	index      int // in the list given to Compile
	expression string
	uses       selectorUse

	// fast is the untracked plan (see fastpath.go); nil when the condition
	// must always be tracked.
	fast interpreter.InterpretableV2
	// tracked is kube-apiserver's program. It is built at compile time when
	// there is no fast plan, otherwise on first need.
	tracked *lazyProgram
}

// lazyProgram is a cel.Program built once, on first use.
type lazyProgram struct {
	env  *cel.Env
	ast  *cel.Ast
	opts []cel.ProgramOption
	once sync.Once
	prg  cel.Program
	err  error
}

func (l *lazyProgram) get() (cel.Program, error) {
	l.once.Do(func() {
		l.prg, l.err = l.env.Program(l.ast, l.opts...)
		l.env, l.ast, l.opts = nil, nil, nil
	})
	return l.prg, l.err
}

// eval evaluates the condition in frame. fast tells whether the request is
// within the fast path's size bound; traced evaluations are always tracked,
// to report their cost.
func (c *compiledCondition) eval(ctx context.Context, f *interpreter.ExecutionFrame, fast, traced bool) evalResult {
	if fast && !traced && c.fast != nil {
		val, err := execUntracked(c.fast, f)
		return evalResult{val: val, err: err}
	}
	prg, err := c.tracked.get()
	if err != nil {
		return evalResult{err: err}
	}
	return evalIn(ctx, prg, f)
}
