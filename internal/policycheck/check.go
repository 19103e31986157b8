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
		out = append(out, checkRules(p.Kind, p.Name, p.MatchConstraints, field.NewPath("spec", "matchConstraints"), served)...)
		out = append(out, checkFields(p, in.Kinds, served)...)
	}
	for _, b := range in.Bindings {
		out = append(out, checkRules(b.Kind, b.Name, b.MatchResources, field.NewPath("spec", "matchResources"), served)...)
	}
	out = append(out, checkBindings(in)...)
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return out
}
