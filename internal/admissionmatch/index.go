package admissionmatch

import (
	"context"
	"math/bits"
)

// Hook is a compiled webhook (*Webhook) or policy or binding
// (*Constraints).
type Hook interface {
	Match(ctx context.Context, r *Request) Result
	Explain(ctx context.Context, r *Request) (Result, Explanation)
	// resourceKeys returns the resources the hook's rules name (the part
	// before the "/"), and whether some rule names "*" or the hook can
	// match or fail without its rules.
	resourceKeys() (names []string, any bool)
}

var (
	_ Hook = (*Webhook)(nil)
	_ Hook = (*Constraints)(nil)
)

func (w *Webhook) resourceKeys() ([]string, bool) {
	return w.rules.resourceKeys()
}

// resourceKeys of a policy include the excludeResourceRules' resources: an
// equivalent resource of unknown kind there fails the policy whatever its
// resourceRules.
func (c *Constraints) resourceKeys() ([]string, bool) {
	if c.all || c.err != nil || len(c.resourceRules.rules) == 0 {
		return nil, true
	}
	names, any := c.resourceRules.resourceKeys()
	excluded, anyExcluded := c.excludeRules.resourceKeys()
	return append(names, excluded...), any || anyExcluded
}

func (s *ruleSet) resourceKeys() (names []string, any bool) {
	for i := range s.rules {
		for _, p := range s.rules[i].resources {
			if p.anyRes {
				return nil, true
			}
			names = append(names, p.res)
		}
	}
	return names, false
}

// Index is an ordered list of hooks prepared for matching a request against
// all of them: a request is matched only against the hooks whose rules name
// its resource (or an equivalent one) or any resource; the others cannot
// match it nor fail. It is immutable and safe for concurrent use.
type Index struct {
	hooks []Hook
	// any and byResource are bit sets of hook positions: the hooks that
	// name any resource, and those that name each resource.
	any        []uint64
	byResource map[string][]uint64
}

// NewIndex indexes hooks, in their order.
func NewIndex(hooks ...Hook) *Index {
	words := (len(hooks) + 63) / 64
	x := &Index{hooks: append([]Hook(nil), hooks...), any: make([]uint64, words), byResource: map[string][]uint64{}}
	for i, h := range hooks {
		names, any := h.resourceKeys()
		if any {
			x.any[i/64] |= 1 << (i % 64)
			continue
		}
		for _, name := range names {
			set := x.byResource[name]
			if set == nil {
				set = make([]uint64, words)
				x.byResource[name] = set
			}
			set[i/64] |= 1 << (i % 64)
		}
	}
	return x
}

// Len returns the number of hooks.
func (x *Index) Len() int { return len(x.hooks) }

// Hook returns the i-th hook.
func (x *Index) Hook(i int) Hook { return x.hooks[i] }

// Match matches r against the hooks in order and calls yield with the
// position and result of each hook that matches or fails (Result.Matches or
// Result.Err); every other hook does not apply to r. It stops when yield
// returns false. It allocates nothing for up to 256 hooks.
func (x *Index) Match(ctx context.Context, r *Request, yield func(i int, res Result) bool) {
	var small [4]uint64
	var candidates []uint64
	if len(x.any) <= len(small) {
		candidates = small[:len(x.any)]
	} else {
		candidates = make([]uint64, len(x.any))
	}
	copy(candidates, x.any)
	or(candidates, x.byResource[r.Resource.Resource])
	if len(x.byResource) > 0 && r.Equivalents != nil {
		for _, e := range r.equivalentResources() {
			if e.Resource != r.Resource.Resource {
				or(candidates, x.byResource[e.Resource])
			}
		}
	}
	for w, word := range candidates {
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if res := x.hooks[i].Match(ctx, r); res.Matches || res.Err != nil {
				if !yield(i, res) {
					return
				}
			}
		}
	}
}

func or(dst, src []uint64) {
	for i := range src {
		dst[i] |= src[i]
	}
}
