package builtinschema

import (
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/schema"
)

// namedClosures caches Named.
type namedClosures struct {
	mu    sync.Mutex
	types map[string]*named
}

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
	s.named.mu.Lock()
	if s.named.types == nil {
		s.named.types = map[string]*named{}
	}
	n := s.named.types[name]
	if n == nil {
		n = &named{}
		s.named.types[name] = n
	}
	s.named.mu.Unlock()
	n.once.Do(func() { n.s, n.err = t.Closure(name) })
	return n.s, n.err
}
