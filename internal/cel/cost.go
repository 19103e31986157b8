package cel

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// CostEstimator is kube-apiserver's cost model of the Kubernetes libraries
// (k8s.io/apiserver/pkg/cel/library/cost.go): the static estimate of a call
// (checker.CostEstimator, for Env.EstimateCost) and its runtime cost
// (interpreter.ActualCostEstimator). Calls it has no figure for fall back to
// cel-go's defaults, as in kube-apiserver.
//
// The zero value is ready to use.
type CostEstimator struct {
	// SizeEstimator, if set, estimates the size of values whose size the
	// checker does not know (such as a field with an OpenAPI maxLength).
	SizeEstimator checker.CostEstimator
	// CELGo026 charges as cel-go 0.26 (kube-apiserver 1.36 and before;
	// Flavor.CELGo026).
	CELGo026 bool
}

// Selector cost model: the shortest repeatable requirement that allocates a
// values slice is two characters ("k,"), and a requirement costs a struct
// and a list; a selector is a list of requirements.
const (
	selectorLengthToRequirementCount = 0.5
	costPerRequirement               = float64(common.ListCreateBaseCost + common.StructCreateBaseCost)
	// authorizationCheckCost is the fixed cost of check(): it allows two
	// checks per expression.
	authorizationCheckCost = 350_000
)

func selectorCostEstimate(selectorLength checker.SizeEstimate) checker.CostEstimate {
	parseCost := selectorLength.MultiplyByCostFactor(common.StringTraversalCostFactor)
	requirementCount := selectorLength.MultiplyByCostFactor(selectorLengthToRequirementCount)
	requirementCost := requirementCount.MultiplyByCostFactor(costPerRequirement)
	base := checker.CostEstimate{Min: common.ListCreateBaseCost, Max: common.ListCreateBaseCost}
	return base.Add(parseCost).Add(requirementCost)
}

func ceilCost(size uint64, factor float64) uint64 {
	return uint64(math.Ceil(float64(size) * factor))
}

// costOf is a runtime cost as CallCost returns it. A small cost (most are:
// a string's length, a constant) points into smallCosts rather than to a
// new variable, so that a call's cost allocates nothing (cel-go only reads
// it): a Kubernetes version whose costs differ from the default (cel-go
// 0.26's startsWith, for 1.36) then costs no more than one that does not.
func costOf(c uint64) *uint64 {
	if c < uint64(len(smallCosts)) {
		return &smallCosts[c]
	}
	big := c // escapes; c, which the small path returns, must not
	return &big
}

// smallCosts[i] is i; never written after.
var smallCosts = func() (t [4096]uint64) {
	for i := range t {
		t[i] = uint64(i)
	}
	return t
}()

