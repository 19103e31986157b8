package authorizer

import (
	"fmt"

	"k8s.io/utils/clock"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/internal/authzcond"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/metrics"
)

// Options say how New builds a chain from a configuration.
type Options struct {
	// Authorizers are the caller's authorizers, by type: RBAC, Node, ABAC
	// or any type of the caller's own. AlwaysAllow and AlwaysDeny are built
	// in (an entry here replaces them); webhooks are built by New.
	Authorizers map[string]Authorizer
	// InClusterConnection is the connection of webhooks whose
	// connectionInfo.type is InClusterConfig, for example to a
	// kube-apiserver's /apis/authorization.k8s.io/v1/subjectaccessreviews.
	// Without it such a webhook is an error (kube-apiserver crashes on one).
	InClusterConnection *Connection
	// Compiler compiles match conditions; nil builds one when needed. It is
	// a *matchcond.AuthorizationCompiler (the same type).
	Compiler *authzcond.AuthorizationCompiler
	// Backoff is the webhooks' retry backoff; nil means DefaultBackoff.
	Backoff *Backoff
	// Clock is the clock of the webhooks; nil means the real clock.
	Clock clock.Clock
	// Metrics receives the decision, webhook and match condition metrics;
	// nil records nothing.
	Metrics metrics.Sink
	// UserAgent is the webhooks' User-Agent; empty sends Go's default, as
	// kube-apiserver does.
	UserAgent string
	// Kube is the kube-apiserver the chain answers as: its version and
	// feature gates; the zero Target is the newest release.
	Kube kube.Target
}

// New builds the chain kube-apiserver builds from an authorization
// configuration: first the system:masters authorizer (named
// PrivilegedGroupsName), then each configured authorizer in order, under its
// configured name, counted in apiserver_authorization_decisions_total with
// its type and name. Webhooks are built here, with their kubeconfig files,
// timeouts, caches (TTLs zero when caching is off), failure policies and
// match conditions; AlwaysAllow and AlwaysDeny are built in; every other
// type comes from opts.Authorizers.
//
// New does not validate the configuration: check it first with
// authzconfig.Validate or authzconfig.DecodeAndValidate, as kube-apiserver
// does. It returns an error for what it cannot build.
func New(cfg *authzconfig.Configuration, opts Options) (*Chain, error) {
	return newChain(cfg, nil, opts)
}

// NewFromCompiled is New for a configuration that authzconfig validated
// and compiled (authzconfig.ValidateAndCompile, authzconfig.DecodeAndValidate):
// the webhooks use its compiled match conditions instead of compiling them
// again.
func NewFromCompiled(c *authzconfig.Compiled, opts Options) (*Chain, error) {
	if c == nil {
		return nil, fmt.Errorf("no authorization configuration")
	}
	return newChain(c.Configuration, c.MatchConditions, opts)
}

func newChain(cfg *authzconfig.Configuration, compiled []*authzcond.AuthorizationMatcher, opts Options) (*Chain, error) {
	if cfg == nil {
		return nil, fmt.Errorf("no authorization configuration")
	}
	if len(cfg.Authorizers) == 0 {
		return nil, fmt.Errorf("at least one authorization mode must be passed")
	}
	compiler := opts.Compiler
	entries := []Named{{Name: PrivilegedGroupsName, Authorizer: PrivilegedGroups(SystemPrivilegedGroup)}}
	for i, ac := range cfg.Authorizers {
		var az Authorizer
		switch given, ok := opts.Authorizers[ac.Type]; {
		case ok && given != nil:
			az = given
		case ac.Type == authzconfig.TypeAlwaysAllow:
			az = AlwaysAllow()
		case ac.Type == authzconfig.TypeAlwaysDeny:
			az = AlwaysDeny()
		case ac.Type == authzconfig.TypeWebhook:
			var matcher *authzcond.AuthorizationMatcher
			if i < len(compiled) {
				matcher = compiled[i]
			}
			if matcher == nil && len(webhookConditions(ac.Webhook)) > 0 && compiler == nil {
				c, err := authzcond.NewAuthorizationCompilerOf(opts.Kube)
				if err != nil {
					return nil, err
				}
				compiler = c
			}
			w, err := newConfiguredWebhook(ac, compiler, matcher, opts)
			if err != nil {
				return nil, fmt.Errorf("authorizers[%d] (%s %q): %w", i, ac.Type, ac.Name, err)
			}
			az = w
		default:
			return nil, fmt.Errorf("authorizers[%d] (%s %q): no authorizer given for type %s: set Options.Authorizers[%q]",
				i, ac.Type, ac.Name, ac.Type, ac.Type)
		}
		entries = append(entries, Named{Name: ac.Name, Authorizer: WithDecisionMetrics(opts.Metrics, ac.Type, ac.Name, az)})
	}
	return NewChainFor(opts.Kube, entries...)
}

