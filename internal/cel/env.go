package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
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
	return []cel.EnvOption{
		// 1.0
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.Lib(urlsLibrary{}),
		cel.Lib(regexLibrary{}),
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		// 1.27
		cel.Lib(authzLibrary{}),
		// 1.28
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		cel.Lib(quantityLibrary{}),
		// 1.29
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		// 1.30
		cel.Lib(ipLibrary{}),
		cel.Lib(cidrLibrary{}),
		// 1.31
		cel.Lib(formatLibrary{}),
		cel.Lib(authzSelectorsLibrary{}),
		// 1.32
		ext.TwoVarComprehensions(),
		// 1.33
		cel.Lib(semverLibrary{}),
		// 1.34
		ext.Lists(ext.ListsVersion(3)),
		// 1.37 (Lists version 0 is removed at 1.37)
		cel.Lib(listsLibrary{}),
	}
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