// CallCost returns the runtime cost of a call of a Kubernetes library
// function, or nil when the default cost applies.
func (e *CostEstimator) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	if e.CELGo026 {
		switch overloadID {
		case overloads.Matches:
			// cel-go 0.26 charges the global matches() as any call.
			return costOf(1)
		case overloads.StartsWithString, overloads.EndsWithString:
			// ... and startsWith and endsWith by the string searched.
			return costOf(ceilCost(runtimeSize(args[0]), common.StringTraversalCostFactor))
		}
	}
	switch function {
	case "check":
		return costOf(authorizationCheckCost)
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error", "errored":
		return costOf(1)
	case "fieldSelector", "labelSelector":
		if len(args) >= 2 {
			n := actualSize(args[1])
			return costOf(selectorCostEstimate(checker.SizeEstimate{Min: n, Max: n}).Max)
		}
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes":
		var c uint64
		if len(args) > 0 {
			c = traversalCost(args[0])
		}
		return costOf(c)
	case "url", "lowerAscii", "upperAscii", "substring", "trim", "jsonpatch.escapeKey":
		if len(args) >= 1 {
			return costOf(ceilCost(actualSize(args[0]), common.StringTraversalCostFactor))
		}
	case "replace", "split":
		if len(args) >= 1 {
			return costOf(ceilCost(actualSize(args[0]), 2*common.StringTraversalCostFactor))
		}
	case "join":
		if len(args) >= 1 {
			return costOf(ceilCost(actualSize(result), 2*common.StringTraversalCostFactor))
		}
	case "find", "findAll":
		if len(args) >= 2 {
			strCost := uint64(math.Ceil((1.0 + float64(actualSize(args[0]))) * common.StringTraversalCostFactor))
			regexCost := ceilCost(actualSize(args[1]), common.RegexStringLengthCostFactor)
			return costOf(strCost * regexCost)
		}
	case "cidr", "isIP", "isCIDR":
		if len(args) >= 1 {
			return costOf(ceilCost(actualSize(args[0]), common.StringTraversalCostFactor))
		}
	case "ip":
		if len(args) >= 1 {
			if overloadID == "cidr_ip" {
				return costOf(1)
			}
			return costOf(ceilCost(actualSize(args[0]), common.StringTraversalCostFactor))
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return costOf(ceilCost(actualSize(args[0]), 2*common.StringTraversalCostFactor))
		}
	case "masked", "isMask", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast":
		return costOf(1)
	case "containsIP":
		if len(args) >= 2 {
			cidrSize, otherSize := actualSize(args[0]), actualSize(args[1])
			c := ceilCost(cidrSize+cidrSize, common.StringTraversalCostFactor)
			if overloadID == "cidr_contains_ip_string" {
				c += ceilCost(otherSize, common.StringTraversalCostFactor)
			}
			return costOf(c)
		}
	case "containsCIDR":
		if len(args) >= 2 {
			cidrSize, otherSize := actualSize(args[0]), actualSize(args[1])
			c := ceilCost(cidrSize+cidrSize, common.StringTraversalCostFactor)
			c += ceilCost(cidrSize, common.StringTraversalCostFactor) + 1
			if overloadID == "cidr_contains_cidr_string" {
				c += ceilCost(otherSize, common.StringTraversalCostFactor)
			}
			return costOf(c)
		}
	case "quantity", "isQuantity", "semver", "isSemver":
		if len(args) >= 1 {
			return costOf(ceilCost(actualSize(args[0]), common.StringTraversalCostFactor))
		}
	case "validate":
		if len(args) >= 2 {
			if f, ok := args[0].Value().(namedFormat); ok {
				strCost := uint64(math.Ceil((1.0 + float64(actualSize(args[1]))) * common.StringTraversalCostFactor))
				regexCost := ceilCost(uint64(f.maxRegexSize), common.RegexStringLengthCostFactor)
				return costOf(strCost * regexCost)
			}
		}
	case "format.named":
		return costOf(1)
	case "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch":
		return costOf(1)
	case "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return costOf(1)
	case "_==_":
		if len(args) == 2 && isKubernetesValue(args[0]) {
			return costOf(1)
		}
	}
	return nil
}

// isKubernetesValue reports whether v is a value of a Kubernetes library
// type, whose equality costs 1.
func isKubernetesValue(v ref.Val) bool {
	switch v.(type) {
	case quantityValue, *quantityValue, ipValue, *ipValue, cidrValue, *cidrValue,
		namedFormat, *namedFormat, urlValue, *urlValue, semverValue, *semverValue,
		authorizerValue, *authorizerValue, pathCheckValue, *pathCheckValue,
		groupCheckValue, *groupCheckValue, resourceCheckValue, *resourceCheckValue,
		decisionValue, *decisionValue:
		return true
	}
	return false
}

