package authorizer

import "time"

// lruExpireModel is the decision cache as it was first written, a map and a
// doubly linked list, kube-apiserver's LRUExpireCache step by step: the exact
// path the lock-free cache is fuzzed against (single-threaded, no lock).
type lruExpireModel struct {
	max        int
	entries    map[string]*modelEntry
	head, tail *modelEntry
}

type modelEntry struct {
	key        string
	status     reviewStatus
	expires    int64
	prev, next *modelEntry
}

func newLRUExpireModel(size int) *lruExpireModel {
	return &lruExpireModel{max: size, entries: make(map[string]*modelEntry)}
}

// getAt is get at the instant now.
func (c *lruExpireModel) getAt(key []byte, now int64) (reviewStatus, bool) {
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

// addAt is add at the instant now.
func (c *lruExpireModel) addAt(key []byte, s reviewStatus, ttl time.Duration, now int64) {
	expires := now + int64(ttl)
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
	e := &modelEntry{key: string(key), status: s, expires: expires}
	c.entries[e.key] = e
	c.pushFront(e)
}

func (c *lruExpireModel) len() int {
	return len(c.entries)
}

func (c *lruExpireModel) moveToFront(e *modelEntry) {
	if c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}

func (c *lruExpireModel) pushFront(e *modelEntry) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *lruExpireModel) unlink(e *modelEntry) {
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