func webhookConditions(w *authzconfig.WebhookConfiguration) []string {
	if w == nil {
		return nil
	}
	out := make([]string, len(w.MatchConditions))
	for i, c := range w.MatchConditions {
		out[i] = c.Expression
	}
	return out
}

// newConfiguredWebhook builds a webhook as kube-apiserver's newForConfig
// does.
func newConfiguredWebhook(ac authzconfig.AuthorizerConfiguration, compiler *authzcond.AuthorizationCompiler, matcher *authzcond.AuthorizationMatcher, opts Options) (*Webhook, error) {
	wc := ac.Webhook
	if wc == nil {
		return nil, fmt.Errorf("webhook configuration required when type=Webhook")
	}
	wo := WebhookOptions{
		Name:                       ac.Name,
		SubjectAccessReviewVersion: wc.SubjectAccessReviewVersion,
		Timeout:                    wc.Timeout.Duration,
		FailurePolicy:              wc.FailurePolicy,
		MatchConditions:            webhookConditions(wc),
		Compiler:                   compiler,
		CompiledMatchConditions:    matcher,
		Kube:                       opts.Kube,
		Backoff:                    opts.Backoff,
		Clock:                      opts.Clock,
		Metrics:                    opts.Metrics,
		UserAgent:                  opts.UserAgent,
	}
	if r := wc.ConditionsReview; r != nil {
		wo.ConditionsReview = &WebhookConditionsReview{Version: r.Version, KubeConfigContext: r.KubeConfigContextName}
		if wc.ConnectionInfo.Type == authzconfig.ConnectionTypeInClusterConfig {
			wo.ConditionsReview.Connection = opts.InClusterConnection
		}
	}
	if wc.CachesAuthorized() {
		wo.AuthorizedTTL = wc.AuthorizedTTL.Duration
	}
	if wc.CachesUnauthorized() {
		wo.UnauthorizedTTL = wc.UnauthorizedTTL.Duration
	}
	switch wc.ConnectionInfo.Type {
	case authzconfig.ConnectionTypeKubeConfigFile:
		if wc.ConnectionInfo.KubeConfigFile == nil || *wc.ConnectionInfo.KubeConfigFile == "" {
			return nil, fmt.Errorf("connectionInfo.kubeConfigFile is required for type KubeConfigFile")
		}
		wo.KubeConfigFile = *wc.ConnectionInfo.KubeConfigFile
	case authzconfig.ConnectionTypeInClusterConfig:
		if opts.InClusterConnection == nil {
			return nil, fmt.Errorf("connectionInfo.type InClusterConfig needs Options.InClusterConnection")
		}
		wo.Connection = opts.InClusterConnection
	default:
		return nil, fmt.Errorf("unknown connectionInfo.type %q", wc.ConnectionInfo.Type)
	}
	return NewWebhook(wo)
}

// closeIdleConnections closes the idle connections of the chain's webhooks,
// once the chain is no longer used.
func (c *Chain) closeIdleConnections() {
	for _, e := range c.entries {
		if w := asWebhook(e.Authorizer); w != nil {
			w.client.CloseIdleConnections()
		}
	}
}

// webhooks returns the chain's webhooks with their names.
func (c *Chain) webhooks() map[string]*Webhook {
	out := map[string]*Webhook{}
	for _, e := range c.entries {
		if w := asWebhook(e.Authorizer); w != nil {
			out[e.Name] = w
		}
	}
	return out
}

func asWebhook(a Authorizer) *Webhook {
	if m, ok := a.(*instrumented); ok {
		a = m.delegate
	}
	w, _ := a.(*Webhook)
	return w
}

// files returns the files the chain's webhooks depend on.
func (c *Chain) files() []string {
	var out []string
	for _, e := range c.entries {
		if w := asWebhook(e.Authorizer); w != nil {
			out = append(out, w.files...)
		}
	}
	return out
}
