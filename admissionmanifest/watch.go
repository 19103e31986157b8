package admissionmanifest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/metrics"
)

// DefaultPollInterval is how often a Watcher reads its directory:
// kube-apiserver checks its manifests directories every minute.
const DefaultPollInterval = time.Minute

// WatchOptions configure a Watcher.
type WatchOptions struct {
	// Plugin and Dir say which directory to follow, for which plugin.
	Plugin Plugin
	Dir    string
	// Load says how to read it. A nil Validator is built once, for every
	// load.
	Load LoadOptions
	// PollInterval is how often the directory is read; zero means one
	// minute.
	PollInterval time.Duration
	// Clock drives the polling and timestamps the metrics; nil means the
	// real clock.
	Clock clock.WithTicker
	// Metrics receives kube-apiserver's reload metrics
	// (apiserver_manifest_admission_config_controller_*), labelled with the
	// plugin and the SHA-256 of APIServerID.
	Metrics     metrics.Sink
	APIServerID string
	// Check, if set, is run on each new content after it loaded, where
	// kube-apiserver builds its hooks (and compiles its policies): an error
	// fails the load as kube-apiserver's "failed to compile policy" does,
	// with the same rule that identical content is not tried again.
	Check func(*Manifests) error
	// OnReload, if set, is called after each reload tried (the content
	// changed, or could not be read), with its outcome.
	OnReload func(ReloadEvent)
}

// ReloadEvent is the outcome of one reload.
type ReloadEvent struct {
	Plugin Plugin
	// Status is "success" or "failure", the status label of the metrics.
	Status string
	// Err says why the reload failed; nil on success.
	Err error
	// Hash is the content hash of the directory read; "" when it could not
	// be read or has no content.
	Hash string
	// Manifests are those now in force (the previous ones on failure).
	Manifests *Manifests
}

// Watcher follows one plugin's manifests directory as kube-apiserver's
// static manifest source does: the first load must succeed (LoadInitial),
// then every PollInterval and on Trigger the directory is read again; new
// content replaces the old one atomically if all of it loads, and
// otherwise the last good content stays in force, whole. Removing a file
// removes its objects; an empty directory is valid and holds nothing.
// Manifests may be called from any goroutine at any time.
//
// Unlike kube-apiserver, a Watcher does not watch the directory with
// fsnotify: it polls, and Trigger lets a caller that watches file events
// check at once. Run retries a failed first load at every check, where
// kube-apiserver would not have started.
type Watcher struct {
	opts     WatchOptions
	clock    clock.WithTicker
	interval time.Duration
	metrics  *reloadMetrics
	trigger  chan struct{}
	synced   chan struct{}

	current atomic.Pointer[Manifests]

	mu sync.Mutex // serializes loads
	// lastReadHash is the hash of the last content that loaded, kept even
	// when its second stage failed, so that identical content is not tried
	// again; nil before the first load.
	lastReadHash *string
	syncOnce     sync.Once
}

// NewWatcher prepares a Watcher; it reads nothing until LoadInitial or Run.
func NewWatcher(opts WatchOptions) (*Watcher, error) {
	if !opts.Plugin.known() {
		return nil, errors.New("unknown admission plugin " + string(opts.Plugin))
	}
	w := &Watcher{opts: opts, clock: opts.Clock, interval: opts.PollInterval, trigger: make(chan struct{}, 1), synced: make(chan struct{})}
	if w.clock == nil {
		w.clock = clock.RealClock{}
	}
	if w.interval <= 0 {
		w.interval = DefaultPollInterval
	}
	if w.opts.Load.Validator == nil {
		v, err := NewValidator(Options{StaticNames: StaticNamesAllowed})
		if err != nil {
			return nil, err
		}
		w.opts.Load.Validator = v
	}
	w.metrics = newReloadMetrics(opts.Metrics, w.clock, opts.Plugin, opts.APIServerID)
	return w, nil
}