// EstimateCallCost returns the static estimate of a call of a Kubernetes
// library function, or nil when the default estimate applies.
//
// Changing an estimate changes which expressions kube-apiserver accepts, so
// these are kube-apiserver's figures exactly.
func (e *CostEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	fixed := func(c uint64) *checker.CallEstimate {
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: c, Max: c}}
	}
	if e.CELGo026 {
		switch overloadID {
		case overloads.Matches:
			return fixed(1)
		case overloads.StartsWithString, overloads.EndsWithString:
			// cel-go 0.26 estimates by the prefix (and charges by the
			// string searched: CallCost).
			if len(args) == 1 {
				return &checker.CallEstimate{CostEstimate: e.sizeEstimate(args[0]).MultiplyByCostFactor(common.StringTraversalCostFactor)}
			}
		}
	}
	switch function {
	case "check":
		return fixed(authorizationCheckCost)
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error", "errored":
		return fixed(1)
	case "fieldSelector", "labelSelector":
		if len(args) == 1 {
			return &checker.CallEstimate{CostEstimate: selectorCostEstimate(e.sizeEstimate(args[0]))}
		}
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes":
		if target != nil {
			elCost := checker.CostEstimate{Min: 1, Max: 1}
			if elNode := e.listElementNode(*target); elNode != nil {
				// Comparing strings or bytes also traverses them.
				if k := elNode.Type().Kind(); k == types.StringKind || k == types.BytesKind {
					elCost = elCost.Add(e.sizeEstimate(elNode).MultiplyByCostFactor(common.StringTraversalCostFactor))
				}
				return &checker.CallEstimate{CostEstimate: e.sizeEstimate(*target).MultiplyByCost(elCost)}
			} else if function == "includes" {
				// A dyn target may be a list: one comparison per element.
				return &checker.CallEstimate{CostEstimate: e.sizeEstimate(*target).MultiplyByCost(elCost)}
			}
			// A string target (indexOf, lastIndexOf).
			return &checker.CallEstimate{CostEstimate: e.sizeEstimate(*target).MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	case "url", "jsonpatch.escapeKey":
		if len(args) == 1 {
			sz := e.sizeEstimate(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
		}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if target != nil {
			sz := e.sizeEstimate(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
		}
	case "replace":
		if target != nil && len(args) >= 2 {
			return e.estimateReplace(*target, args[0], args[1])
		}
	case "split":
		if target != nil {
			sz := e.sizeEstimate(*target)
			// At worst the separator is "" and every character is an element.
			maxSize := sz.Max
			if len(args) > 1 {
				if v := args[1].Expr().AsLiteral(); v != nil {
					if i, ok := v.Value().(int64); ok {
						maxSize = uint64(i)
					}
				}
			}
			return &checker.CallEstimate{
				CostEstimate: sz.MultiplyByCostFactor(2 * common.StringTraversalCostFactor),
				ResultSize:   &checker.SizeEstimate{Min: 0, Max: maxSize},
			}
		}
	case "join":
		if target != nil {
			var sz checker.SizeEstimate
			listSize := e.sizeEstimate(*target)
			if elNode := e.listElementNode(*target); elNode != nil {
				sz = listSize.Multiply(e.sizeEstimate(elNode))
			}
			if len(args) > 0 {
				sepSize := e.sizeEstimate(args[0])
				var minSeparators, maxSeparators uint64
				if listSize.Min > 0 {
					minSeparators = listSize.Min - 1
				}
				if listSize.Max > 0 {
					maxSeparators = listSize.Max - 1
				}
				sz = sz.Add(sepSize.Multiply(checker.SizeEstimate{Min: minSeparators, Max: maxSeparators}))
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor), ResultSize: &sz}
		}
	case "find", "findAll":
		if target != nil && len(args) >= 1 {
			sz := e.sizeEstimate(*target)
			// One more than the string length, so that an empty string still
			// costs the regex.
			strCost := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(common.StringTraversalCostFactor)
			regexCost := e.sizeEstimate(args[0]).MultiplyByCostFactor(common.RegexStringLengthCostFactor)
			return &checker.CallEstimate{CostEstimate: strCost.Multiply(regexCost), ResultSize: &checker.SizeEstimate{Min: 0, Max: sz.Max}}
		}
	case "cidr", "isIP", "isCIDR":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: e.sizeEstimate(args[0]).MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	case "ip":
		if overloadID == "cidr_ip" {
			return fixed(1)
		}
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: e.sizeEstimate(args[0]).MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: e.sizeEstimate(args[0]).MultiplyByCostFactor(2 * common.StringTraversalCostFactor)}
		}
	case "masked", "isMask", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast":
		return fixed(1)
	case "containsIP":
		if len(args) >= 1 {
			// Comparing two IPv4 (4 bytes) or IPv6 (16 bytes) addresses.
			sz := checker.SizeEstimate{Min: 4, Max: 16}
			c := sz.Add(sz).MultiplyByCostFactor(common.StringTraversalCostFactor)
			if overloadID == "cidr_contains_ip_string" {
				c = c.Add(checker.CostEstimate(e.sizeEstimate(args[0])).MultiplyByCostFactor(common.StringTraversalCostFactor))
			}
			return &checker.CallEstimate{CostEstimate: c}
		}
	case "containsCIDR":
		if len(args) >= 1 {
			sz := checker.SizeEstimate{Min: 4, Max: 16}
			c := sz.Add(sz).MultiplyByCostFactor(common.StringTraversalCostFactor)
			// Masking the base prefix and comparing the prefix lengths.
			c = c.Add(sz.MultiplyByCostFactor(common.StringTraversalCostFactor))
			c = c.Add(checker.CostEstimate{Min: 1, Max: 1})
			if overloadID == "cidr_contains_cidr_string" {
				c = c.Add(checker.CostEstimate(e.sizeEstimate(args[0])).MultiplyByCostFactor(common.StringTraversalCostFactor))
			}
			return &checker.CallEstimate{CostEstimate: c}
		}
	case "quantity", "isQuantity", "semver", "isSemver":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: e.sizeEstimate(args[0]).MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	case "validate":
		if len(args) >= 1 {
			sz := e.sizeEstimate(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(common.StringTraversalCostFactor).
				MultiplyByCostFactor(maxNameFormatRegexSize * common.RegexStringLengthCostFactor)}
		}
	case "format.named":
		return fixed(1)
	case "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch":
		return fixed(1)
	case "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return fixed(1)
	case "_==_":
		if len(args) == 2 {
			return e.estimateEquality(args[0], args[1])
		}
	}
	return nil
}

