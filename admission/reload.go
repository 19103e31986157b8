package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// ConfigOf is the Config of loaded static manifests directories (any of
// the four plugins', each at most once; nil ones are skipped): a chain's
// Config.Static.
func ConfigOf(manifests ...*admissionmanifest.Manifests) Config {
	var c Config
	for _, m := range manifests {
		if m == nil {
			continue
		}
		c.MutatingPolicies = append(c.MutatingPolicies, m.MutatingAdmissionPolicies()...)
		c.MutatingPolicyBindings = append(c.MutatingPolicyBindings, m.MutatingAdmissionPolicyBindings()...)
		c.ValidatingPolicies = append(c.ValidatingPolicies, m.ValidatingAdmissionPolicies()...)
		c.ValidatingPolicyBindings = append(c.ValidatingPolicyBindings, m.ValidatingAdmissionPolicyBindings()...)
		c.MutatingWebhooks = append(c.MutatingWebhooks, m.MutatingWebhookConfigurations()...)
		c.ValidatingWebhooks = append(c.ValidatingWebhooks, m.ValidatingWebhookConfigurations()...)
	}
	return c
}

// ReloaderOptions configure a Reloader.
type ReloaderOptions struct {
	// AdmissionConfiguration is an AdmissionConfiguration file
	// (kube-apiserver's --admission-control-config-file): the
	// staticManifestsDir of each of the four plugins' configurations is
	// followed, and MutatingAdmissionWebhook's staticOrder orders the
	// mutating webhooks unless Chain.StaticOrder is set. Dirs adds (or
	// replaces) plugins' directories directly. At least one directory must
	// be given.
	AdmissionConfiguration string
	Dirs                   map[admissionmanifest.Plugin]string
	// Files is the file system; the zero value reads the operating
	// system's.
	Files admissionmanifest.Files
	// Chain are the chain's collaborators.
	Chain Options
	// API is the configuration registered through the API, enforced after
	// the static one (Config.Static) as kube-apiserver composes them; its
	// Static must be nil. SetAPI replaces it.
	API Config
	// PollInterval is how often each directory is read (zero: one minute,
	// kube-apiserver's); Clock drives the polling (nil: the real clock).
	PollInterval time.Duration
	Clock        clock.WithTicker
	// Metrics receives kube-apiserver's reload metrics
	// (apiserver_manifest_admission_config_controller_*), labelled with
	// the SHA-256 of APIServerID.
	Metrics     metrics.Sink
	APIServerID string
	// OnReload, if set, is called after each reload tried, with its
	// outcome, once the chain in force reflects it.
	OnReload func(admissionmanifest.ReloadEvent)
}

// Reloader keeps a chain built from static manifests directories, as
// kube-apiserver's four plugins follow theirs: each directory is loaded
// when the Reloader is made (an error is kube-apiserver's startup error),
// then read again every PollInterval (Run) and on Trigger; new content of
// a directory replaces its old content atomically if it all loads and the
// chain builds with it, and otherwise the last good content stays in force
// (admissionmanifest.Watcher). Chain may be called from any goroutine.
type Reloader struct {
	followed []followed
	opts     Options
	onReload func(admissionmanifest.ReloadEvent)

	mu    sync.Mutex // serializes rebuilds and guards api
	api   Config
	chain atomic.Pointer[Chain]
}

// followed is one plugin's directory and its watcher.
type followed struct {
	plugin  admissionmanifest.Plugin
	dir     string
	watcher *admissionmanifest.Watcher
}

