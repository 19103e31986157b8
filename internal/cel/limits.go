package cel

// Cost limits of kube-apiserver 1.37 (k8s.io/apiserver/pkg/apis/cel), in CEL
// cost units; one unit is roughly 50 ns of evaluation.
const (
	// PerCallLimit bounds the cost of one evaluation of one expression.
	PerCallLimit = 1_000_000
	// RuntimeCELCostBudget bounds the cost of all the expressions of one
	// policy binding evaluated for one request.
	RuntimeCELCostBudget = 10_000_000
	// RuntimeCELCostBudgetMatchConditions bounds the cost of all the match
	// conditions of one admission webhook or policy evaluated for one request.
	RuntimeCELCostBudgetMatchConditions = 2_500_000
)
