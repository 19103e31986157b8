package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

// migrateReport is the -o json/yaml output of authz migrate.
type migrateReport struct {
	// kubernetes is the version that answered, for the text.
	kubernetes string

	SchemaVersion int `json:"schemaVersion"`
	// Errors are kube-apiserver's errors on the flags; when there are any,
	// the other fields are empty.
	Errors []string `json:"errors"`
	// Path is where the file is meant to live (--config-path).
	Path string `json:"path,omitempty"`
	// Configuration is the AuthorizationConfiguration file, YAML.
	Configuration string `json:"configuration,omitempty"`
	// RemoveFlags are the kube-apiserver flags the file replaces, as given;
	// AddFlags the flags that replace them.
	RemoveFlags []string `json:"removeFlags"`
	AddFlags    []string `json:"addFlags"`
}

type migrateOptions struct {
	path       string
	apiVersion string
}

// legacyFlags are kube-apiserver's flags that authz migrate reads.
var legacyFlags = []struct{ name, usage string }{
	{authzconfig.FlagMode, "ordered, comma-separated authorizer types (AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node); repeatable"},
	{authzconfig.FlagPolicyFile, "the ABAC policy file (kept as a flag)"},
	{authzconfig.FlagWebhookConfigFile, "the webhook's kubeconfig file"},
	{authzconfig.FlagWebhookVersion, "the SubjectAccessReview version of the webhook (default v1beta1)"},
	{authzconfig.FlagWebhookAuthorizedTTL, "how long allowed answers are cached (default 5m0s; 0 turns the cache off)"},
	{authzconfig.FlagWebhookUnauthorizedTTL, "how long other answers are cached (default 30s; 0 turns the cache off)"},
	{authzconfig.FlagConfig, "an --authorization-config already in use (an error: nothing to migrate)"},
}

