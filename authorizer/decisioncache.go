package authorizer

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
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
	// conditional is the failure decision of an unrequested
	// status.conditionalDecision, read at 1.38 only.
	conditional conditionalFailure
	// cond is the decision of a conditional ask (AuthorizeConditionally),
	// nil for Authorize's entries.
	cond *ConditionalDecision
}

// decisionCache is a least-recently-used cache whose entries also expire, with
// the semantics of kube-apiserver's LRUExpireCache: an entry is live until its
// expiry instant, inclusive; a Get of an expired entry removes it; an Add to
// a full cache evicts the least recently used entry, live or not; an Add of
// a key already there replaces its value and expiry and makes it the most
// recently used.
//
// A hit takes no lock: the entries are found in an open-addressing table
// (cacheTable) read with atomic loads, an entry's value and expiry never
// change once published, and a hit records its use as a stamp from a
// counter instead of moving the entry in a list. Everything else (a miss's
// store, the removal of an expired entry, eviction) takes the writers' lock.
// Eviction finds the entry whose last use is oldest exactly, from a heap
// ordered by the stamps as they were when last looked at (lruHeap).
type decisionCache struct {
	now func() int64 // nanoseconds on the cache's own time line
	// at places a reading of the same clock on that time line.
	at   func(time.Time) int64
	max  int
	seed maphash.Seed

	table atomic.Pointer[cacheTable]
	// tick hands out the stamps of uses: a stamp is larger than every
	// stamp handed out before it.
	tick atomic.Uint64
	// tombstone marks a table slot whose entry was removed.
	tombstone *cacheEntry

	mu  sync.Mutex // writers: the table's slots, lru, the entries' listed and index
	lru lruHeap
}

// cacheEntry is one key's answer. key, hash, status and expires never change
// after the entry is published; an Add of the same key publishes a new entry.
type cacheEntry struct {
	key     string
	hash    uint64
	status  reviewStatus
	expires int64
	// used is the stamp of the entry's last use (its store or a hit).
	used atomic.Uint64
	// listed is the stamp lru orders the entry by (never above used), and
	// index its place in lru; both under the writers' lock.
	listed uint64
	index  int
}

func newDecisionCache(clk clock.PassiveClock, size int) *decisionCache {
	c := &decisionCache{max: size, seed: maphash.MakeSeed(), tombstone: &cacheEntry{}}
	c.table.Store(newCacheTable(tableCapacity(0, size)))
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

// getAt is get at the instant now. A hit takes no lock and does not
// allocate.
func (c *decisionCache) getAt(key []byte, now int64) (reviewStatus, bool) {
	h := maphash.Bytes(c.seed, key)
	e := c.table.Load().lookup(key, h, c.tombstone)
	if e == nil {
		return reviewStatus{}, false
	}
	if now > e.expires {
		c.removeExpired(e)
		return reviewStatus{}, false
	}
	// The hit is the entry's last use, unless the entry is the most
	// recently used already (it holds the last stamp handed out): then the
	// order of uses stays as it is, and the hit writes nothing, so that
	// the cores asking for a hot decision do not take turns owning the
	// counter's and the entry's cache lines. The hit takes place when the
	// counter is read; a use stamped after that is a later one.
	if last := c.tick.Load(); e.used.Load() != last {
		e.used.Store(c.tick.Add(1))
	}
	return e.status, true
}

// removeExpired removes e, found expired, unless an Add replaced or a
// removal removed it meanwhile.
func (c *decisionCache) removeExpired(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.table.Load()
	if i, found := t.find(e.key, e.hash, c.tombstone); found == e {
		t.slots[i].Store(c.tombstone)
		c.lru.remove(e)
	}
}

func (c *decisionCache) add(key []byte, s reviewStatus, ttl time.Duration) {
	c.addAt(key, s, ttl, c.now())
}

// addAt is add at the instant now.
func (c *decisionCache) addAt(key []byte, s reviewStatus, ttl time.Duration, now int64) {
	h := maphash.Bytes(c.seed, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.table.Load()
	stamp := c.tick.Add(1)
	i, old := t.find(string(key), h, c.tombstone)
	if old != nil {
		e := &cacheEntry{key: old.key, hash: h, status: s, expires: now + int64(ttl), listed: stamp}
		e.used.Store(stamp)
		t.slots[i].Store(e)
		c.lru.replace(old, e)
		return
	}
	if c.lru.len() >= c.max {
		c.evict(t)
	}
	e := &cacheEntry{key: string(key), hash: h, status: s, expires: now + int64(ttl), listed: stamp}
	e.used.Store(stamp)
	c.lru.push(e)
	if !t.insert(e, c.tombstone) {
		// Too few empty slots left for lookups to stay short: rehash the
		// live entries into a new table, which readers pick up.
		c.table.Store(c.rehash(t))
	}
}

// evict removes the least recently used entry. The heap's smallest listed
// stamp belongs to the least recently used entry unless that entry was used
// since it was listed; then it is listed again at its last use.
func (c *decisionCache) evict(t *cacheTable) {
	for c.lru.len() > 0 {
		e := c.lru.entries[0]
		if u := e.used.Load(); u != e.listed {
			e.listed = u
			c.lru.down(0)
			continue
		}
		c.lru.remove(e)
		if i, found := t.find(e.key, e.hash, c.tombstone); found == e {
			t.slots[i].Store(c.tombstone)
		}
		return
	}
}

// rehash is a table holding the live entries of t only.
func (c *decisionCache) rehash(t *cacheTable) *cacheTable {
	n := newCacheTable(tableCapacity(c.lru.len(), c.max))
	for _, e := range c.lru.entries {
		n.insert(e, c.tombstone)
	}
	return n
}

func (c *decisionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.len()
}
