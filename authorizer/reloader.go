package authorizer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/internal/authzcond"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// DefaultPollInterval is how often a Reloader reads its files: kube-apiserver
// polls its configuration file every minute.
const DefaultPollInterval = time.Minute

// ReloaderOptions configure a Reloader.
type ReloaderOptions struct {
	// Path is the configuration file (kube-apiserver's
	// --authorization-config).
	Path string
	// Options build each chain. Their Metrics also receive the reload
	// metrics.
	Options Options
	// Validate says how each content is checked, with
	// authzconfig.DecodeAndValidate (kube-apiserver's checks and reload
	// rules, match conditions compiled once for validation and the
	// webhooks). The zero value is kube-apiserver's.
	Validate authzconfig.ValidateOptions
	// PollInterval is how often the files are read; zero means one minute.
	PollInterval time.Duration
	// APIServerID identifies the server in the reload metrics
	// (apiserver_id_hash, the SHA-256 of the ID).
	APIServerID string
	// HealthCheck asks every webhook of a new configuration once (see
	// Webhook.Check) before switching to it, and keeps the old configuration
	// if one fails. kube-apiserver does not; it is off by default.
	HealthCheck bool
	// OnReload, if set, is called after each reload that was tried (the
	// configuration or a file it references changed), with its outcome.
	OnReload func(ReloadEvent)
	// Clock drives the polling and timestamps the reload metrics; nil means
	// the real clock. Options.Clock, if nil, is set to it.
	Clock clock.WithTicker
}

// ReloadEvent is the outcome of one reload.
type ReloadEvent struct {
	// Status is "success" or "failure", the status label of the reload
	// metrics.
	Status string
	// Err says why the reload failed; nil on success.
	Err error
	// Trigger says what changed: "configuration" or the referenced file.
	Trigger string
	// ConfigHash is the "sha256:<hex>" of the configuration file's content.
	ConfigHash string
	// Configuration is the configuration now in force (the previous one on
	// failure).
	Configuration *authzconfig.Configuration
}

// Reloader is an authorizer whose chain follows a configuration file, as
// kube-apiserver's does with --authorization-config, and also follows the
// kubeconfig, CA and client certificate files its webhooks use (which
// kube-apiserver does not watch). A change is applied only if the new
// content decodes, validates (with kube-apiserver's reload rules) and
// builds, and, when asked, its webhooks pass a health check; otherwise the
// last good chain keeps serving. The switch is atomic: an authorization
// uses either the old chain or the new one. Rebuilt webhooks start with
// empty caches. Each reload is recorded in kube-apiserver's
// apiserver_authorization_config_controller_* metrics.
type Reloader struct {
	opts     ReloaderOptions
	clock    clock.WithTicker
	interval time.Duration
	startup  *authzconfig.Configuration
	trigger  chan struct{}

	current atomic.Pointer[loadedChain]

	mu         sync.Mutex // serializes checks
	lastData   []byte
	lastConfig *authzconfig.Configuration
	fileSums   map[string]string

	idHash                   string
	reloadsOK, reloadsFailed metrics.Series
	lastOK, lastFailed       metrics.Series
	sink                     metrics.Sink
}

type loadedChain struct {
	chain  *Chain
	config *authzconfig.Configuration
}