func (a *app) authzMigrateCommand() *cobra.Command {
	o := migrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate --authorization-mode=MODES [--authorization-webhook-*=...] [-- KUBE-APISERVER-ARGS...]",
		Short: "Turn kube-apiserver's legacy --authorization-* flags into an AuthorizationConfiguration file",
		Long: `Turn kube-apiserver's legacy authorization flags (--authorization-mode and
--authorization-webhook-*) into the AuthorizationConfiguration file that
kube-apiserver 1.37 itself builds from them, and say which flags replace them.

The flags are checked with kube-apiserver's rules and messages first. They can
be given as flags of this command, or as a whole kube-apiserver command line
after "--" (other flags there are ignored; give flags whose value could look
like an authorization flag in --name=value form).

The text output is the file itself, followed by the flags as YAML comments,
so that it can be redirected to the file.`,
		Example: `  gatehouse authz migrate --authorization-mode=Node,RBAC,Webhook \
    --authorization-webhook-config-file=/etc/kubernetes/authz-webhook.kubeconfig \
    --authorization-webhook-version=v1 > authorization-config.yaml
  gatehouse authz migrate -- $(cat kube-apiserver.args)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.authzMigrate(cmd.Flags(), args, o)
		},
	}
	for _, f := range legacyFlags {
		if f.name == authzconfig.FlagMode {
			cmd.Flags().StringSlice(f.name, nil, f.usage)
			continue
		}
		cmd.Flags().String(f.name, "", f.usage)
	}
	_ = cmd.RegisterFlagCompletionFunc(authzconfig.FlagMode, cobra.FixedCompletions(authzconfig.KubeAPIServerTypes(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc(authzconfig.FlagWebhookVersion, cobra.FixedCompletions([]string{"v1", "v1beta1"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().StringVar(&o.path, "config-path", "/etc/kubernetes/authorization-config.yaml", "where the file will live on the control-plane node (the value of --authorization-config)")
	cmd.Flags().StringVar(&o.apiVersion, "config-version", authzconfig.VersionV1, "the apiserver.config.k8s.io version of the file: v1, v1beta1 or v1alpha1")
	_ = cmd.RegisterFlagCompletionFunc("config-version", cobra.FixedCompletions([]string{authzconfig.VersionV1, authzconfig.VersionV1Beta1, authzconfig.VersionV1Alpha1}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (a *app) authzMigrate(fs *pflag.FlagSet, rest []string, o migrateOptions) error {
	switch o.apiVersion {
	case authzconfig.VersionV1, authzconfig.VersionV1Beta1, authzconfig.VersionV1Alpha1:
	default:
		return fmt.Errorf("--config-version %q: must be v1, v1beta1 or v1alpha1", o.apiVersion)
	}
	// The flags of this command, rebuilt as a command line, then the
	// kube-apiserver command line after "--": authzconfig.ParseFlags reads
	// them with kube-apiserver's rules.
	var args []string
	for _, f := range legacyFlags {
		flag := fs.Lookup(f.name)
		if flag == nil || !flag.Changed {
			continue
		}
		value := flag.Value.String()
		if sv, ok := flag.Value.(pflag.SliceValue); ok {
			value = strings.Join(sv.GetSlice(), ",")
		}
		args = append(args, "--"+f.name+"="+value)
	}
	args = append(args, rest...)
	if len(args) == 0 {
		return errors.New("no flags to migrate: give --authorization-mode and the --authorization-webhook-* flags, or a kube-apiserver command line after --")
	}

	report := migrateReport{SchemaVersion: schemaVersion, Errors: []string{}, RemoveFlags: []string{}, AddFlags: []string{}, kubernetes: a.kube.Version().String()}
	cfgYAML, err := migrate(args, o, &report)
	if err != nil {
		report = migrateReport{SchemaVersion: schemaVersion, Errors: []string{}, RemoveFlags: []string{}, AddFlags: []string{}, kubernetes: a.kube.Version().String()}
		for _, e := range unjoin(err) {
			report.Errors = append(report.Errors, e.Error())
		}
	} else {
		report.Configuration = string(cfgYAML)
	}
	if err := a.emit(report, report.text); err != nil {
		return err
	}
	if len(report.Errors) > 0 {
		return errFindings
	}
	return nil
}

// migrate translates the flags as kube-apiserver does and fills in the flags
// of the report.
func migrate(args []string, o migrateOptions, report *migrateReport) ([]byte, error) {
	flags, err := authzconfig.ParseFlags(args)
	if err != nil {
		return nil, err
	}
	if flags.ConfigFile != "" {
		if errs := flags.Validate(); len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		return nil, fmt.Errorf("--%s=%s is already used: nothing to migrate", authzconfig.FlagConfig, flags.ConfigFile)
	}
	flags.Complete()
	if errs := flags.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	cfg, err := authzconfig.FromFlags(flags)
	if err != nil {
		return nil, err
	}
	out, err := authzconfig.Encode(cfg, o.apiVersion)
	if err != nil {
		return nil, err
	}
	// The file as kube-apiserver will read it; the kubeconfig files are on
	// the control-plane node, not here.
	if _, err := authzconfig.DecodeAndValidate(out, nil, authzconfig.ValidateOptions{SkipFileChecks: true}); err != nil {
		return nil, fmt.Errorf("the flags translate to a configuration kube-apiserver would refuse: %w", err)
	}
	report.Path = o.path
	for _, name := range flags.Changed {
		if slices.Contains(report.RemoveFlags, "--"+name) {
			continue
		}
		switch name {
		case authzconfig.FlagMode, authzconfig.FlagWebhookConfigFile, authzconfig.FlagWebhookVersion,
			authzconfig.FlagWebhookAuthorizedTTL, authzconfig.FlagWebhookUnauthorizedTTL:
			report.RemoveFlags = append(report.RemoveFlags, "--"+name)
		}
	}
	report.AddFlags = append(report.AddFlags, "--"+authzconfig.FlagConfig+"="+o.path)
	if flags.PolicyFile != "" {
		report.AddFlags = append(report.AddFlags, "--"+authzconfig.FlagPolicyFile+"="+flags.PolicyFile)
	}
	return out, nil
}

func (r migrateReport) text(p *printer) {
	if len(r.Errors) > 0 {
		p.linef("%s", p.paint(red, "kube-apiserver "+r.kubernetes+" refuses these flags:"))
		for _, e := range r.Errors {
			p.block("  ", e)
		}
		return
	}
	p.linef("# %s", r.Path)
	p.linef("%s", strings.TrimSuffix(r.Configuration, "\n"))
	if len(r.RemoveFlags) > 0 {
		p.linef("# kube-apiserver flags: remove %s", strings.Join(r.RemoveFlags, ", "))
	}
	for _, f := range r.AddFlags {
		p.linef("# kube-apiserver flags: add %s", f)
	}
}
