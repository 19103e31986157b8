package cel

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestCPUPerStep(t *testing.T) {
	for _, e := range []string{
		"lists.range(100000).exists(i, i < 0)",
		"lists.range(142855).exists(i, i < 0)",
		"lists.range(250000).all(i, true)",
		"lists.range(900000).size()",
		"lists.range(100000).all(i, true && true && true && true && true && true && true && true && true && true && true && true && true && true && true && true)",
	} {
		prg := planExpr(t, e)
		prg.Eval(context.Background(), map[string]any{})
		var best time.Duration = time.Hour
		var work uint64
		for range 5 {
			st := cpuTime()
			_, _, w, err := prg.eval(context.Background(), map[string]any{}, nil)
			d := cpuTime() - st
			if d < best {
				best = d
			}
			work = w
			_ = err
		}
		fmt.Printf("%-60.60s cpu %v work %d ns/work %.1f\n", e, best, work, float64(best.Nanoseconds())/float64(work))
	}
}
