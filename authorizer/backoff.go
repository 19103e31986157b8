package authorizer

import (
	"fmt"
	"time"
)

// Backoff says how a webhook call is retried: at most Steps calls, the
// first wait Duration, each next wait Factor times the previous one (never
// more than Cap when Cap > 0; reaching it ends the retries), each wait
// lengthened by up to Jitter times itself, at random. The fields mean what
// they mean in k8s.io/apimachinery's wait.Backoff.
type Backoff struct {
	Duration time.Duration
	Factor   float64
	Jitter   float64
	Steps    int
	Cap      time.Duration
}

// DefaultBackoff is kube-apiserver's backoff for authorization webhooks:
// 5 calls, waiting about 0.5 s, 0.75 s, 1.125 s and 1.69 s between them, each
// plus up to 20%.
func DefaultBackoff() Backoff {
	return Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

func (b Backoff) validate() error {
	if b.Steps <= 0 {
		return fmt.Errorf("number of webhook retry attempts must be greater than 0, but is: %d", b.Steps)
	}
	return nil
}

// step returns the wait before the next call and advances b, as
// wait.Backoff.Step does; rnd returns a number in [0, 1).
func (b *Backoff) step(rnd func() float64) time.Duration {
	if b.Steps < 1 {
		if b.Jitter > 0 {
			return jitter(b.Duration, b.Jitter, rnd)
		}
		return b.Duration
	}
	b.Steps--
	wait := b.Duration
	if b.Factor != 0 {
		next := time.Duration(float64(b.Duration) * b.Factor)
		if b.Cap > 0 && next > b.Cap {
			next = b.Cap
			b.Steps = 0
		}
		b.Duration = next
	}
	if b.Jitter > 0 {
		wait = jitter(wait, b.Jitter, rnd)
	}
	return wait
}

func jitter(d time.Duration, factor float64, rnd func() float64) time.Duration {
	return d + time.Duration(rnd()*factor*float64(d))
}
