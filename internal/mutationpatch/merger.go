package mutationpatch

import (
	"sync"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// Merger is the merge of an ApplyConfiguration into an object of one kind,
// compiled from the kind's structured-merge-diff schema: a walk of the patch
// and the object together with the schema that gives what
// structured-merge-diff's typing, validation and Merge give (see fastMerge),
// or says it cannot be sure, and then the exact path runs. The schema is
// compiled on first use; a Merger is safe for concurrent use. A nil *Merger
// handles nothing.
type Merger struct {
	schema  *smdschema.Schema
	typeRef smdschema.TypeRef

	once sync.Once
	root *mergeNode
}

// NewMerger returns the Merger of the type tr of s. Nothing is compiled
// before its first merge.
func NewMerger(s *smdschema.Schema, tr smdschema.TypeRef) *Merger {
	return &Merger{schema: s, typeRef: tr}
}

// merger returns m. Through it, a Typer that embeds a *Merger (mutation.Schema)
// hands its Merger to ApplyConfiguration without exporting anything.
func (m *Merger) merger() *Merger { return m }

// mergerSource is a Typer that has a Merger.
type mergerSource interface{ merger() *Merger }

// compiled returns the root node, compiling the schema on first use.
func (m *Merger) compiled() *mergeNode {
	m.once.Do(func() {
		c := nodeCompiler{s: m.schema, named: map[namedRef]*mergeNode{}}
		m.root = c.compile(m.typeRef)
	})
	return m.root
}

// merge returns the ApplyConfiguration p merged into object as
// mergeApplyConfiguration's structured-merge-diff calls would, or not ok
// when the Merger does not handle these values (see mergeValues). p is not
// checked for atomics here.
func (m *Merger) merge(p, object map[string]any) (map[string]any, bool) {
	if m == nil {
		return nil, false
	}
	out, ok := mergeValues(m.compiled(), object, p)
	if !ok {
		return nil, false
	}
	res, ok := out.(map[string]any)
	return res, ok
}
