package policycheck

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Gathered is an Input gathered from an engine's decoded objects, nil
// ones left out, with the index each policy and binding has among the
// objects given, to which Restore maps findings back.
type Gathered struct {
	Input
	policyIndex, bindingIndex []int
}

// AddPolicy adds p, the policy at index i of the objects given.
func (g *Gathered) AddPolicy(i int, p Policy) {
	g.Policies = append(g.Policies, p)
	g.policyIndex = append(g.policyIndex, i)
}

// AddBinding adds the binding at index i of the objects given.
func (g *Gathered) AddBinding(i int, kind, name, policyName string, paramRef *admissionregistrationv1.ParamRef, match *admissionregistrationv1.MatchResources) {
	g.Bindings = append(g.Bindings, Binding{Kind: kind, Name: name, PolicyName: policyName, ParamRef: paramRef, MatchResources: match})
	g.bindingIndex = append(g.bindingIndex, i)
}

// PolicyIndex is the index among the objects given of the i-th policy
// gathered.
func (g *Gathered) PolicyIndex(i int) int { return g.policyIndex[i] }

// Restore makes the Index of each finding, an index among the policies
// (kind policyKind) or bindings gathered, the index among those given.
func (g *Gathered) Restore(findings []Finding, policyKind string) {
	for i := range findings {
		if findings[i].Kind == policyKind {
			findings[i].Index = g.policyIndex[findings[i].Index]
		} else {
			findings[i].Index = g.bindingIndex[findings[i].Index]
		}
	}
}

// AddExpression adds an expression of the policy at path, unless empty.
func (p *Policy) AddExpression(kind ExprKind, path *field.Path, text, name string) {
	if text != "" {
		p.Expressions = append(p.Expressions, Expression{Kind: kind, Field: path.String(), Text: text, Name: name})
	}
}

// AddConditionsAndVariables adds the match conditions and variables both
// kinds of policy have, at spec.matchConditions and spec.variables.
func (p *Policy) AddConditionsAndVariables(conditions []admissionregistrationv1.MatchCondition, variables []admissionregistrationv1.Variable) {
	spec := field.NewPath("spec")
	for i, m := range conditions {
		p.AddExpression(MatchCondition, spec.Child("matchConditions").Index(i).Child("expression"), m.Expression, "")
	}
	for i, v := range variables {
		p.AddExpression(Variable, spec.Child("variables").Index(i).Child("expression"), v.Expression, v.Name)
	}
}
