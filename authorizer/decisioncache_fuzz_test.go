package authorizer

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// FuzzDecisionCacheMatchesModel runs a sequence of stores, lookups and clock
// steps through the lock-free decision cache and through lruExpireModel, the
// list-and-map cache it replaced, and compares every lookup and the number
// of entries after each step.
func FuzzDecisionCacheMatchesModel(f *testing.F) {
	f.Add([]byte{2, 0x41, 0x42, 0x43, 0x01, 0x44, 0x02, 0x80, 0x01})
	f.Add([]byte{0, 0x40, 0x41, 0x00, 0x01, 0xc0, 0x90, 0x00})
	f.Add([]byte{7, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x00, 0x01, 0x4b, 0x4c, 0x4d, 0x02, 0x03})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		checkCacheAgainstModel(t, ops)
	})
}

// checkCacheAgainstModel: ops[0] sets the size (1–40); then each byte is an
// operation, its top two bits the kind: 0 a lookup, 1 a store with a TTL of
// an hour, 2 a store with a TTL of 0–7 ns, 3 a clock step of 0–31 ns. The low
// six bits choose one of 64 keys, or the TTL and the step.
func checkCacheAgainstModel(t *testing.T, ops []byte) {
	t.Helper()
	size := 1 + int(ops[0])%40
	clk := testingclock.NewFakePassiveClock(time.Unix(0, 0))
	c := newDecisionCache(clk, size)
	m := newLRUExpireModel(size)
	now := func() int64 { return clk.Now().UnixNano() }
	for i, op := range ops[1:] {
		key := []byte("key-" + strconv.Itoa(int(op&0x3f)))
		status := reviewStatus{allowed: op&1 == 0, reason: fmt.Sprint(i)}
		switch op >> 6 {
		case 0:
			got, ok := c.getAt(key, now())
			want, wantOK := m.getAt(key, now())
			require.Equal(t, wantOK, ok, "step %d: get %s", i, key)
			require.Equal(t, want, got, "step %d: get %s", i, key)
		case 1:
			c.addAt(key, status, time.Hour, now())
			m.addAt(key, status, time.Hour, now())
		case 2:
			ttl := time.Duration(op & 7)
			key = []byte("key-" + strconv.Itoa(int(op>>3&7)))
			c.addAt(key, status, ttl, now())
			m.addAt(key, status, ttl, now())
		case 3:
			clk.SetTime(clk.Now().Add(time.Duration(op & 0x1f)))
		}
		require.Equal(t, m.len(), c.len(), "step %d: entries", i)
	}
	assertCacheConsistent(t, c)
}

// assertCacheConsistent checks that the table holds exactly the heap's
// entries, each findable, and that the heap is ordered.
func assertCacheConsistent(t *testing.T, c *decisionCache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	tab := c.table.Load()
	live, empty := 0, 0
	for i := range tab.slots {
		switch e := tab.slots[i].Load(); e {
		case nil:
			empty++
		case c.tombstone:
		default:
			live++
		}
	}
	assert.Equal(t, c.lru.len(), live, "live entries in the table")
	assert.Equal(t, tab.empty, empty, "empty slots counted")
	assert.GreaterOrEqual(t, empty*4, len(tab.slots), "a quarter of the slots stay empty")
	for i, e := range c.lru.entries {
		assert.Equal(t, i, e.index)
		_, found := tab.find(e.key, e.hash, c.tombstone)
		assert.Same(t, e, found, e.key)
		if i > 0 {
			assert.LessOrEqual(t, c.lru.entries[(i-1)/2].listed, e.listed, "heap order")
		}
		assert.LessOrEqual(t, e.listed, e.used.Load())
	}
}

func TestDecisionCacheMatchesModelLongRuns(t *testing.T) {
	// Deterministic long sequences, beyond what the seed corpus reaches:
	// tables that grow, fill with tombstones and are rebuilt.
	for seed := range 20 {
		ops := make([]byte, 3000)
		x := uint32(seed*2654435761 + 1)
		for i := range ops {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			ops[i] = byte(x)
		}
		checkCacheAgainstModel(t, ops)
	}
}

// TestDecisionCacheConcurrent has readers and writers on overlapping keys at
// once (run it with -race): every hit returns the status stored for its key,
// the cache never holds more than its size, and afterwards the table and the
// heap agree.
func TestDecisionCacheConcurrent(t *testing.T) {
	const size, keys, workers, rounds = 64, 200, 8, 2000
	c := newDecisionCache(clock.RealClock{}, size)
	statusOf := func(k int) reviewStatus { return reviewStatus{allowed: k%2 == 0, reason: strconv.Itoa(k)} }
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := make([]byte, 0, 16)
			for i := range rounds {
				k := (i*7 + w*13) % keys
				key = strconv.AppendInt(key[:0], int64(k), 10)
				switch {
				case w%2 == 0 && i%3 == 0:
					ttl := time.Hour
					if i%5 == 0 {
						ttl = time.Nanosecond // soon expired: lookups remove it
					}
					c.add(key, statusOf(k), ttl)
				default:
					if got, ok := c.get(key); ok && got != statusOf(k) {
						t.Errorf("key %d: got %+v", k, got)
						return
					}
				}
				if n := c.len(); n > size {
					t.Errorf("%d entries in a cache of %d", n, size)
					return
				}
			}
		}()
	}
	wg.Wait()
	assertCacheConsistent(t, c)
}
