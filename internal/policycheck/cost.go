package policycheck

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// Cost check bounds.
const (
	// costShare is the share of kube-apiserver's per-call limit an
	// estimate must reach to be reported (within 10% of it).
	costShare = 0.9
	// maxListSize is the longest list or string a request of
	// kube-apiserver's largest size (3 MiB) holds: items of at least 3
	// bytes ("{},").
	maxListSize = 3 << 20 / 3
	// plausibleListSize is the longest list reported as reaching the
	// limit, a size real objects reach (a ClusterRole's rules, a
	// container's env): a single comprehension reaches the limit only with
	// lists of tens of thousands of items, nested ones with hundreds.
	plausibleListSize = 256
)

// costEnv declares the admission variables as dyn (the type checker's
// types are not needed to bound sizes), the authorizer with its type.
var costEnv = sync.OnceValues(func() (*cel.Env, error) {
	return icel.NewEnv(
		cel.Variable("object", types.DynType),
		cel.Variable("oldObject", types.DynType),
		cel.Variable("params", types.DynType),
		cel.Variable("request", types.DynType),
		cel.Variable("namespaceObject", types.DynType),
		cel.Variable("variables", types.DynType),
		cel.Variable("authorizer", icel.AuthorizerType),
		cel.Variable("authorizer.requestResource", icel.ResourceCheckType),
	)
})

// stringSize bounds the strings read from the request in the estimates:
// names, images, label values.
const stringSize = 128

// boundedSizes estimates the size of values the checker does not know:
// the lists and maps a comprehension iterates over (ranges, by expression
// id) at most max items, anything else (a string, mostly) at most
// stringSize.
type boundedSizes struct {
	max    uint64
	ranges map[int64]bool
}

func (b boundedSizes) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if b.ranges[n.Expr().ID()] {
		return &checker.SizeEstimate{Min: 0, Max: b.max}
	}
	return &checker.SizeEstimate{Min: 0, Max: stringSize}
}

func (boundedSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// costAt is an expression's worst-case estimated cost with every list, map
// and string of at most size items.
func costAt(env *cel.Env, a *cel.Ast, ranges map[int64]bool, size uint64, celGo026 bool) (uint64, bool) {
	est, err := env.EstimateCost(a, &icel.CostEstimator{SizeEstimator: boundedSizes{max: size, ranges: ranges}, CELGo026: celGo026})
	if err != nil {
		return 0, false
	}
	return est.Max, true
}

// checkCost reports the expressions (not mutations, whose Object and
// JSONPatch types are not declared here) whose estimated worst-case cost
// reaches 90% of kube-apiserver's per-call limit with lists of a plausible
// size: the smallest size that reaches it is found by bisection. At run
// time such an expression fails with "operation cancelled: actual cost
// limit exceeded" on objects that large. Warnings.
func checkCost(p *Policy, celGo026 bool) []Finding {
	env, err := costEnv()
	if err != nil {
		return nil
	}
	limit := uint64(costShare * icel.PerCallLimit)
	var out []Finding
	for _, e := range p.Expressions {
		if e.Kind == ApplyConfiguration || e.Kind == JSONPatch {
			continue
		}
		if e.parsed == nil || !hasComprehension(e.parsed.NativeRep().Expr()) {
			// Without a comprehension, the cost grows at most linearly
			// with the sizes, far below the limit at plausible sizes.
			continue
		}
		a, iss := env.Check(e.parsed)
		if iss.Err() != nil {
			continue
		}
		ranges := iterationRanges(a.NativeRep().Expr())
		if c, ok := costAt(env, a, ranges, maxListSize, celGo026); !ok || c < limit {
			continue
		}
		lo, hi := uint64(0), uint64(maxListSize) // cost(lo) < limit <= cost(hi)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if c, ok := costAt(env, a, ranges, mid, celGo026); ok && c >= limit {
				hi = mid
			} else {
				lo = mid
			}
		}
		if hi > plausibleListSize {
			continue
		}
		out = append(out, Finding{Severity: Warning, Rule: RuleCostNearLimit, Kind: p.Kind, Name: p.Name, Field: e.Field,
			Message: fmt.Sprintf("the worst-case estimated cost reaches 90%% of kube-apiserver's per-call limit (%d) when the lists it iterates over hold %d items (strings of %d bytes): on objects that large the expression may fail with \"operation cancelled: actual cost limit exceeded\" (the estimate is an upper bound)", icel.PerCallLimit, hi, stringSize),
			Fix:     "avoid nested comprehensions over the object's lists, or bound them (size checks first, filter before map)"})
	}
	return out
}

// iterationRanges returns the ids of the expressions comprehensions
// iterate over.
func iterationRanges(e ast.Expr) map[int64]bool {
	out := map[int64]bool{}
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() == ast.ComprehensionKind {
			out[e.AsComprehension().IterRange().ID()] = true
		}
	}))
	return out
}

// hasComprehension tells whether an expression holds a comprehension (a
// macro: all, exists, map, filter...).
func hasComprehension(e ast.Expr) bool {
	found := false
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() == ast.ComprehensionKind {
			found = true
		}
	}))
	return found
}
