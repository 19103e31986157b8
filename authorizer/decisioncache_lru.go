package authorizer

// lruHeap is the decision cache's entries in a binary min-heap by their
// listed stamps, under the cache's lock. A hit does not touch it: it only
// raises the entry's used stamp, and eviction lists the entry again when it
// finds it at the top with a used stamp above its listed one. Since an
// entry's listed stamp is never above its used one, an entry at the top
// whose two stamps are equal was used before every other entry was.
type lruHeap struct {
	entries []*cacheEntry
}

func (h *lruHeap) len() int { return len(h.entries) }

func (h *lruHeap) push(e *cacheEntry) {
	e.index = len(h.entries)
	h.entries = append(h.entries, e)
	h.up(e.index)
}

// remove takes e out of the heap.
func (h *lruHeap) remove(e *cacheEntry) {
	i, last := e.index, len(h.entries)-1
	if i != last {
		h.swap(i, last)
	}
	h.entries[last] = nil
	h.entries = h.entries[:last]
	if i != last {
		h.down(i)
		h.up(i)
	}
	e.index = -1
}

// replace puts e in old's place, and then where its stamp belongs.
func (h *lruHeap) replace(old, e *cacheEntry) {
	i := old.index
	e.index = i
	h.entries[i] = e
	old.index = -1
	h.down(i)
	h.up(i)
}

func (h *lruHeap) less(i, j int) bool { return h.entries[i].listed < h.entries[j].listed }

func (h *lruHeap) swap(i, j int) {
	h.entries[i], h.entries[j] = h.entries[j], h.entries[i]
	h.entries[i].index = i
	h.entries[j].index = j
}

func (h *lruHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *lruHeap) down(i int) {
	n := len(h.entries)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.swap(i, m)
		i = m
	}
}