// NewReloader reads, validates and builds the configuration file, as
// kube-apiserver does at startup: any error is returned. Call Run to follow
// the file.
func NewReloader(opts ReloaderOptions) (*Reloader, error) {
	r := &Reloader{opts: opts, clock: opts.Clock, interval: opts.PollInterval, trigger: make(chan struct{}, 1)}
	if r.clock == nil {
		r.clock = clock.RealClock{}
	}
	if r.opts.Options.Clock == nil {
		r.opts.Options.Clock = r.clock
	}
	r.opts.Validate.Kube = r.opts.Options.Kube
	if r.opts.Validate.Compiler == nil {
		// One CEL environment for every reload.
		c, err := authzcond.NewAuthorizationCompilerOf(r.opts.Options.Kube)
		if err != nil {
			return nil, err
		}
		r.opts.Validate.Compiler = c
	}
	if r.interval <= 0 {
		r.interval = DefaultPollInterval
	}
	r.sink = metrics.OrNoop(opts.Options.Metrics)
	r.idHash = configHash([]byte(opts.APIServerID))
	r.reloadsOK = metrics.NewSeries(r.sink, metrics.AuthorizationConfigReloads, "success", r.idHash)
	r.reloadsFailed = metrics.NewSeries(r.sink, metrics.AuthorizationConfigReloads, "failure", r.idHash)
	r.lastOK = metrics.NewSeries(r.sink, metrics.AuthorizationConfigReloadTimestamp, "success", r.idHash)
	r.lastFailed = metrics.NewSeries(r.sink, metrics.AuthorizationConfigReloadTimestamp, "failure", r.idHash)

	data, err := os.ReadFile(opts.Path)
	if err != nil {
		return nil, err
	}
	compiled, err := authzconfig.DecodeAndValidate(data, nil, r.opts.Validate)
	if err != nil {
		return nil, err
	}
	cfg := compiled.Configuration
	chain, err := NewFromCompiled(compiled, r.opts.Options)
	if err != nil {
		return nil, err
	}
	r.startup = cfg
	r.lastData, r.lastConfig = data, cfg
	r.fileSums = sumFiles(watchedFiles(cfg, chain))
	r.current.Store(&loadedChain{chain: chain, config: cfg})
	// Since kubernetes/kubernetes#132299 startup records only which
	// configuration is in force.
	r.sink.Set(metrics.AuthorizationConfigInfo, 1, r.idHash, configHash(data))
	return r, nil
}

// Authorize asks the chain in force.
func (r *Reloader) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	return r.current.Load().chain.Authorize(ctx, a)
}

func (r *Reloader) authorizeTraced(ctx context.Context, a *Attributes, s *Step) (Decision, string, error) {
	return r.current.Load().chain.authorizeTraced(ctx, a, s)
}

// AuthorizeConditionally asks the chain in force conditionally.
func (r *Reloader) AuthorizeConditionally(ctx context.Context, a *Attributes) ConditionalDecision {
	return r.current.Load().chain.AuthorizeConditionally(ctx, a)
}

// EvaluateConditions has the chain in force evaluate d, as kube-apiserver's
// reloading authorizer does: a chain reloaded since d was answered
// evaluates it (a member it has no authorizer of fails closed).
func (r *Reloader) EvaluateConditions(ctx context.Context, d ConditionalDecision, data *ConditionsData) (Decision, string, error) {
	return r.current.Load().chain.EvaluateConditions(ctx, d, data)
}

func (r *Reloader) authorizeConditionallyTraced(ctx context.Context, a *Attributes, s *Step) ConditionalDecision {
	return r.current.Load().chain.authorizeConditionallyTraced(ctx, a, s)
}

func (r *Reloader) evaluateConditionsTraced(ctx context.Context, d ConditionalDecision, data *ConditionsData, s *Step) (Decision, string, error) {
	return r.current.Load().chain.evaluateConditionsTraced(ctx, d, data, s)
}

// Chain returns the chain in force.
func (r *Reloader) Chain() *Chain { return r.current.Load().chain }

// Configuration returns the configuration in force. It must not be changed.
func (r *Reloader) Configuration() *authzconfig.Configuration { return r.current.Load().config }

// Run follows the files until ctx is done: it checks them at once, then
// every PollInterval and whenever Trigger is called.
func (r *Reloader) Run(ctx context.Context) {
	t := r.clock.NewTicker(r.interval)
	defer t.Stop()
	r.Check(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		case <-r.trigger:
		}
		r.Check(ctx)
	}
}

// Trigger asks Run to check the files now, for callers that watch file
// events themselves. It does not block.
func (r *Reloader) Trigger() {
	select {
	case r.trigger <- struct{}{}:
	default:
	}
}

