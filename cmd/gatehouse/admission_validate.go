package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/internal/manifest"
)

// admissionReport is the -o json/yaml output of admission validate.
type admissionReport struct {
	SchemaVersion int `json:"schemaVersion"`
	// Config is the AdmissionConfiguration file given with
	// --admission-config, if any.
	Config string `json:"config,omitempty"`
	// Loads are the verdicts, one per plugin and manifests directory.
	Loads []admissionLoad `json:"loads"`
}

// admissionLoad is kube-apiserver's verdict on one plugin's manifests.
type admissionLoad struct {
	Plugin string `json:"plugin"`
	// Path is the directory, or the one file checked as if alone in its
	// directory.
	Path string `json:"path"`
	// Starts says whether kube-apiserver 1.37 starts with these manifests.
	Starts bool `json:"starts"`
	// Error is the error that would stop kube-apiserver, as it words it.
	Error string `json:"error,omitempty"`
	// Hash is the content hash kube-apiserver computes (its
	// apiserver_manifest_admission_config_controller_last_config_info
	// label); empty when no manifest loads.
	Hash string `json:"hash,omitempty"`
	// Objects are the names of the loaded objects, kind by kind (webhook
	// configurations, policies, bindings), each kind sorted.
	Objects []string `json:"objects"`
	// Webhooks are the webhooks of the loaded configurations.
	Webhooks []admissionWebhook `json:"webhooks"`
	// StaticOrder is the webhook plugin's staticOrder (1.38), when its
	// configuration sets one.
	StaticOrder string `json:"staticOrder,omitempty"`
}

type admissionWebhook struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// errNoPlugin is an input error: the plugin of a path cannot be told.
var errNoPlugin = errors.New("no admissionregistration.k8s.io object tells which plugin reads it: use --plugin")

