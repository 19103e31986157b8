package apiserver

import (
	"context"
	"sync"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

// ReloadingAdmissionPlugin is the admission plugin of static manifests
// directories, following them.
type ReloadingAdmissionPlugin struct {
	*AdmissionPlugin
	// Reloader follows the directories: the chain in force, Check and
	// Trigger.
	Reloader *admission.Reloader
	// mu makes each load of the Reloader's chain and its store in the
	// plugin one step, so the last step serves the newest chain.
	mu sync.Mutex
}

// NewReloadingAdmissionPlugin loads the static manifests directories of an
// AdmissionConfiguration file (or those named in opts.Dirs) as
// kube-apiserver does at startup (any error is returned, in its words) and
// follows them until ctx is done: content that loads and builds replaces
// its directory's old content in the plugin's chain atomically, any other
// leaves the last good one serving. opts.OnReload still hears every reload,
// after the plugin serves its outcome. Put the plugin in a generic server's
// admission chain (Config.AdmissionControl, or a plugin registered in its
// admission options).
func NewReloadingAdmissionPlugin(ctx context.Context, opts admission.ReloaderOptions) (*ReloadingAdmissionPlugin, error) {
	p := &ReloadingAdmissionPlugin{AdmissionPlugin: NewAdmissionPlugin(nil)}
	onReload := opts.OnReload
	opts.OnReload = func(ev admissionmanifest.ReloadEvent) {
		if p.Reloader != nil {
			p.serveReloaderChain()
		}
		if onReload != nil {
			onReload(ev)
		}
	}
	r, err := admission.NewReloader(opts)
	if err != nil {
		return nil, err
	}
	p.Reloader = r
	p.serveReloaderChain()
	go r.Run(ctx)
	return p, nil
}

// SetAPI puts the admission configuration registered through the API (as
// the server's informers deliver it) in force after the directories'
// content, as kube-apiserver composes its two sources: each plugin runs its
// static policies or webhooks first, and only those for requests on
// admission configuration objects. If the chain does not build with it,
// the chain in force keeps serving and the error says why.
func (p *ReloadingAdmissionPlugin) SetAPI(cfg admission.Config) error {
	if err := p.Reloader.SetAPI(cfg); err != nil {
		return err
	}
	p.serveReloaderChain()
	return nil
}

func (p *ReloadingAdmissionPlugin) serveReloaderChain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.SetChain(p.Reloader.Chain())
}
