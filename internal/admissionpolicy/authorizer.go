package admissionpolicy

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// CachingAuthorizer answers each distinct check once per request, as
// kube-apiserver's admission caching authorizer does. The dispatchers make
// one per request and drop it with the request, so its cache is bounded by
// the distinct checks of one request's expressions, which the CEL cost
// limits bound.
type CachingAuthorizer struct {
	next  matchcond.Authorizer
	mu    sync.Mutex
	cache map[string]authzAnswer
}

type authzAnswer struct {
	decision matchcond.Decision
	reason   string
	err      error
}

func NewCachingAuthorizer(next matchcond.Authorizer) *CachingAuthorizer {
	return &CachingAuthorizer{next: next, cache: map[string]authzAnswer{}}
}

func (c *CachingAuthorizer) Authorize(ctx context.Context, a *matchcond.AuthorizationAttributes) (matchcond.Decision, string, error) {
	key := authzKey(a)
	c.mu.Lock()
	if ans, ok := c.cache[key]; ok {
		c.mu.Unlock()
		return ans.decision, ans.reason, ans.err
	}
	c.mu.Unlock()
	d, r, err := c.next.Authorize(ctx, a)
	c.mu.Lock()
	c.cache[key] = authzAnswer{d, r, err}
	c.mu.Unlock()
	return d, r, err
}

// authzKey identifies a check by everything the authorizer is asked.
func authzKey(a *matchcond.AuthorizationAttributes) string {
	var b strings.Builder
	field := func(s string) {
		b.WriteString(s)
		b.WriteByte(0)
	}
	if u := a.User; u != nil {
		field(u.Name)
		field(u.UID)
		for _, g := range u.Groups {
			field(g)
		}
		b.WriteByte(1)
		for _, k := range slices.Sorted(maps.Keys(u.Extra)) {
			field(k)
			for _, v := range u.Extra[k] {
				field(v)
			}
			b.WriteByte(4)
		}
	}
	b.WriteByte(2)
	field(a.Verb)
	if a.ResourceRequest {
		field("r")
	}
	field(a.APIGroup)
	field(a.APIVersion)
	field(a.Resource)
	field(a.Subresource)
	field(a.Namespace)
	field(a.Name)
	field(a.Path)
	for _, r := range a.FieldSelectorRequirements {
		field(r.Field + string(r.Operator) + r.Value)
	}
	if a.FieldSelectorParsingErr != nil {
		field(a.FieldSelectorParsingErr.Error())
	}
	b.WriteByte(3)
	for _, r := range a.LabelSelectorRequirements {
		field(r.String())
	}
	if a.LabelSelectorParsingErr != nil {
		field(a.LabelSelectorParsingErr.Error())
	}
	return b.String()
}
