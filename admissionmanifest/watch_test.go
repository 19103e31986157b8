package admissionmanifest

import (
	"context"
	"errors"
	"io/fs"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// memDir is a manifests directory in memory that tests change while a
// Watcher reads it.
type memDir struct {
	mu    sync.Mutex
	files map[string]string
}

func newMemDir(files map[string]string) *memDir {
	d := &memDir{files: map[string]string{}}
	for k, v := range files {
		d.files[k] = v
	}
	return d
}

func (d *memDir) set(name, content string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.files[name] = content
}

func (d *memDir) remove(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.files, name)
}

func (d *memDir) snapshot() Files {
	d.mu.Lock()
	defer d.mu.Unlock()
	return dirFiles(d.files)
}

func (d *memDir) Files() Files {
	return Files{
		Stat:     func(name string) (fs.FileInfo, error) { return d.snapshot().Stat(name) },
		ReadDir:  func(name string) ([]fs.DirEntry, error) { return d.snapshot().ReadDir(name) },
		ReadFile: func(name string) ([]byte, error) { return d.snapshot().ReadFile(name) },
	}
}

const dir = "/etc/manifests"

func TestWatcherFollowsKubeAPIServersReloadRules(t *testing.T) {
	files := newMemDir(map[string]string{"a.yaml": vwcA})
	sink := metrics.NewMemory()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	var events []ReloadEvent
	failCheck := false
	w, err := NewWatcher(WatchOptions{
		Plugin: ValidatingAdmissionWebhook, Dir: dir, Load: LoadOptions{Files: files.Files()},
		Clock: clk, Metrics: sink, APIServerID: "apiserver-1",
		OnReload: func(ev ReloadEvent) { events = append(events, ev) },
		Check: func(*Manifests) error {
			if failCheck {
				return errors.New("cannot build hooks")
			}
			return nil
		},
	})
	require.NoError(t, err)
	assert.False(t, w.HasSynced())
	assert.Nil(t, w.Manifests())

	require.NoError(t, w.LoadInitial())
	assert.True(t, w.HasSynced())
	first := w.Manifests()
	assert.Equal(t, []string{"a.static.k8s.io"}, first.Names())
	id := idHash("apiserver-1")
	count := func(status string) float64 {
		return sink.Value(metrics.ManifestAdmissionConfigReloads, status, string(ValidatingAdmissionWebhook), id)
	}
	assert.Equal(t, 1.0, count("success"), "the initial load counts as a successful reload")
	assert.Equal(t, [][]string{{"ValidatingAdmissionWebhook", id, first.Hash()}}, sink.Series(metrics.ManifestAdmissionConfigInfo))

	// Unchanged content: nothing happens, nothing is recorded.
	assert.Nil(t, w.Check())
	assert.Empty(t, events)

	// A new file: swapped in.
	files.set("b.yaml", vwcB)
	ev := w.Check()
	require.NotNil(t, ev)
	assert.Equal(t, "success", ev.Status)
	assert.Equal(t, []string{"a.static.k8s.io", "b.static.k8s.io"}, w.Manifests().Names())
	assert.Equal(t, 2.0, count("success"))
	good := w.Manifests()

	// Bad content: a failure at every check, the last good set in force.
	files.set("c.yaml", "apiVersion: v1\nkind: Pod\n")
	for i := 1; i <= 2; i++ {
		ev = w.Check()
		require.NotNil(t, ev)
		assert.Equal(t, "failure", ev.Status)
		assert.ErrorContains(t, ev.Err, `error loading /etc/manifests/c.yaml: no kind "Pod" is registered for version "v1"`)
		assert.Same(t, good, ev.Manifests)
		assert.Same(t, good, w.Manifests())
		assert.Equal(t, float64(i), count("failure"))
	}
	assert.Equal(t, float64(unixSeconds(clk.Now())), sink.Value(metrics.ManifestAdmissionConfigReloadTimestamp, "failure", string(ValidatingAdmissionWebhook), id))

	// Back to the content in force: its hash is the last read, nothing
	// happens.
	files.remove("c.yaml")
	assert.Nil(t, w.Check())
	assert.Equal(t, 2.0, count("failure"))

	// A second-stage failure is recorded once: the hash is remembered
	// before the stage.
	failCheck = true
	files.set("b.yaml", vwcB+"\n")
	ev = w.Check()
	require.NotNil(t, ev)
	assert.EqualError(t, ev.Err, "cannot build hooks")
	assert.Nil(t, w.Check(), "identical content is not tried again")
	assert.Equal(t, 3.0, count("failure"))
	assert.Same(t, good, w.Manifests())
	failCheck = false
	assert.Nil(t, w.Check(), "not even once the stage would pass")

	// Deleting files deletes their objects; an empty directory is valid.
	files.remove("b.yaml")
	require.Equal(t, "success", w.Check().Status)
	assert.Equal(t, []string{"a.static.k8s.io"}, w.Manifests().Names())
	files.remove("a.yaml")
	ev = w.Check()
	require.Equal(t, "success", ev.Status)
	assert.Equal(t, 0, w.Manifests().Len())
	assert.Equal(t, "", ev.Hash)
	assert.Equal(t, [][]string{{"ValidatingAdmissionWebhook", id, ""}}, sink.Series(metrics.ManifestAdmissionConfigInfo))
	assert.Same(t, first, first, "the values handed out earlier are unchanged")
	assert.Equal(t, []string{"a.static.k8s.io"}, first.Names())
}

