package authorizer

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// decisionCacheSize is the number of entries of each webhook's cache, as in
// kube-apiserver (cache.NewLRUExpireCache(8192)).
const decisionCacheSize = 8192

// reviewStatus is what the cache keeps of a webhook's answer.
type reviewStatus struct {
	allowed, denied bool
	reason          string
}

// decisionCache is a least-recently-used cache whose entries also expire, with
// the semantics of kube-apiserver's LRUExpireCache: an entry is live until its
// expiry instant, inclusive; a Get of an expired entry removes it; an Add to
// a full cache evicts the least recently used entry, live or not.
type decisionCache struct {
	now func() int64 // nanoseconds on the cache's own time line
	// at places a reading of the same clock on that time line.
	at  func(time.Time) int64
	max int

	mu      sync.Mutex
	entries map[string]*cacheEntry
	// head is the most recently used entry, tail the least; a circular list
	// through a sentinel would save a branch, this is clearer.
	head, tail *cacheEntry
}

type cacheEntry struct {
	key        string
	status     reviewStatus
	expires    int64
	prev, next *cacheEntry
}

func newDecisionCache(clk clock.PassiveClock, size int) *decisionCache {
	c := &decisionCache{max: size, entries: make(map[string]*cacheEntry)}
	if isRealClock(clk) {
		// The monotonic clock alone: half the cost of time.Now, and immune
		// to changes of the wall clock, as kube-apiserver's comparisons of
		// time.Now readings are.
		base := time.Now()
		c.now = func() int64 { return int64(time.Since(base)) }
		c.at = func(t time.Time) int64 { return int64(t.Sub(base)) }
	} else {
		c.now = func() int64 { return clk.Now().UnixNano() }
		c.at = func(t time.Time) int64 { return t.UnixNano() }
	}
	return c
}

// instant is the cache's time of a reading of its clock taken just before,
// or, for a zero reading, of a new one: a decision reads the clock once.
func (c *decisionCache) instant(t time.Time) int64 {
	if t.IsZero() {
		return c.now()
	}
	return c.at(t)
}

// get looks key up; the conversion in the map index does not allocate.
func (c *decisionCache) get(key []byte) (reviewStatus, bool) {
	return c.getAt(key, c.now())
}

// getAt is get at the instant now.
func (c *decisionCache) getAt(key []byte, now int64) (reviewStatus, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[string(key)]
	if !ok {
		return reviewStatus{}, false
	}
	if now > e.expires {
		c.unlink(e)
		delete(c.entries, e.key)
		return reviewStatus{}, false
	}
	c.moveToFront(e)
	return e.status, true
}

func (c *decisionCache) add(key []byte, s reviewStatus, ttl time.Duration) {
	c.addAt(key, s, ttl, c.now())
}

// addAt is add at the instant now.
func (c *decisionCache) addAt(key []byte, s reviewStatus, ttl time.Duration, now int64) {
	expires := now + int64(ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[string(key)]; ok {
		e.status, e.expires = s, expires
		c.moveToFront(e)
		return
	}
	if len(c.entries) >= c.max && c.tail != nil {
		old := c.tail
		c.unlink(old)
		delete(c.entries, old.key)
	}
	e := &cacheEntry{key: string(key), status: s, expires: expires}
	c.entries[e.key] = e
	c.pushFront(e)
}

func (c *decisionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *decisionCache) moveToFront(e *cacheEntry) {
	if c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}

func (c *decisionCache) pushFront(e *cacheEntry) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *decisionCache) unlink(e *cacheEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}
