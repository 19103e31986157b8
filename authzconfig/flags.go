package authzconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The names of kube-apiserver's authorization flags.
const (
	FlagMode                   = "authorization-mode"
	FlagPolicyFile             = "authorization-policy-file"
	FlagWebhookConfigFile      = "authorization-webhook-config-file"
	FlagWebhookVersion         = "authorization-webhook-version"
	FlagWebhookAuthorizedTTL   = "authorization-webhook-cache-authorized-ttl"
	FlagWebhookUnauthorizedTTL = "authorization-webhook-cache-unauthorized-ttl"
	FlagConfig                 = "authorization-config"
)

// Flags are kube-apiserver's authorization flags. DefaultFlags gives their
// defaults; ParseFlags reads them from a command line.
type Flags struct {
	// Modes is --authorization-mode: the ordered authorizer types.
	Modes []string
	// PolicyFile is --authorization-policy-file, the ABAC policy. It is not
	// a legacy flag: the ABAC authorizer of a configuration file needs it too.
	PolicyFile string
	// WebhookConfigFile is --authorization-webhook-config-file, the
	// kubeconfig file of the single legacy webhook.
	WebhookConfigFile string
	// WebhookVersion is --authorization-webhook-version (default v1beta1).
	WebhookVersion string
	// WebhookCacheAuthorizedTTL is --authorization-webhook-cache-authorized-ttl
	// (default 5m); zero turns the cache of allowed decisions off.
	WebhookCacheAuthorizedTTL time.Duration
	// WebhookCacheUnauthorizedTTL is
	// --authorization-webhook-cache-unauthorized-ttl (default 30s); zero
	// turns the cache of other decisions off.
	WebhookCacheUnauthorizedTTL time.Duration
	// WebhookRetryBackoff is not a flag: the retry parameters of webhook
	// calls that kube-apiserver checks with the flags (5 attempts by
	// default). Nil is not checked.
	WebhookRetryBackoff *wait.Backoff
	// ConfigFile is --authorization-config, the path of a configuration
	// file. It excludes the legacy flags.
	ConfigFile string

	// Changed names the flags that were given on the command line (without
	// the leading dashes), as pflag's FlagSet.Changed reports them. A legacy
	// flag counts as given even when given its default value.
	Changed []string
}

// DefaultFlags returns kube-apiserver's defaults of the authorization flags.
func DefaultFlags() Flags {
	return Flags{
		Modes:                       []string{},
		WebhookVersion:              SubjectAccessReviewVersionV1Beta1,
		WebhookCacheAuthorizedTTL:   5 * time.Minute,
		WebhookCacheUnauthorizedTTL: 30 * time.Second,
		WebhookRetryBackoff:         &wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5},
	}
}

// LegacyFlagsSet reports whether any of the flags that --authorization-config
// excludes was given: --authorization-mode and the four
// --authorization-webhook-* flags.
func (f *Flags) LegacyFlagsSet() bool {
	for _, name := range f.Changed {
		switch name {
		case FlagMode, FlagWebhookConfigFile, FlagWebhookVersion, FlagWebhookAuthorizedTTL, FlagWebhookUnauthorizedTTL:
			return true
		}
	}
	return false
}

// Complete applies kube-apiserver's one implicit choice: with neither
// --authorization-mode nor --authorization-config, the mode is AlwaysAllow.
func (f *Flags) Complete() {
	if f.ConfigFile == "" && len(f.Modes) == 0 {
		f.Modes = []string{TypeAlwaysAllow}
	}
}

