package matchcond

import "sync"

// environments builds, once each and on demand, the environments of a
// compiler: K says which one (for authorization, the set of libraries of the
// base environment beside the standard library).
type environments[K comparable, E any] struct {
	build func(K) (E, error)

	mu    sync.Mutex
	byKey map[K]E
}

func newEnvironments[K comparable, E any](build func(K) (E, error)) *environments[K, E] {
	return &environments[K, E]{build: build, byKey: map[K]E{}}
}

// get returns the environment of key, building it the first time. A failed
// build is not kept: the next call tries again.
func (e *environments[K, E]) get(key K) (E, error) {
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
