package builtinschema

import (
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/schema"
)

type named struct {
	once sync.Once
	s    *schema.Schema
	err  error
}

// Named returns the closure of the built-in type called name (for instance
// io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta), decoded once. The result
// is shared: callers must not modify it.
func (s *Set) Named(name string) (*schema.Schema, error) {
	t, err := s.tableOf()
	if err != nil {
		return nil, err
	}
	v, ok := s.named.Load(name)
	if !ok {
		v, _ = s.named.LoadOrStore(name, &named{})
	}
	n := v.(*named)
	n.once.Do(func() { n.s, n.err = t.Closure(name) })
	return n.s, n.err
}
