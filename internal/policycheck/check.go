package policycheck

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Check returns the findings on the policies and bindings of in, sorted by
// kind, name and field.
func Check(in *Input) []Finding {
	if in.Kinds == nil {
		in.Kinds = NewKinds()
	}
	served := in.Kinds.Served()
	var out []Finding
	for i := range in.Policies {
		p := &in.Policies[i]
		for j := range p.Expressions {
			p.Expressions[j].parsed = parseAST(p.Expressions[j].Text)
		}
		out = append(out, withIndex(i, checkRules(p.Kind, p.Name, p.MatchConstraints, field.NewPath("spec", "matchConstraints"), served, in.Kinds.Version()))...)
		out = append(out, withIndex(i, checkFields(p, in.Kinds, served))...)
		out = append(out, withIndex(i, checkCost(p, in.CELGo026))...)
	}
	for i, b := range in.Bindings {
		out = append(out, withIndex(i, checkRules(b.Kind, b.Name, b.MatchResources, field.NewPath("spec", "matchResources"), served, in.Kinds.Version()))...)
	}
	out = append(out, checkBindings(in)...)
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Index, b.Index))
	})
	return out
}

func withIndex(i int, fs []Finding) []Finding {
	for j := range fs {
		fs[j].Index = i
	}
	return fs
}
