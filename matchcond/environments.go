package matchcond

import (
	"sync"

	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
)

// environments builds, once each and on demand, a compiler's environment of
// the standard library and a set of libraries of the base environment.
type environments[E any] struct {
	build func(icel.Libraries) (E, error)

	mu     sync.Mutex
	byLibs map[icel.Libraries]E
}

func newEnvironments[E any](build func(icel.Libraries) (E, error)) *environments[E] {
	return &environments[E]{build: build, byLibs: map[icel.Libraries]E{}}
}

// get returns the environment of libs, building it the first time. A
// failed build is not kept: the next call tries again.
func (e *environments[E]) get(libs icel.Libraries) (E, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if env, ok := e.byLibs[libs]; ok {
		return env, nil
	}
	env, err := e.build(libs)
	if err != nil {
		return env, err
	}
	e.byLibs[libs] = env
	return env, nil
}