// LoadInitial loads the directory for the first time, as kube-apiserver
// does when it starts: an error is returned (kube-apiserver would not
// start; StartupError words it as kube-apiserver does) and records no
// metric; success makes the Watcher ready and records a successful reload.
// Calling it again once it succeeded does nothing.
func (w *Watcher) LoadInitial() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.HasSynced() {
		return nil
	}
	return w.loadInitial()
}

func (w *Watcher) loadInitial() error {
	m, err := w.load()
	if err == nil {
		err = w.prepare(m)
	}
	if err != nil {
		return err
	}
	w.current.Store(m)
	hash := m.Hash()
	w.lastReadHash = &hash
	w.syncOnce.Do(func() { close(w.synced) })
	w.metrics.success(hash)
	return nil
}

func (w *Watcher) load() (*Manifests, error) {
	return load(w.opts.Plugin, w.opts.Dir, &w.opts.Load)
}

// prepare is the second stage: the accessors, then the caller's Check.
func (w *Watcher) prepare(m *Manifests) error {
	if err := m.prepare(); err != nil {
		return err
	}
	if w.opts.Check != nil {
		return w.opts.Check(m)
	}
	return nil
}

// HasSynced reports whether the first load succeeded: kube-apiserver's
// plugin is not ready (it refuses requests with "not yet ready to handle
// request") until it has.
func (w *Watcher) HasSynced() bool {
	select {
	case <-w.synced:
		return true
	default:
		return false
	}
}

// Synced is closed when the first load succeeds.
func (w *Watcher) Synced() <-chan struct{} { return w.synced }

// Manifests returns the manifests in force; nil before the first load.
func (w *Watcher) Manifests() *Manifests { return w.current.Load() }

// Run follows the directory until ctx is done: it checks it at once, then
// every PollInterval and whenever Trigger is called. If LoadInitial has not
// succeeded yet, each check tries it again (a failure is then recorded as
// a failed reload), so that a server may start before its manifests are
// valid and become ready when they are.
func (w *Watcher) Run(ctx context.Context) {
	t := w.clock.NewTicker(w.interval)
	defer t.Stop()
	w.Check()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		case <-w.trigger:
		}
		w.Check()
	}
}

// Trigger asks Run to check the directory now, for callers that watch file
// events themselves (kube-apiserver also uses fsnotify). It does not block.
func (w *Watcher) Trigger() {
	select {
	case w.trigger <- struct{}{}:
	default:
	}
}

// Check reads the directory once, as kube-apiserver's checkAndReload does:
//  1. content that does not load is a failure, recorded at every check
//     until the content changes (the last content read is not updated);
//  2. content whose hash is the last content read's is no change: nothing
//     is recorded (so going back to the content in force after a failure
//     records nothing, and the failed content is still what was read last
//     only if it loaded);
//  3. the hash is remembered, then the accessors are built (selectors
//     parsed) and Check run: a failure is recorded once, since identical
//     content is not tried again;
//  4. otherwise the new content replaces the old one atomically: success.
//
// It returns the event, or nil when nothing changed.
func (w *Watcher) Check() *ReloadEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.HasSynced() {
		if err := w.loadInitial(); err != nil {
			return w.fail(err, "")
		}
		return w.event("success", nil, w.current.Load().Hash())
	}
	m, err := w.load()
	if err != nil {
		return w.fail(err, "")
	}
	hash := m.Hash()
	if w.lastReadHash != nil && hash == *w.lastReadHash {
		return nil
	}
	w.lastReadHash = &hash
	if err := w.prepare(m); err != nil {
		return w.fail(err, hash)
	}
	w.current.Store(m)
	w.metrics.success(hash)
	return w.event("success", nil, hash)
}

func (w *Watcher) fail(err error, hash string) *ReloadEvent {
	w.metrics.failure()
	return w.event("failure", err, hash)
}

func (w *Watcher) event(status string, err error, hash string) *ReloadEvent {
	ev := &ReloadEvent{Plugin: w.opts.Plugin, Status: status, Err: err, Hash: hash, Manifests: w.current.Load()}
	if w.opts.OnReload != nil {
		w.opts.OnReload(*ev)
	}
	return ev
}
