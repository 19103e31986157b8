package authorizer

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// timerEvent is a timer the code under test started on a stepClock.
type timerEvent struct {
	d        time.Duration
	afterFun bool // AfterFunc (a timeout), not NewTimer (a wait)
}

// stepClock is a fake clock that reports every timer it starts, so that a
// test knows what the code waits for and steps exactly past it, without
// sleeping. The code blocks until the test takes the event.
type stepClock struct {
	*testingclock.FakeClock
	events chan timerEvent
}

func newStepClock() *stepClock {
	return &stepClock{FakeClock: testingclock.NewFakeClock(time.Unix(1_700_000_000, 0)), events: make(chan timerEvent)}
}

func (c *stepClock) NewTimer(d time.Duration) clock.Timer {
	t := c.FakeClock.NewTimer(d)
	c.events <- timerEvent{d: d}
	return t
}

func (c *stepClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := c.FakeClock.AfterFunc(d, f)
	c.events <- timerEvent{d: d, afterFun: true}
	return t
}

// nextWait returns the next NewTimer wait, letting timeouts (AfterFunc) pass.
func (c *stepClock) nextWait(t *testing.T) time.Duration {
	t.Helper()
	for ev := range c.events {
		if !ev.afterFun {
			return ev.d
		}
	}
	t.Fatal("clock closed")
	return 0
}

// fakeWebhook starts an authorizertest server and writes its kubeconfig.
func fakeWebhook(t *testing.T, opts authorizertest.Options) (*authorizertest.Server, string) {
	t.Helper()
	srv, err := authorizertest.NewServer(opts)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	kc := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	require.NoError(t, srv.WriteKubeconfig(kc))
	return srv, kc
}

// newTestWebhook builds a webhook for kc with the options given, v1 and
// NoOpinion unless set.
func newTestWebhook(t *testing.T, kc string, opts WebhookOptions) *Webhook {
	t.Helper()
	if opts.Name == "" {
		opts.Name = "test"
	}
	if opts.SubjectAccessReviewVersion == "" {
		opts.SubjectAccessReviewVersion = "v1"
	}
	if opts.FailurePolicy == "" {
		opts.FailurePolicy = FailurePolicyNoOpinion
	}
	opts.KubeConfigFile = kc
	w, err := NewWebhook(opts)
	require.NoError(t, err)
	return w
}

type authzResult struct {
	d      Decision
	reason string
	err    error
}

// authorizeAsync runs Authorize in a goroutine, for tests that step a clock.
func authorizeAsync(ctx context.Context, az Authorizer, a *Attributes) <-chan authzResult {
	ch := make(chan authzResult, 1)
	go func() {
		d, r, err := az.Authorize(ctx, a)
		ch <- authzResult{d, r, err}
	}()
	return ch
}

func podGet(user string, groups ...string) *Attributes {
	return &Attributes{
		User: &User{Name: user, Groups: groups}, Verb: "get", ResourceRequest: true,
		Namespace: "default", APIVersion: "v1", Resource: "pods", Name: "web",
	}
}

func counter(m *metrics.Memory, d *metrics.Desc, labels ...string) int {
	return int(m.Value(d, labels...))
}

// runtimeYield lets other goroutines run while a test waits for them.
func runtimeYield() { runtime.Gosched() }

func pemBase64(der []byte) string {
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