func (a *app) admissionValidateCommand() *cobra.Command {
	var plugin, config string
	cmd := &cobra.Command{
		Use:   "validate [--plugin PLUGIN] PATH... | --admission-config FILE",
		Short: "Check static admission manifests (KEP-5793) as kube-apiserver 1.37 loads them at start-up",
		Long: `Check, as kube-apiserver 1.37 loads them when it starts, the static admission
manifests of a directory (KEP-5793, manifest-based admission control
configuration): its .yaml, .yml and .json files, in name order, each object
decoded strictly, defaulted and validated as the REST API validates it on
create, with the rules of static manifests (names ending in .static.k8s.io,
unique in the directory, webhooks with a clientConfig.url, no params, bindings
of policies of the directory). Give the directory the plugin's
staticManifestsDir names, or one file to check it as if it were alone in its
directory.

For each path: the content hash and the objects kube-apiserver would load, or
the exact error that would stop it from starting. The plugin is the one that
reads the path's kinds (ValidatingAdmissionWebhook, MutatingAdmissionWebhook,
ValidatingAdmissionPolicy or MutatingAdmissionPolicy); --plugin names it.
With --admission-config, the staticManifestsDir of each plugin an
AdmissionConfiguration file configures is checked.

Exit status 1 when kube-apiserver would not start.`,
		Example: `  gatehouse admission validate /etc/kubernetes/admission/validating-policies
  gatehouse admission validate --plugin MutatingAdmissionWebhook webhooks/
  gatehouse admission validate --admission-config /etc/kubernetes/admission-config.yaml -o json`,
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			switch {
			case config != "" && len(args) > 0:
				return errors.New("give either --admission-config or paths, not both")
			case config == "" && len(args) == 0:
				return errors.New("requires at least 1 path, or --admission-config")
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			if plugin != "" && !slices.Contains(admissionmanifest.Plugins(), admissionmanifest.Plugin(plugin)) {
				return usageError{err: fmt.Errorf("--plugin %q: must be one of %s", plugin, pluginList()), command: cmd.CommandPath()}
			}
			return a.admissionValidate(admissionmanifest.Plugin(plugin), config, args)
		},
	}
	cmd.Flags().StringVar(&plugin, "plugin", "", "the plugin that reads the paths: "+pluginList())
	cmd.Flags().StringVar(&config, "admission-config", "", "an AdmissionConfiguration file (kube-apiserver's --admission-control-config-file)")
	plugins := make([]string, 0, 4)
	for _, p := range admissionmanifest.Plugins() {
		plugins = append(plugins, string(p))
	}
	_ = cmd.RegisterFlagCompletionFunc("plugin", cobra.FixedCompletions(plugins, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func pluginList() string {
	var names []string
	for _, p := range admissionmanifest.Plugins() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

func (a *app) admissionValidate(plugin admissionmanifest.Plugin, config string, paths []string) error {
	v, err := admissionmanifest.NewValidator(admissionmanifest.Options{Kube: a.kube, StaticNames: admissionmanifest.StaticNamesAllowed})
	if err != nil {
		return err
	}
	report := admissionReport{SchemaVersion: schemaVersion, Config: config, Loads: []admissionLoad{}}
	if config != "" {
		ac, err := admissionmanifest.ReadAdmissionConfiguration(config, admissionmanifest.ConfigOptions{Kube: a.kube})
		if err != nil {
			return fmt.Errorf("%s: %w", config, err)
		}
		for _, p := range admissionmanifest.Plugins() {
			cfg, err := ac.PluginConfiguration(p)
			if err != nil {
				report.Loads = append(report.Loads, admissionLoad{Plugin: string(p), Error: err.Error(), Objects: []string{}, Webhooks: []admissionWebhook{}})
				continue
			}
			if cfg == nil || cfg.StaticManifestsDir == "" {
				continue
			}
			dir := cfg.StaticManifestsDir
			if err := admissionmanifest.ValidateStaticManifestsDirFor(a.kube, dir, admissionmanifest.Files{}); err != nil {
				report.Loads = append(report.Loads, admissionLoad{Plugin: string(p), Path: dir, Error: err.Error(), Objects: []string{}, Webhooks: []admissionWebhook{}})
				continue
			}
			l := loadManifests(p, dir, admissionmanifest.LoadOptions{Validator: v})
			l.StaticOrder = string(cfg.StaticOrder)
			report.Loads = append(report.Loads, l)
		}
	}
	for _, path := range paths {
		dir, files, err := manifestsOf(path)
		if err != nil {
			return err
		}
		p := plugin
		if p == "" {
			if p, err = pluginOf(dir, files); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		l := loadManifests(p, dir, admissionmanifest.LoadOptions{Files: files, Validator: v})
		l.Path = path
		report.Loads = append(report.Loads, l)
	}
	if err := a.emit(report, report.text); err != nil {
		return err
	}
	for _, l := range report.Loads {
		if !l.Starts {
			return errFindings
		}
	}
	return nil
}

// manifestsOf returns the directory to load for path, and the files the
// loader sees: the directory's own, or, for a file, that file alone in its
// directory.
func manifestsOf(path string) (string, admissionmanifest.Files, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", admissionmanifest.Files{}, err
	}
	if info.IsDir() {
		return path, admissionmanifest.Files{}, nil
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	return dir, admissionmanifest.Files{
		ReadDir: func(name string) ([]fs.DirEntry, error) {
			entries, err := os.ReadDir(name)
			if err != nil {
				return nil, err
			}
			return slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return e.Name() != base }), nil
		},
	}, nil
}

// pluginOf tells the plugin that reads a directory from the kind of its
// first admissionregistration.k8s.io object (or list item).
func pluginOf(dir string, files admissionmanifest.Files) (admissionmanifest.Plugin, error) {
	readDir, readFile := files.ReadDir, files.ReadFile
	if readDir == nil {
		readDir = os.ReadDir
	}
	if readFile == nil {
		readFile = os.ReadFile
	}
	entries, err := readDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		if e.IsDir() {
			continue
		}
		data, err := readFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		var found admissionmanifest.Plugin
		manifest.Documents(data, func(_ int, doc []byte, err error) {
			if found != "" || err != nil {
				return
			}
			found = pluginOfDocument(doc)
		})
		switch found {
		case "":
		case admissionConfiguration:
			return "", errAdmissionConfiguration
		default:
			return found, nil
		}
	}
	return "", errNoPlugin
}

// admissionConfiguration stands, in pluginOf, for a document that is an
// AdmissionConfiguration rather than a manifest.
const admissionConfiguration admissionmanifest.Plugin = "AdmissionConfiguration"

var errAdmissionConfiguration = errors.New("an AdmissionConfiguration is not a manifest: check it with --admission-config")

// pluginOfDocument is the plugin that reads a document's kind, or "".
func pluginOfDocument(doc []byte) admissionmanifest.Plugin {
	var head struct {
		Kind  string `json:"kind"`
		Items []struct {
			Kind string `json:"kind"`
		} `json:"items"`
	}
	if yaml.Unmarshal(doc, &head) != nil {
		return ""
	}
	if head.Kind == "AdmissionConfiguration" {
		return admissionConfiguration
	}
	kinds := []string{head.Kind}
	for _, item := range head.Items {
		kinds = append(kinds, item.Kind)
	}
	for _, kind := range kinds {
		switch strings.TrimSuffix(kind, "List") {
		case "ValidatingWebhookConfiguration":
			return admissionmanifest.ValidatingAdmissionWebhook
		case "MutatingWebhookConfiguration":
			return admissionmanifest.MutatingAdmissionWebhook
		case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
			return admissionmanifest.ValidatingAdmissionPolicy
		case "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
			return admissionmanifest.MutatingAdmissionPolicy
		}
	}
	return ""
}

// loadManifests loads one directory as kube-apiserver does at start-up.
func loadManifests(plugin admissionmanifest.Plugin, dir string, opts admissionmanifest.LoadOptions) admissionLoad {
	l := admissionLoad{Plugin: string(plugin), Path: dir, Objects: []string{}, Webhooks: []admissionWebhook{}}
	m, err := admissionmanifest.Load(plugin, dir, opts)
	if err != nil {
		l.Error = admissionmanifest.StartupError(plugin, dir, err).Error()
		return l
	}
	l.Starts, l.Hash = true, m.Hash()
	l.Objects = append(l.Objects, m.Names()...)
	for _, w := range m.Webhooks() {
		l.Webhooks = append(l.Webhooks, admissionWebhook{Name: w.Name(), UID: w.UID})
	}
	return l
}

func (r admissionReport) text(p *printer) {
	for _, l := range r.Loads {
		where := l.Plugin
		if l.Path != "" {
			where = l.Path + " (" + l.Plugin + ")"
		}
		if !l.Starts {
			p.block(where+": "+p.paint(red, "kube-apiserver would not start")+": ", l.Error)
			continue
		}
		order := ""
		if l.StaticOrder != "" {
			order = ", staticOrder " + l.StaticOrder
		}
		if len(l.Objects) == 0 {
			p.linef("%s: %s, no manifests%s", where, p.paint(green, "loads"), order)
			continue
		}
		p.linef("%s: %s %d objects, hash %s%s", where, p.paint(green, "loads"), len(l.Objects), l.Hash, order)
		for _, o := range l.Objects {
			p.linef("  %s", o)
		}
		for _, w := range l.Webhooks {
			p.linef("  webhook %s (%s)", w.Name, w.UID)
		}
	}
}
