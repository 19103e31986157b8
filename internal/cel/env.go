package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// EnvOptions returns the options of kube-apiserver 1.37's base environment
// for stored expressions, in kube-apiserver's order. The standard library
// comes with cel.NewEnv.
func EnvOptions() []cel.EnvOption {
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
		ext.Lists(ext.ListsVersion(3)),
	}
	return append(opts, kubernetesLibraries()...)
}

// kubernetesLibraries returns the Kubernetes CEL libraries of the base
// environment: URLs, Regex, Lists (version 1), Authz, Quantity, IP, CIDR,
// Format, AuthzSelectors and Semver (version 1).
func kubernetesLibraries() []cel.EnvOption {
	return nil
}

// ProgramOptions returns the program options of kube-apiserver 1.37: the
// optimizer, cost tracking with the Kubernetes cost model, has() free, and the
// per-call cost limit.
func ProgramOptions() []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(PerCallLimit),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
	}
}

// NewEnv returns the base environment extended with opts (variables, types).
func NewEnv(opts ...cel.EnvOption) (*cel.Env, error) {
	return cel.NewEnv(append(EnvOptions(), opts...)...)
}