// Validate checks the flags with kube-apiserver's rules and messages. With
// --authorization-config, the legacy flags must be absent ("--authorization-config
// can not be specified when --authorization-mode or --authorization-webhook-*
// flags are defined"); the file itself is checked by DecodeAndValidate.
// Without it, the legacy flags are checked, and every error is reported.
func (f *Flags) Validate() []error {
	if f.ConfigFile != "" {
		if f.LegacyFlagsSet() {
			return []error{fmt.Errorf("--%s can not be specified when --%s or --authorization-webhook-* flags are defined", FlagConfig, FlagMode)}
		}
		return nil
	}
	var errs []error
	if len(f.Modes) == 0 {
		errs = append(errs, errors.New("at least one authorization-mode must be passed"))
	}
	known := KubeAPIServerTypes()
	for _, mode := range f.Modes {
		if !slices.Contains(known, mode) {
			errs = append(errs, fmt.Errorf("authorization-mode %q is not a valid mode", mode))
		}
		if mode == TypeABAC && f.PolicyFile == "" {
			errs = append(errs, errors.New("authorization-mode ABAC's authorization policy file not passed"))
		}
		if mode == TypeWebhook && f.WebhookConfigFile == "" {
			errs = append(errs, errors.New("authorization-mode Webhook's authorization config file not passed"))
		}
	}
	if f.PolicyFile != "" && !slices.Contains(f.Modes, TypeABAC) {
		errs = append(errs, errors.New("cannot specify --authorization-policy-file without mode ABAC"))
	}
	if f.WebhookConfigFile != "" && !slices.Contains(f.Modes, TypeWebhook) {
		errs = append(errs, errors.New("cannot specify --authorization-webhook-config-file without mode Webhook"))
	}
	if hasRepeats(f.Modes) {
		errs = append(errs, fmt.Errorf("authorization-mode %q has mode specified more than once", f.Modes))
	}
	if f.WebhookRetryBackoff != nil && f.WebhookRetryBackoff.Steps <= 0 {
		errs = append(errs, fmt.Errorf("number of webhook retry attempts must be greater than 0, but is: %d", f.WebhookRetryBackoff.Steps))
	}
	return errs
}

func hasRepeats(modes []string) bool {
	for i, m := range modes {
		if slices.Contains(modes[:i], m) {
			return true
		}
	}
	return false
}

// FromFlags translates the legacy flags into the configuration kube-apiserver
// builds from them when --authorization-config is not given: one authorizer
// per mode, in order, each named after its lowercased type, except Webhook,
// which becomes the webhook "default" with the flags' kubeconfig file,
// version and TTLs (a zero TTL turning its cache off), a 30s timeout and
// failurePolicy NoOpinion. Repeated modes are an error ("failed to build
// authorization config: modes should not be repeated in
// --authorization-mode"). Call Complete and Validate first, as
// kube-apiserver does.
//
// Like kube-apiserver, FromFlags does not validate the result (a negative
// TTL, for one, is carried over). Encode writes it to a file that replaces
// the flags.
func FromFlags(f Flags) (*Configuration, error) {
	if hasRepeats(f.Modes) {
		return nil, errors.New("failed to build authorization config: modes should not be repeated in --authorization-mode")
	}
	cfg := &Configuration{}
	for _, mode := range f.Modes {
		if mode != TypeWebhook {
			cfg.Authorizers = append(cfg.Authorizers, AuthorizerConfiguration{Type: mode, Name: strings.ToLower(mode)})
			continue
		}
		cacheAuthorized, cacheUnauthorized := f.WebhookCacheAuthorizedTTL != 0, f.WebhookCacheUnauthorizedTTL != 0
		kubeConfigFile := f.WebhookConfigFile
		cfg.Authorizers = append(cfg.Authorizers, AuthorizerConfiguration{
			Type: TypeWebhook,
			Name: "default",
			Webhook: &WebhookConfiguration{
				AuthorizedTTL:              metav1.Duration{Duration: f.WebhookCacheAuthorizedTTL},
				CacheAuthorizedRequests:    &cacheAuthorized,
				UnauthorizedTTL:            metav1.Duration{Duration: f.WebhookCacheUnauthorizedTTL},
				CacheUnauthorizedRequests:  &cacheUnauthorized,
				Timeout:                    metav1.Duration{Duration: 30 * time.Second},
				FailurePolicy:              FailurePolicyNoOpinion,
				SubjectAccessReviewVersion: f.WebhookVersion,
				ConnectionInfo: WebhookConnectionInfo{
					Type:           ConnectionTypeKubeConfigFile,
					KubeConfigFile: &kubeConfigFile,
				},
			},
		})
	}
	return cfg, nil
}
