package apiserver

import (
	"context"
	"fmt"
	"maps"
	"slices"

	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

// ReloadingOptions configure NewReloadingAuthorizer.
type ReloadingOptions struct {
	// ReloaderOptions are gatehouse's: Path is the file of
	// --authorization-config; Options carry the metrics sink, the clock,
	// the connection of InClusterConfig webhooks and gatehouse authorizers
	// by type; APIServerID, PollInterval, HealthCheck and OnReload tune the
	// reload.
	authorizer.ReloaderOptions
	// KubeAuthorizers are k8s.io/apiserver authorizers for the types the
	// file names besides Webhook, AlwaysAllow and AlwaysDeny: RBAC, Node,
	// ABAC or the server's own. They join Options.Authorizers, wrapped with
	// FromKube; a type in both is an error.
	//
	// When Validate.KnownTypes is nil, the file may name kube-apiserver's
	// types and the types of KubeAuthorizers and Options.Authorizers.
	KubeAuthorizers map[string]kauthorizer.Authorizer
}

// ReloadingAuthorizer is the chain of an --authorization-config file,
// following the file, as a k8s.io/apiserver authorizer.
type ReloadingAuthorizer struct {
	*KubeAuthorizer
	// Reloader is the gatehouse chain: its configuration in force, Check
	// and Trigger.
	Reloader *authorizer.Reloader
}

// NewReloadingAuthorizer reads, validates and builds the configuration
// file, as kube-apiserver does at startup (any error is returned), and
// follows the file until ctx is done, as kube-apiserver does with
// --authorization-config: a change that decodes, validates and builds
// replaces the chain atomically; any other change leaves the last good one
// serving. Put the result in a generic server's Config.Authorization.Authorizer.
func NewReloadingAuthorizer(ctx context.Context, opts ReloadingOptions) (*ReloadingAuthorizer, error) {
	ro := opts.ReloaderOptions
	if len(opts.KubeAuthorizers) > 0 {
		all := maps.Clone(ro.Options.Authorizers)
		if all == nil {
			all = map[string]authorizer.Authorizer{}
		}
		for _, typ := range slices.Sorted(maps.Keys(opts.KubeAuthorizers)) {
			if _, dup := all[typ]; dup {
				return nil, fmt.Errorf("apiserver: authorizer type %q is in both Options.Authorizers and KubeAuthorizers", typ)
			}
			k := opts.KubeAuthorizers[typ]
			if k == nil {
				return nil, fmt.Errorf("apiserver: KubeAuthorizers[%q] is nil", typ)
			}
			all[typ] = FromKube(k)
		}
		ro.Options.Authorizers = all
	}
	if ro.Validate.KnownTypes == nil {
		known := authzconfig.KubeAPIServerTypes()
		for typ := range ro.Options.Authorizers {
			if !slices.Contains(known, typ) {
				known = append(known, typ)
			}
		}
		ro.Validate.KnownTypes = known
	}
	r, err := authorizer.NewReloader(ro)
	if err != nil {
		return nil, err
	}
	go r.Run(ctx)
	return &ReloadingAuthorizer{KubeAuthorizer: &KubeAuthorizer{a: r}, Reloader: r}, nil
}
