package mutationpatch

import smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

// Hooks for the tests of package mutationpatch_test, which import package
// mutation for its schemas.

// MergerOf returns the Merger of s, or nil.
func MergerOf(s Typer) *Merger {
	if ms, ok := s.(mergerSource); ok {
		return ms.merger()
	}
	return nil
}

// MergeFast is the Merger's merge alone.
func (m *Merger) MergeFast(p, object map[string]any) (map[string]any, bool) {
	return m.merge(p, object)
}

// MergeApplyConfiguration is mergeApplyConfiguration, the Merger first.
var MergeApplyConfiguration = mergeApplyConfiguration

// MergeExact is mergeApplyConfiguration with structured-merge-diff only.
var MergeExact = mergeExact

// Schema returns the schema and type the Merger was made from.
func (m *Merger) Schema() (*smdschema.Schema, smdschema.TypeRef) {
	return m.schema, m.typeRef
}