func (e *CostEstimator) estimateEquality(lhs, rhs checker.AstNode) *checker.CallEstimate {
	if lhs.Type().Equal(rhs.Type()) != types.True {
		return nil
	}
	t := lhs.Type()
	if t.Kind() == types.OpaqueKind {
		switch t.TypeName() {
		case IPType.TypeName(), CIDRType.TypeName():
			return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 1}}
		}
	}
	if t.Kind() == types.StructKind {
		switch t {
		case QuantityType, AuthorizerType, PathCheckType, GroupCheckType, ResourceCheckType, DecisionType, SemverType:
			return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 1}}
		case FormatType:
			return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: maxFormatSize}.MultiplyByCostFactor(common.StringTraversalCostFactor)}
		case URLType:
			// kube-apiserver takes both sizes from the right-hand side.
			size := checker.SizeEstimate{Min: 1, Max: 1}
			if rhSize := rhs.ComputedSize(); rhSize != nil {
				size = rhSize.Union(*rhSize)
			}
			return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: size.Max}.MultiplyByCostFactor(common.StringTraversalCostFactor)}
		}
	}
	return nil
}

// estimateReplace estimates s.replace(old, new): a traversal of s and the
// construction of the result, whose size it also bounds.
func (e *CostEstimator) estimateReplace(target, toReplace, replaceWith checker.AstNode) *checker.CallEstimate {
	sz := e.sizeEstimate(target)
	toReplaceSz := e.sizeEstimate(toReplace)
	replaceWithSz := e.sizeEstimate(replaceWith)

	var replaceCount, retainedSz checker.SizeEstimate
	// The longest result.
	switch {
	case toReplaceSz.Min == 0:
		// Replacing "" surrounds every character with the replacement.
		if sz.Max < math.MaxUint64 {
			replaceCount.Max = sz.Max + 1
		} else {
			replaceCount.Max = sz.Max
		}
		retainedSz.Max = sz.Max
	case replaceWithSz.Max <= toReplaceSz.Min:
		// The result is not longer than s.
		replaceCount.Max = 0
		retainedSz.Max = sz.Max
	default:
		replaceCount.Max = uint64(math.Ceil(float64(sz.Max) / float64(toReplaceSz.Min)))
	}
	// The shortest result.
	switch {
	case toReplaceSz.Max == 0:
		if sz.Min < math.MaxUint64 {
			replaceCount.Min = sz.Min + 1
		} else {
			replaceCount.Min = sz.Min
		}
		retainedSz.Min = sz.Min
	case toReplaceSz.Max <= replaceWithSz.Min:
		replaceCount.Min = 0
		retainedSz.Min = sz.Min
	default:
		replaceCount.Min = uint64(math.Ceil(float64(sz.Min) / float64(toReplaceSz.Max)))
	}
	size := replaceCount.Multiply(replaceWithSz).Add(retainedSz)
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * common.StringTraversalCostFactor), ResultSize: &size}
}

