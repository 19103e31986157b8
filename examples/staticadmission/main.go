// Command staticadmission checks, offline, what kube-apiserver 1.37 would
// load from the static admission manifests of KEP-5793 (manifest-based
// admission control configuration), or the error that would stop it from
// starting: for a CI pipeline or a GitOps check, before the files reach a
// control-plane node.
//
//	go run ./examples/staticadmission -plugin ValidatingAdmissionWebhook /etc/kubernetes/admission/validating
//	go run ./examples/staticadmission -admission-config /etc/kubernetes/admission-config.yaml
//
// With -plugin it loads one directory for one plugin (ValidatingAdmissionWebhook,
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy or
// MutatingAdmissionPolicy); with -admission-config it reads an
// AdmissionConfiguration file and loads the staticManifestsDir of each of
// the four plugins it configures. It prints, per plugin, the content hash
// and the objects (and webhooks) that would load, or kube-apiserver's
// error, and exits with status 1 if kube-apiserver would not start.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout))
}

func run(args []string, out io.Writer) int {
	fs := flag.NewFlagSet("staticadmission", flag.ContinueOnError)
	fs.SetOutput(out)
	plugin := fs.String("plugin", "", "the plugin whose manifests directory is given as argument")
	config := fs.String("admission-config", "", "an AdmissionConfiguration file (--admission-control-config-file)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	v, err := admissionmanifest.NewValidator(admissionmanifest.Options{StaticNames: admissionmanifest.StaticNamesAllowed})
	if err != nil {
		fmt.Fprintln(out, err)
		return 1
	}
	opts := admissionmanifest.LoadOptions{Validator: v}
	switch {
	case *config != "" && fs.NArg() == 0:
		return checkAdmissionConfiguration(*config, opts, out)
	case *plugin != "" && fs.NArg() == 1:
		if !slices.Contains(admissionmanifest.Plugins(), admissionmanifest.Plugin(*plugin)) {
			fmt.Fprintf(out, "unknown plugin %q; one of %v\n", *plugin, admissionmanifest.Plugins())
			return 2
		}
		if !check(admissionmanifest.Plugin(*plugin), fs.Arg(0), opts, out) {
			return 1
		}
		return 0
	}
	fmt.Fprintln(out, "usage: staticadmission -plugin PLUGIN DIR | staticadmission -admission-config FILE")
	return 2
}

// checkAdmissionConfiguration checks the plugins an AdmissionConfiguration
// configures, in kube-apiserver's order.
func checkAdmissionConfiguration(file string, opts admissionmanifest.LoadOptions, out io.Writer) int {
	ac, err := admissionmanifest.ReadAdmissionConfiguration(file, admissionmanifest.ConfigOptions{})
	if err != nil {
		fmt.Fprintln(out, err)
		return 1
	}
	status := 0
	for _, p := range admissionmanifest.Plugins() {
		cfg, err := ac.PluginConfiguration(p)
		if err != nil {
			fmt.Fprintf(out, "%s: %v\n", p, err)
			status = 1
			continue
		}
		if cfg.StaticManifestsDir == "" {
			fmt.Fprintf(out, "%s: no static manifests\n", p)
			continue
		}
		if !check(p, cfg.StaticManifestsDir, opts, out) {
			status = 1
		}
	}
	return status
}

// check loads one directory and reports; it says whether it loads.
func check(plugin admissionmanifest.Plugin, dir string, opts admissionmanifest.LoadOptions, out io.Writer) bool {
	if err := admissionmanifest.ValidateStaticManifestsDir(dir, opts.Files); err != nil {
		fmt.Fprintf(out, "%s: %v\n", plugin, err)
		return false
	}
	m, err := admissionmanifest.Load(plugin, dir, opts)
	if err != nil {
		fmt.Fprintf(out, "%s: kube-apiserver would not start: %v\n", plugin, admissionmanifest.StartupError(plugin, dir, err))
		return false
	}
	hash := m.Hash()
	if hash == "" {
		hash = `"" (no manifests)`
	}
	fmt.Fprintf(out, "%s: %s loads %d objects, hash %s\n", plugin, dir, m.Len(), hash)
	for _, name := range m.Names() {
		fmt.Fprintf(out, "  %s\n", name)
	}
	for _, w := range m.Webhooks() {
		fmt.Fprintf(out, "  webhook %s (%s)\n", w.Name(), w.UID)
	}
	return true
}
