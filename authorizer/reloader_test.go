package authorizer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

const oneWebhook = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: %s
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: %s
- type: Node
  name: node
`

// reloadFixture is a configuration file with one webhook and a Node
// stand-in, followed by a Reloader on a fake clock.
type reloadFixture struct {
	dir      string
	path     string
	clock    *testingclock.FakeClock
	mem      *metrics.Memory
	events   []ReloadEvent
	mu       sync.Mutex
	reloader *Reloader
}

func newReloadFixture(t *testing.T, content string, health bool) (*reloadFixture, error) {
	f := &reloadFixture{dir: t.TempDir(), clock: testingclock.NewFakeClock(time.Unix(1_700_000_000, 0)), mem: metrics.NewMemory()}
	f.path = filepath.Join(f.dir, "authz.yaml")
	writeFile(t, f.path, content)
	r, err := NewReloader(ReloaderOptions{
		Path:        f.path,
		Options:     Options{Authorizers: map[string]Authorizer{"Node": AlwaysDeny(), "RBAC": AlwaysDeny()}, Metrics: f.mem},
		APIServerID: "testAPIServerID",
		HealthCheck: health,
		Clock:       f.clock,
		OnReload: func(ev ReloadEvent) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.events = append(f.events, ev)
		},
	})
	f.reloader = r
	return f, err
}

const testIDHash = "sha256:14f9d63e669337ac6bfda2e2162915ee6a6067743eddd4e5c374b572f951ff37"

func (f *reloadFixture) reloads(status string) int {
	return counter(f.mem, metrics.AuthorizationConfigReloads, status, testIDHash)
}

func (f *reloadFixture) write(t *testing.T, content string) { writeFile(t, f.path, content) }

func TestReloaderStartup(t *testing.T) {
	_, kc := fakeWebhook(t, authorizertest.Options{})
	f, err := newReloadFixture(t, fmt.Sprintf(oneWebhook, "w", kc), false)
	require.NoError(t, err)
	data, _ := os.ReadFile(f.path)
	assert.Equal(t, []string{PrivilegedGroupsName, "w", "node"}, f.reloader.Chain().Names())
	assert.Equal(t, [][]string{{testIDHash, configHash(data)}}, f.mem.Series(metrics.AuthorizationConfigInfo))
	assert.Empty(t, f.mem.Series(metrics.AuthorizationConfigReloads), "startup is not a reload")
	assert.Nil(t, f.reloader.Check(context.Background()), "nothing changed")

	_, err = newReloadFixture(t, "kind: AuthorizationConfiguration\n", false)
	assert.EqualError(t, err, "failed to load AuthorizationConfiguration from file: Object 'apiVersion' is missing in 'kind: AuthorizationConfiguration\n'")
	_, err = newReloadFixture(t, fmt.Sprintf(oneWebhook, "Bad_Name", kc), false)
	assert.ErrorContains(t, err, `authorizers[0].name: Invalid value: "Bad_Name"`)
}

func TestReloaderFollowsTheFile(t *testing.T) {
	first, kc1 := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "first"))})
	second, kc2 := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "second"))})
	f, err := newReloadFixture(t, fmt.Sprintf(oneWebhook, "w", kc1), false)
	require.NoError(t, err)
	ctx := context.Background()
	reason := func() string {
		_, r, err := f.reloader.Authorize(ctx, podGet("x"))
		require.NoError(t, err)
		return r
	}
	assert.Equal(t, "first", reason())
	assert.Equal(t, "first", reason(), "cached")
	assert.Len(t, first.Requests(), 1)

	// The same configuration written differently is no change.
	f.write(t, "# a comment\n"+fmt.Sprintf(oneWebhook, "w", kc1))
	assert.Nil(t, f.reloader.Check(ctx))
	assert.Equal(t, 0, f.reloads("success"))

	// A new webhook: success, new chain, empty caches.
	next := fmt.Sprintf(oneWebhook, "w", kc2)
	f.write(t, next)
	ev := f.reloader.Check(ctx)
	require.NotNil(t, ev)
	assert.Equal(t, "success", ev.Status)
	assert.NoError(t, ev.Err)
	assert.Equal(t, "configuration", ev.Trigger)
	assert.Equal(t, configHash([]byte(next)), ev.ConfigHash)
	assert.Equal(t, "second", reason())
	assert.Len(t, second.Requests(), 1)
	assert.Equal(t, 1, f.reloads("success"))
	assert.Equal(t, float64(1_700_000_000), f.mem.Value(metrics.AuthorizationConfigReloadTimestamp, "success", testIDHash))
	assert.Equal(t, [][]string{{testIDHash, configHash([]byte(next))}}, f.mem.Series(metrics.AuthorizationConfigInfo), "only the configuration in force")

	// An invalid file: one failure per content, the last good chain serves.
	f.clock.Step(time.Minute)
	f.write(t, "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []\n")
	ev = f.reloader.Check(ctx)
	require.NotNil(t, ev)
	assert.Equal(t, "failure", ev.Status)
	assert.EqualError(t, ev.Err, "authorizers: Required value: at least one authorization mode must be defined")
	assert.Nil(t, f.reloader.Check(ctx), "the same invalid content is not reported twice")
	assert.Equal(t, 1, f.reloads("failure"))
	assert.Equal(t, float64(1_700_000_060), f.mem.Value(metrics.AuthorizationConfigReloadTimestamp, "failure", testIDHash))
	assert.Equal(t, "second", reason())

	// An unreadable file fails at every check.
	require.NoError(t, os.Remove(f.path))
	for range 2 {
		ev = f.reloader.Check(ctx)
		require.NotNil(t, ev)
		assert.ErrorContains(t, ev.Err, "no such file or directory")
	}
	assert.Equal(t, 3, f.reloads("failure"))
	assert.Equal(t, "second", reason())

	// The reload rules: Node was there at startup and must stay; RBAC was not
	// and cannot be added.
	f.write(t, strings.Replace(next, "type: Node\n  name: node", "type: RBAC\n  name: rbac", 1))
	ev = f.reloader.Check(ctx)
	require.NotNil(t, ev)
	assert.EqualError(t, ev.Err, "missing required types: [Node]")
	f.write(t, next+"- type: RBAC\n  name: rbac\n")
	ev = f.reloader.Check(ctx)
	require.NotNil(t, ev)
	assert.EqualError(t, ev.Err, "authorizer type RBAC is not allowed if it was not enabled at initial server startup")

	f.mu.Lock()
	defer f.mu.Unlock()
	var statuses []string
	for _, e := range f.events {
		statuses = append(statuses, e.Status)
	}
	assert.Equal(t, []string{"success", "failure", "failure", "failure", "failure", "failure"}, statuses)
}

func TestReloaderFollowsReferencedFiles(t *testing.T) {
	_, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(true, false, "old CA"))})
	rotated, err := authorizertest.NewServer(authorizertest.Options{Decide: authorizertest.Always(status(true, false, "new CA"))})
	require.NoError(t, err)
	defer rotated.Close()
	f, err := newReloadFixture(t, fmt.Sprintf(oneWebhook, "w", kc), false)
	require.NoError(t, err)
	ctx := context.Background()

	// The webhook moves, with a new CA; only its kubeconfig changes, which
	// kube-apiserver would not notice.
	require.NoError(t, rotated.WriteKubeconfig(kc))
	ev := f.reloader.Check(ctx)
	require.NotNil(t, ev)
	assert.Equal(t, "success", ev.Status)
	assert.Equal(t, kc, ev.Trigger)
	_, reason, err := f.reloader.Authorize(ctx, podGet("x"))
	require.NoError(t, err)
	assert.Equal(t, "new CA", reason)
	assert.Nil(t, f.reloader.Check(ctx))

	// A broken kubeconfig: failure, reported once; the chain serves on.
	writeFile(t, kc, "current-context: gone\n")
	ev = f.reloader.Check(ctx)
	require.NotNil(t, ev)
	assert.Equal(t, "failure", ev.Status)
	assert.ErrorContains(t, ev.Err, "context was not found for specified context: gone")
	assert.Nil(t, f.reloader.Check(ctx))
	_, reason, err = f.reloader.Authorize(ctx, podGet("y"))
	require.NoError(t, err)
	assert.Equal(t, "new CA", reason)

	// Fixed again.
	require.NoError(t, rotated.WriteKubeconfig(kc))
	ev = f.reloader.Check(ctx)
	require.NotNil(t, ev)
	assert.Equal(t, "success", ev.Status)
}

func TestReloaderHealthCheck(t *testing.T) {
	_, kc := fakeWebhook(t, authorizertest.Options{})
	down, kcDown := fakeWebhook(t, authorizertest.Options{})
	down.InjectAlways(authorizertest.Fault{Status: 404})
	for _, health := range []bool{false, true} {
		t.Run(fmt.Sprint("health check ", health), func(t *testing.T) {
			f, err := newReloadFixture(t, fmt.Sprintf(oneWebhook, "w", kc), health)
			require.NoError(t, err)
			f.write(t, fmt.Sprintf(oneWebhook, "w", kcDown))
			ev := f.reloader.Check(context.Background())
			require.NotNil(t, ev)
			if !health {
				assert.Equal(t, "success", ev.Status, "kube-apiserver switches without asking")
				return
			}
			assert.Equal(t, "failure", ev.Status)
			assert.EqualError(t, ev.Err, `webhook "w" failed its health check: the server could not find the requested resource`)
			assert.Equal(t, kc, *f.reloader.Configuration().Authorizers[0].Webhook.ConnectionInfo.KubeConfigFile)
		})
	}
}

func TestReloaderRun(t *testing.T) {
	_, kc1 := fakeWebhook(t, authorizertest.Options{})
	_, kc2 := fakeWebhook(t, authorizertest.Options{})
	f, err := newReloadFixture(t, fmt.Sprintf(oneWebhook, "w", kc1), false)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		f.reloader.Run(ctx)
		close(done)
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			runtimeYield()
		}
	}
	waitFor("the ticker", f.clock.HasWaiters)

	f.write(t, fmt.Sprintf(oneWebhook, "w", kc2))
	f.clock.Step(DefaultPollInterval)
	waitFor("the poll", func() bool { return f.reloads("success") == 1 })

	f.write(t, fmt.Sprintf(oneWebhook, "v", kc2))
	f.reloader.Trigger()
	waitFor("the trigger", func() bool { return f.reloads("success") == 2 })
	assert.Equal(t, []string{PrivilegedGroupsName, "v", "node"}, f.reloader.Chain().Names())
	cancel()
	<-done
}

// TestReloaderUnderLoad authorizes from many goroutines while the file flips
// between valid and invalid contents: no authorization may fail or see a
// half-built chain.
func TestReloaderUnderLoad(t *testing.T) {
	a, kcA := fakeWebhook(t, authorizertest.Options{HTTP2: true, Decide: authorizertest.Always(status(true, false, "a"))})
	b, kcB := fakeWebhook(t, authorizertest.Options{HTTP2: true, Decide: authorizertest.Always(status(true, false, "b"))})
	f, err := newReloadFixture(t, fmt.Sprintf(oneWebhook, "w", kcA), false)
	require.NoError(t, err)
	contents := []string{
		fmt.Sprintf(oneWebhook, "w", kcB),
		"not: [valid",
		fmt.Sprintf(oneWebhook, "w", kcA),
		fmt.Sprintf(oneWebhook, "renamed", kcB),
		"apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers: []\n",
	}
	ctx := context.Background()
	var stop atomic.Bool
	var authorized, unexpected atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				d, reason, err := f.reloader.Authorize(ctx, podGet(fmt.Sprintf("user-%d-%d", g, i%50)))
				if err != nil || d != DecisionAllow || (reason != "a" && reason != "b") {
					unexpected.Add(1)
				}
				authorized.Add(1)
			}
		}()
	}
	const flips = 60
	for i := 0; i < flips; i++ {
		f.write(t, contents[i%len(contents)])
		f.reloader.Check(ctx)
		// Let the readers use each configuration in force, so that both
		// webhooks are asked whatever the scheduler does.
		for seen := authorized.Load(); authorized.Load() < seen+32; {
			runtime.Gosched()
		}
	}
	stop.Store(true)
	wg.Wait()
	assert.Zero(t, unexpected.Load(), "of %d authorizations", authorized.Load())
	assert.Positive(t, authorized.Load())
	assert.Equal(t, 36, f.reloads("success"))
	assert.Equal(t, 24, f.reloads("failure"))
	assert.NotEmpty(t, a.Requests())
	assert.NotEmpty(t, b.Requests())
}

// The reloader answers conditionally with the chain in force.
func TestReloaderConditional(t *testing.T) {
	_, kc := fakeWebhook(t, authorizertest.Options{Decide: authorizertest.Always(status(false, false, "no"))})
	f, err := newReloadFixture(t, fmt.Sprintf(oneWebhook, "w", kc), false)
	require.NoError(t, err)
	ctx := context.Background()
	d := f.reloader.AuthorizeConditionally(ctx, podGet("x"))
	assert.Equal(t, `NoOpinion(reason="w: {no}, node: {Everything is forbidden.}")`, d.String())
	trace, _ := ExplainConditionally(ctx, f.reloader, podGet("x"))
	assert.Equal(t, d.String(), trace.Conditional)
	assert.Len(t, trace.Steps, 3)
	u := ConditionalUnion(ConditionalMember{"w", ConditionsMapDecision(nil, nil, conds("a"))})
	x, reason, err := f.reloader.EvaluateConditions(ctx, u, &ConditionsData{})
	assert.Equal(t, DecisionNoOpinion, x)
	assert.Equal(t, "w: failed closed", reason)
	assert.EqualError(t, err, "evaluated to decision Deny, but only [Allow NoOpinion] were possible", "the webhook evaluates nothing at 1.37 (Deny, not supported), which the chain fails closed")
}
