package authzcond

import "sync"

// Environments builds, once each and on demand, the environments of a
// compiler: K says which one (for authorization, the set of libraries of the
// base environment beside the standard library).
type Environments[K comparable, E any] struct {
	build func(K) (E, error)

	mu sync.Mutex
	// byKey is bounded by the keys a compiler asks for: the few library
	// sets of its versions, never request data.
	byKey map[K]E
}

// NewEnvironments is the environments that build calls builds.
func NewEnvironments[K comparable, E any](build func(K) (E, error)) *Environments[K, E] {
	return &Environments[K, E]{build: build, byKey: map[K]E{}}
}

// Get returns the environment of key, building it the first time. A failed
// build is not kept: the next call tries again.
func (e *Environments[K, E]) Get(key K) (E, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if env, ok := e.byKey[key]; ok {
		return env, nil
	}
	env, err := e.build(key)
	if err != nil {
		return env, err
	}
	e.byKey[key] = env
	return env, nil
}

// Has reports whether the environment of key was built.
func (e *Environments[K, E]) Has(key K) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.byKey[key]
	return ok
}
