package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
)

// EnvOptions returns the options of kube-apiserver 1.37's environment for
// stored expressions (environment.StoredExpressions of
// k8s.io/apiserver/pkg/cel/environment/base.go: every option not removed by
// 1.37), in base.go's order. The standard library comes with cel.NewEnv.
//
// The order matters: it is the order of the overloads of functions that
// several libraries extend (indexOf, isGreaterThan, string, ...), and so of
// runtime dispatch on dyn values.
func EnvOptions() []cel.EnvOption {
	return envOptionsOf(AllLibraries, StoredFlavor)
}

// ProgramOptions returns the program options of kube-apiserver 1.37's base
// environment, for use with cel.Env.Program: the optimizer, cost tracking
// with the Kubernetes cost model, has() free, and the per-call cost limit.
//
// Programs built this way evaluate exactly as kube-apiserver's, including
// its evaluation time, which can grow with the square of the work done (see
// the package documentation). Planner.NewProgram gives the same results and
// costs in bounded time; prefer it.
func ProgramOptions() []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(PerCallLimit),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		cel.CostTracking(&CostEstimator{}),
	}
}

// NewEnv returns the base environment extended with opts (variables, types).
func NewEnv(opts ...cel.EnvOption) (*cel.Env, error) {
	return cel.NewEnv(append(EnvOptions(), opts...)...)
}
