package authorizer

import "sync/atomic"

// cacheTable is the decision cache's open-addressing hash table with linear
// probing. Readers probe it without a lock; writers (under the cache's lock)
// fill empty slots, replace entries and turn removed ones into tombstones,
// never emptying a slot, so that a probe never stops short of an entry still
// there. When too few empty slots remain, the cache builds a new table.
type cacheTable struct {
	slots []atomic.Pointer[cacheEntry]
	mask  uint64
	// empty is the number of slots never filled; under the cache's lock.
	empty int
}

// minTableCapacity is the capacity of a table for few entries.
const minTableCapacity = 16

// tableCapacity is the capacity of a table built for live entries of a cache
// of max entries: a power of two, at least four times live so that it can
// take more, and at most the one at least twice max, which keeps a full
// cache's table at most half full of live entries.
func tableCapacity(live, max int) int {
	limit := minTableCapacity
	for limit < 2*max {
		limit *= 2
	}
	n := minTableCapacity
	for n < 4*live && n < limit {
		n *= 2
	}
	return n
}

func newCacheTable(capacity int) *cacheTable {
	return &cacheTable{
		slots: make([]atomic.Pointer[cacheEntry], capacity),
		mask:  uint64(capacity - 1),
		empty: capacity,
	}
}

// lookup is the entry of key, of hash h, or nil; it takes no lock.
func (t *cacheTable) lookup(key []byte, h uint64, tombstone *cacheEntry) *cacheEntry {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i].Load()
		if e == nil {
			return nil
		}
		if e != tombstone && e.hash == h && e.key == string(key) {
			return e
		}
	}
}

// find is lookup for writers: the entry of key and its slot, or nil.
func (t *cacheTable) find(key string, h uint64, tombstone *cacheEntry) (int, *cacheEntry) {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i].Load()
		if e == nil {
			return -1, nil
		}
		if e != tombstone && e.hash == h && e.key == key {
			return int(i), e
		}
	}
}

// insert puts e, whose key is not in t, in the first free slot of its
// probe, and reports whether enough empty slots remain: at least a quarter.
func (t *cacheTable) insert(e *cacheEntry, tombstone *cacheEntry) bool {
	for i := e.hash & t.mask; ; i = (i + 1) & t.mask {
		switch s := t.slots[i].Load(); s {
		case nil:
			t.empty--
		case tombstone:
		default:
			continue
		}
		t.slots[i].Store(e)
		return t.empty*4 >= len(t.slots)
	}
}