// NewReloader loads the directories and builds the chain.
func NewReloader(o ReloaderOptions) (*Reloader, error) {
	dirs := map[admissionmanifest.Plugin]string{}
	chainOpts := o.Chain
	if o.AdmissionConfiguration != "" {
		copts := admissionmanifest.ConfigOptions{Files: o.Files, Kube: o.Chain.Kube}
		ac, err := admissionmanifest.ReadAdmissionConfiguration(o.AdmissionConfiguration, copts)
		if err != nil {
			return nil, err
		}
		for _, p := range admissionmanifest.Plugins() {
			pc, err := ac.PluginConfiguration(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			if pc.StaticManifestsDir != "" {
				dirs[p] = pc.StaticManifestsDir
			}
			if p == admissionmanifest.MutatingAdmissionWebhook && chainOpts.StaticOrder == "" {
				chainOpts.StaticOrder = pc.StaticOrder
			}
		}
	}
	for p, d := range o.Dirs {
		dirs[p] = d
	}
	if len(dirs) == 0 {
		return nil, errors.New("no static manifests directory to follow")
	}
	if o.API.Static != nil {
		return nil, errors.New("the API Config holds no Static: the static manifests directories are the Reloader's")
	}
	if chainOpts.Webhooks.Clients == nil {
		// Every chain the Reloader builds calls webhooks through the same
		// clients and connections, as kube-apiserver's plugins keep one
		// client manager across reloads.
		chainOpts.Webhooks.Clients = admissionwebhook.NewClientCache()
	}
	r := &Reloader{opts: chainOpts, onReload: o.OnReload, api: o.API}
	validator, err := admissionmanifest.NewValidator(admissionmanifest.Options{StaticNames: admissionmanifest.StaticNamesAllowed})
	if err != nil {
		return nil, err
	}
	// kube-apiserver's plugins are set up in its admission order.
	for _, p := range []admissionmanifest.Plugin{
		admissionmanifest.MutatingAdmissionPolicy, admissionmanifest.MutatingAdmissionWebhook,
		admissionmanifest.ValidatingAdmissionPolicy, admissionmanifest.ValidatingAdmissionWebhook,
	} {
		dir, ok := dirs[p]
		if !ok {
			continue
		}
		w, err := admissionmanifest.NewWatcher(admissionmanifest.WatchOptions{
			Plugin: p, Dir: dir, Load: admissionmanifest.LoadOptions{Files: o.Files, Validator: validator},
			PollInterval: o.PollInterval, Clock: o.Clock, Metrics: o.Metrics, APIServerID: o.APIServerID,
			Check: r.check, OnReload: r.reloaded,
		})
		if err != nil {
			return nil, err
		}
		r.followed = append(r.followed, followed{plugin: p, dir: dir, watcher: w})
	}
	for _, f := range r.followed {
		if err := f.watcher.LoadInitial(); err != nil {
			return nil, admissionmanifest.StartupError(f.plugin, f.dir, err)
		}
	}
	if _, err := r.rebuild(); err != nil {
		return nil, err
	}
	return r, nil
}

// Chain returns the chain in force.
func (r *Reloader) Chain() *Chain { return r.chain.Load() }

// Run follows the directories until ctx ends.
func (r *Reloader) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, f := range r.followed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.watcher.Run(ctx)
		}()
	}
	wg.Wait()
}

// Trigger asks Run to read every directory now, for callers that watch
// file events. It does not block.
func (r *Reloader) Trigger() {
	for _, f := range r.followed {
		f.watcher.Trigger()
	}
}

// Check reads every directory once, and returns the reloads tried.
func (r *Reloader) Check() []admissionmanifest.ReloadEvent {
	var events []admissionmanifest.ReloadEvent
	for _, f := range r.followed {
		if ev := f.watcher.Check(); ev != nil {
			events = append(events, *ev)
		}
	}
	return events
}

// SetAPI puts the configuration registered through the API in force with
// the static content in force (as kube-apiserver's informers deliver API
// objects), if the chain builds with it; otherwise the chain in force stays
// and the error says why. cfg must hold no Static.
func (r *Reloader) SetAPI(cfg Config) error {
	if cfg.Static != nil {
		return errors.New("the API Config holds no Static: the static manifests directories are the Reloader's")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := New(r.configWith(nil, cfg), r.opts)
	if err != nil {
		return err
	}
	r.api = cfg
	r.chain.Store(c)
	return nil
}

// check is the watchers' check of new content: the chain must build with
// it in place of its plugin's content in force.
func (r *Reloader) check(m *admissionmanifest.Manifests) error {
	r.mu.Lock()
	api := r.api
	r.mu.Unlock()
	_, err := New(r.configWith(m, api), r.opts)
	return err
}

// reloaded puts a reloaded directory's content in force.
func (r *Reloader) reloaded(ev admissionmanifest.ReloadEvent) {
	if ev.Status == "success" {
		if _, err := r.rebuild(); err != nil {
			// check built the same chain a moment ago: only a directory
			// reloaded in between can fail it, and its own check said why.
			ev.Status, ev.Err = "failure", err
		}
	}
	if r.onReload != nil {
		r.onReload(ev)
	}
}

// rebuild builds the chain of the content in force (with m in place of its
// plugin's) and puts it in force.
func (r *Reloader) rebuild() (*Chain, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := New(r.configWith(nil, r.api), r.opts)
	if err != nil {
		return nil, err
	}
	r.chain.Store(c)
	return c, nil
}

// configWith is api with the static content in force, with m (if not nil)
// in place of its plugin's.
func (r *Reloader) configWith(m *admissionmanifest.Manifests, api Config) Config {
	all := make([]*admissionmanifest.Manifests, 0, len(r.followed))
	for _, f := range r.followed {
		cur := f.watcher.Manifests()
		if m != nil && f.plugin == m.Plugin() {
			cur = m
		}
		all = append(all, cur)
	}
	static := ConfigOf(all...)
	api.Static = &static
	return api
}