func TestWatcherInitialFailure(t *testing.T) {
	files := newMemDir(map[string]string{"a.yaml": "apiVersion: v1\nkind: Pod\n"})
	sink := metrics.NewMemory()
	w, err := NewWatcher(WatchOptions{Plugin: ValidatingAdmissionWebhook, Dir: dir, Load: LoadOptions{Files: files.Files()},
		Clock: clocktesting.NewFakeClock(time.Unix(0, 0)), Metrics: sink})
	require.NoError(t, err)
	err = w.LoadInitial()
	require.Error(t, err)
	assert.Equal(t, `failed to load static webhook manifests from "/etc/manifests": `+err.Error(), StartupError(ValidatingAdmissionWebhook, dir, err).Error())
	assert.False(t, w.HasSynced())
	assert.Empty(t, sink.Series(metrics.ManifestAdmissionConfigReloads), "kube-apiserver records no metric for a failed start")
	// No apiserver ID: no info series, as in kube-apiserver.
	files.set("a.yaml", vwcA)
	require.Equal(t, "success", w.Check().Status)
	assert.True(t, w.HasSynced())
	assert.Empty(t, sink.Series(metrics.ManifestAdmissionConfigInfo))
}

func TestWatcherRunPollsOnTheCallersClock(t *testing.T) {
	files := newMemDir(map[string]string{"a.yaml": vwcA})
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	events := make(chan ReloadEvent, 10)
	w, err := NewWatcher(WatchOptions{Plugin: ValidatingAdmissionWebhook, Dir: dir, Load: LoadOptions{Files: files.Files()},
		Clock: clk, PollInterval: 10 * time.Second, OnReload: func(ev ReloadEvent) { events <- ev }})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()

	// Run loads at once: the watcher becomes ready.
	<-w.Synced()
	assert.Equal(t, "success", (<-events).Status)

	// A change is seen at the next tick, not before.
	files.set("b.yaml", vwcB)
	for !clk.HasWaiters() {
		// Wait for Run's ticker; no sleep, the fake clock reports it.
		runtime.Gosched()
	}
	clk.Step(10 * time.Second)
	ev := <-events
	assert.Equal(t, []string{"a.static.k8s.io", "b.static.k8s.io"}, ev.Manifests.Names())

	// Trigger checks at once.
	files.remove("a.yaml")
	w.Trigger()
	ev = <-events
	assert.Equal(t, []string{"b.static.k8s.io"}, ev.Manifests.Names())

	cancel()
	<-done
}

func TestWatcherServesConcurrentReadsDuringReloads(t *testing.T) {
	files := newMemDir(map[string]string{"a.yaml": vwcA})
	w, err := NewWatcher(WatchOptions{Plugin: ValidatingAdmissionWebhook, Dir: dir, Load: LoadOptions{Files: files.Files()},
		Clock: clocktesting.NewFakeClock(time.Unix(0, 0))})
	require.NoError(t, err)
	require.NoError(t, w.LoadInitial())
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				m := w.Manifests()
				// A set is whole: a alone, or a and b, never b alone.
				names := m.Names()
				if len(names) == 0 || names[0] != "a.static.k8s.io" {
					t.Errorf("partial set %v", names)
					return
				}
				for _, h := range m.Webhooks() {
					_ = h.Name() + *h.Validating.ClientConfig.URL
					_ = h.NamespaceSelector.String()
				}
			}
		}()
	}
	for i := range 200 {
		if i%2 == 0 {
			files.set("b.yaml", vwcB)
		} else {
			files.remove("b.yaml")
		}
		require.Equal(t, "success", w.Check().Status)
	}
	close(stop)
	readers.Wait()
}
