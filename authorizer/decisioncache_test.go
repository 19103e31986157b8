package authorizer

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

func TestDecisionCacheExpiry(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(time.Unix(0, 0))
	c := newDecisionCache(clk, 10)
	c.add([]byte("k"), reviewStatus{allowed: true, reason: "r"}, time.Minute)

	got, ok := c.get([]byte("k"))
	assert.True(t, ok)
	assert.Equal(t, reviewStatus{allowed: true, reason: "r"}, got)

	clk.SetTime(time.Unix(60, 0)) // the expiry instant itself is still live
	_, ok = c.get([]byte("k"))
	assert.True(t, ok)

	clk.SetTime(time.Unix(60, 1))
	_, ok = c.get([]byte("k"))
	assert.False(t, ok)
	assert.Equal(t, 0, c.len(), "an expired entry is removed when looked up")
}

func TestDecisionCacheUpdateRenews(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(time.Unix(0, 0))
	c := newDecisionCache(clk, 10)
	c.add([]byte("k"), reviewStatus{reason: "old"}, time.Second)
	clk.SetTime(time.Unix(0, 500))
	c.add([]byte("k"), reviewStatus{reason: "new"}, time.Minute)
	clk.SetTime(time.Unix(30, 0))
	got, ok := c.get([]byte("k"))
	assert.True(t, ok)
	assert.Equal(t, "new", got.reason)
	assert.Equal(t, 1, c.len())
}

func TestDecisionCacheEvictsLeastRecentlyUsed(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(time.Unix(0, 0))
	c := newDecisionCache(clk, 3)
	for i := 0; i < 3; i++ {
		c.add([]byte(fmt.Sprint(i)), reviewStatus{reason: fmt.Sprint(i)}, time.Hour)
	}
	_, _ = c.get([]byte("0")) // 0 is now the most recently used; 1 the least
	c.add([]byte("3"), reviewStatus{}, time.Hour)
	assert.Equal(t, 3, c.len())
	_, ok := c.get([]byte("1"))
	assert.False(t, ok, "the least recently used entry was evicted")
	for _, k := range []string{"0", "2", "3"} {
		_, ok := c.get([]byte(k))
		assert.True(t, ok, k)
	}
	// An expired entry still takes a slot until looked up or evicted, as in
	// kube-apiserver.
	c.add([]byte("short"), reviewStatus{}, time.Nanosecond)
	clk.SetTime(time.Unix(1, 0))
	assert.Equal(t, 3, c.len())
}

func TestDecisionCacheSizeIsKubeAPIServers(t *testing.T) {
	assert.Equal(t, 8192, decisionCacheSize)
	clk := testingclock.NewFakePassiveClock(time.Unix(0, 0))
	c := newDecisionCache(clk, decisionCacheSize)
	for i := 0; i < decisionCacheSize+100; i++ {
		c.add([]byte(fmt.Sprint(i)), reviewStatus{}, time.Hour)
	}
	assert.Equal(t, decisionCacheSize, c.len())
	_, ok := c.get([]byte("99"))
	assert.False(t, ok)
	_, ok = c.get([]byte("100"))
	assert.True(t, ok)
}

// BenchmarkDecisionCacheHitParallel looks cached decisions up from
// b.RunParallel's goroutines (run with -cpu 1,2,4,8): one hot key that
// every goroutine asks, and keys=3 that they ask in turn.
func BenchmarkDecisionCacheHitParallel(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			c := newDecisionCache(clock.RealClock{}, decisionCacheSize)
			keys := make([][]byte, n)
			for i := range keys {
				keys[i] = fmt.Appendf(nil, `{"user":"jane-%d","verb":"delete","namespace":"kube-system"}`, i)
				c.add(keys[i], reviewStatus{denied: true, reason: "protected"}, time.Hour)
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i++ {
					if _, ok := c.get(keys[i%n]); !ok {
						b.Error("miss")
						return
					}
				}
			})
		})
	}
}