// Check reads the files once and reloads if they changed, as
// kube-apiserver's checkFile does:
//  1. a file that cannot be read is a failure, at every check;
//  2. content equal to the last content read, with the referenced files
//     unchanged, is no change;
//  3. content that does not decode or validate is a failure (reported once
//     per content: it is remembered before it is checked);
//  4. a configuration semantically equal to the one in force, with the
//     referenced files unchanged, is no change;
//  5. a configuration that cannot be built, or (HealthCheck) whose webhooks
//     fail their check, is a failure (tried again only when something
//     changes);
//  6. otherwise the new chain replaces the old one: success.
//
// It returns the event, or nil when nothing changed.
func (r *Reloader) Check(ctx context.Context) *ReloadEvent {
	r.mu.Lock()
	defer r.mu.Unlock()

	data, err := os.ReadFile(r.opts.Path)
	if err != nil {
		return r.fail(fmt.Errorf("reading authorization config: %w", err), "configuration", nil)
	}
	sums := sumFiles(mapKeys(r.fileSums))
	changedFile := firstDifference(r.fileSums, sums)
	dataChanged := !bytes.Equal(data, r.lastData)
	if !dataChanged && changedFile == "" {
		return nil
	}
	trigger := "configuration"
	if !dataChanged {
		trigger = changedFile
	}
	r.lastData = data
	r.fileSums = sums

	compiled, err := authzconfig.DecodeAndValidate(data, r.startup, r.opts.Validate)
	if err != nil {
		return r.fail(err, trigger, data)
	}
	cfg := compiled.Configuration
	if changedFile == "" && reflect.DeepEqual(cfg, r.lastConfig) {
		return nil
	}
	r.lastConfig = cfg
	chain, err := NewFromCompiled(compiled, r.opts.Options)
	if err != nil {
		r.fileSums = sumFiles(watchedFiles(cfg, nil))
		return r.fail(err, trigger, data)
	}
	r.fileSums = sumFiles(watchedFiles(cfg, chain))
	if r.opts.HealthCheck {
		if err := healthCheck(ctx, chain); err != nil {
			chain.closeIdleConnections()
			return r.fail(err, trigger, data)
		}
	}
	old := r.current.Swap(&loadedChain{chain: chain, config: cfg})
	old.chain.closeIdleConnections()

	r.reloadsOK.Add(1)
	r.lastOK.Set(unixSeconds(r.clock.Now()))
	hash := configHash(data)
	r.sink.Set(metrics.AuthorizationConfigInfo, 1, r.idHash, hash)
	ev := &ReloadEvent{Status: "success", Trigger: trigger, ConfigHash: hash, Configuration: cfg}
	if r.opts.OnReload != nil {
		r.opts.OnReload(*ev)
	}
	return ev
}

func (r *Reloader) fail(err error, trigger string, data []byte) *ReloadEvent {
	r.reloadsFailed.Add(1)
	r.lastFailed.Set(unixSeconds(r.clock.Now()))
	ev := &ReloadEvent{Status: "failure", Err: err, Trigger: trigger, Configuration: r.current.Load().config}
	if data != nil {
		ev.ConfigHash = configHash(data)
	}
	if r.opts.OnReload != nil {
		r.opts.OnReload(*ev)
	}
	return ev
}

// healthCheck checks every webhook of a chain, concurrently.
func healthCheck(ctx context.Context, c *Chain) error {
	hooks := c.webhooks()
	errs := make(chan error, len(hooks))
	for _, w := range hooks {
		go func() { errs <- w.Check(ctx) }()
	}
	var all []error
	for range hooks {
		if err := <-errs; err != nil {
			all = append(all, err)
		}
	}
	slices.SortFunc(all, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(all...)
}

// watchedFiles are the files a configuration depends on besides itself:
// each webhook's kubeconfig file and, once built, the files it names.
func watchedFiles(cfg *authzconfig.Configuration, chain *Chain) []string {
	var files []string
	for _, a := range cfg.Authorizers {
		if a.Webhook != nil && a.Webhook.ConnectionInfo.KubeConfigFile != nil && *a.Webhook.ConnectionInfo.KubeConfigFile != "" {
			files = append(files, *a.Webhook.ConnectionInfo.KubeConfigFile)
		}
	}
	if chain != nil {
		files = append(files, chain.files()...)
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// sumFiles fingerprints files by content; a file that cannot be read gets
// its error as fingerprint.
func sumFiles(files []string) map[string]string {
	out := make(map[string]string, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			out[f] = "error: " + err.Error()
			continue
		}
		sum := sha256.Sum256(data)
		out[f] = hex.EncodeToString(sum[:])
	}
	return out
}

func mapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// firstDifference returns the first file, in order, whose fingerprint
// changed, or "".
func firstDifference(before, after map[string]string) string {
	for _, f := range mapKeys(after) {
		if before[f] != after[f] {
			return f
		}
	}
	return ""
}

// configHash is kube-apiserver's hash for the reload metrics: "sha256:" and
// the hex SHA-256 of the data, "" for no data.
func configHash(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}
