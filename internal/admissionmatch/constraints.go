package admissionmatch

import (
	"context"
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// Constraints decides whether an admission policy (its matchConstraints) or
// a policy binding (its matchResources) applies to a request, as
// kube-apiserver's policy matcher does (policy/generic's DefinitionMatches
// and BindingMatches over policy/matching's Matcher), with the exemptions of
// the policy plugin's Dispatch. It is immutable and safe for concurrent use.
type Constraints struct {
	exemptions exemptions
	// all: a binding without matchResources, which matches every request
	// (that is not exempt).
	all bool
	// err: the policy cannot match (no constraints, a nil selector).
	err               error
	namespaceSelector selector
	objectSelector    selector
	resourceRules     ruleSet
	excludeRules      ruleSet
}

// CompilePolicy prepares the matchConstraints of a ValidatingAdmissionPolicy
// or a MutatingAdmissionPolicy. nil constraints or nil selectors fail every
// request that is not exempt, with kube-apiserver's errors (the API defaults
// the selectors to empty ones: the caller applies the defaults).
func CompilePolicy(constraints *admissionregistrationv1.MatchResources, o Options) *Constraints {
	if constraints == nil {
		return &Constraints{exemptions: newExemptions(&o), err: errNoConstraints}
	}
	return compileConstraints(constraints, o)
}

// CompileBinding prepares the matchResources of a policy binding; nil
// matches every request that is not exempt, nil selectors fail them.
// kube-apiserver only asks a binding whether it matches: a policy's
// invocation takes its resource and kind from the policy's Result, not the
// binding's.
func CompileBinding(matchResources *admissionregistrationv1.MatchResources, o Options) *Constraints {
	if matchResources == nil {
		return &Constraints{exemptions: newExemptions(&o), all: true}
	}
	return compileConstraints(matchResources, o)
}

var errNoConstraints = errors.New("policy contained no match constraints, a required field")

const errNilSelector = "a nil %s selector was passed, please ensure selectors are initialized properly"

func compileConstraints(mr *admissionregistrationv1.MatchResources, o Options) *Constraints {
	c := &Constraints{exemptions: newExemptions(&o)}
	switch {
	case mr.NamespaceSelector == nil:
		c.err = fmt.Errorf(errNilSelector, "namespace")
		return c
	case mr.ObjectSelector == nil:
		c.err = fmt.Errorf(errNilSelector, "object")
		return c
	}
	c.namespaceSelector = newSelector(mr.NamespaceSelector)
	c.objectSelector = newSelector(mr.ObjectSelector)
	equivalent := mr.MatchPolicy != nil && *mr.MatchPolicy != admissionregistrationv1.Exact
	c.resourceRules = newNamedRuleSet(mr.ResourceRules, equivalent)
	c.excludeRules = newNamedRuleSet(mr.ExcludeResourceRules, equivalent)
	return c
}

func newNamedRuleSet(rules []admissionregistrationv1.NamedRuleWithOperations, equivalent bool) ruleSet {
	s := ruleSet{rules: make([]rule, len(rules)), equivalent: equivalent}
	for i := range rules {
		s.rules[i] = newRule(&rules[i].RuleWithOperations, rules[i].ResourceNames)
	}
	return s
}

// Match decides whether the policy or binding applies to r.
func (c *Constraints) Match(ctx context.Context, r *Request) Result {
	return c.match(ctx, r, nil)
}

// Explain decides as Match does, and tells why.
func (c *Constraints) Explain(ctx context.Context, r *Request) (Result, Explanation) {
	x := Explanation{Rule: -1}
	res := c.match(ctx, r, &x)
	return res, x
}

func (c *Constraints) match(ctx context.Context, r *Request, x *Explanation) Result {
	if c.exemptions.isExcluded(r) {
		return notMatched(x, ReasonExcludedResource)
	}
	if !c.exemptions.static && isAdmissionPolicyResource(&r.Resource) {
		return notMatched(x, ReasonAdmissionConfiguration)
	}
	if c.all {
		return Result{Matches: true, Resource: r.Resource, Kind: r.Kind}
	}
	if c.err != nil {
		return failed(x, c.err)
	}
	// The rules first: they need no lookup, and the outcome is
	// kube-apiserver's whatever the order (see the package documentation).
	var res, excluded Result
	m := c.excludeRules.match(r, &excluded)
	if x != nil && (m.matched || m.err != nil) {
		x.Rule, x.Equivalent = m.rule, m.equivalent
	}
	switch {
	case m.matched:
		return notMatched(x, ReasonExcludeResourceRules)
	case m.err == nil:
		if len(c.resourceRules.rules) == 0 {
			m = ruleMatch{matched: true, rule: -1}
			res.Resource, res.Kind = r.Resource, r.Kind
		} else {
			m = c.resourceRules.match(r, &res)
		}
		if x != nil {
			x.Rule, x.Equivalent = m.rule, m.equivalent
		}
		if !m.matched && m.err == nil {
			if x != nil {
				x.Reason = c.resourceRules.whyNot(r)
			}
			return Result{}
		}
	}
	return matchSelectors(ctx, r, x, &c.namespaceSelector, &c.objectSelector, m.err, res)
}