// EstimateSize delegates to SizeEstimator, if any.
func (e *CostEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	if e.SizeEstimator != nil {
		return e.SizeEstimator.EstimateSize(element)
	}
	return nil
}

func (e *CostEstimator) sizeEstimate(n checker.AstNode) checker.SizeEstimate {
	if sz := n.ComputedSize(); sz != nil {
		return *sz
	}
	if sz := e.EstimateSize(n); sz != nil {
		return *sz
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// listElementNode returns a node standing for the elements of a list node
// (with the path "<list path>.@items", so that a size estimator can find a
// maxLength), or nil if n is not a list.
func (e *CostEstimator) listElementNode(list checker.AstNode) checker.AstNode {
	params := list.Type().Parameters()
	if len(params) == 0 {
		return nil
	}
	var path []string
	if p := list.Path(); p != nil {
		path = make([]string, len(p)+1)
		copy(path, p)
		path[len(p)] = "@items"
	}
	return &itemsNode{path: path, t: params[0]}
}

// itemsNode is the checker.AstNode of the elements of a list.
type itemsNode struct {
	path []string
	t    *types.Type
}

func (i *itemsNode) Path() []string                      { return i.path }
func (i *itemsNode) Type() *types.Type                   { return i.t }
func (i *itemsNode) Expr() ast.Expr                      { return nil }
func (i *itemsNode) ComputedSize() *checker.SizeEstimate { return nil }

// actualSize is the size of a runtime value for the cost model: its Size()
// if it has one, else 1.
func actualSize(v ref.Val) uint64 {
	if sz, ok := v.(traits.Sizer); ok {
		return uint64(sz.Size().(types.Int))
	}
	return 1
}

// traversalCost is the cost of traversing a value as a tree: a tenth per
// character of strings and bytes, 1 per other scalar.
func traversalCost(v ref.Val) uint64 {
	switch vt := v.(type) {
	case types.String:
		return uint64(float64(len(string(vt))) * common.StringTraversalCostFactor)
	case types.Bytes:
		return uint64(float64(len([]byte(vt))) * common.StringTraversalCostFactor)
	case traits.Lister:
		var c uint64
		for it := vt.Iterator(); it.HasNext() == types.True; {
			c += traversalCost(it.Next())
		}
		return c
	case traits.Mapper:
		var c uint64
		for it := vt.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			c += traversalCost(k) + traversalCost(vt.Get(k))
		}
		return c
	default:
		return 1
	}
}
