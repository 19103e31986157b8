package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// Exit statuses.
const (
	exitOK       = 0 // every input passes
	exitFindings = 1 // kube-apiserver would reject something, or a request is not allowed
	exitUsage    = 2 // a usage error, or an input that cannot be read
)

// errFindings is returned by a command that has written its report and
// found something: the exit status is exitFindings and nothing more is
// printed.
var errFindings = errors.New("findings")

// errInput is returned by a command that has written its report and met an
// input it could not read or understand: the exit status is exitUsage and
// nothing more is printed.
var errInput = errors.New("input error")

// app is the state of one run of the command.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// output is the -o flag: text, json or yaml.
	output string
	// color is the --color flag: auto, always or never.
	color string
	// kubeVersion and featureGates are the --kube-version and
	// --feature-gates flags; kube is what they name (the newest release
	// with its defaults when neither is given).
	kubeVersion, featureGates string
	kube                      kube.Target
	// namespace is the -n flag of admit, mutate and test: the namespace of
	// objects of namespaced kinds that have none, as kubectl's context
	// namespace.
	namespace string
	// testBindUnbound is gatehouse test's --bind-unbound flag.
	testBindUnbound bool
}

// namespaceUsage describes the -n/--namespace flag of the commands that send objects.
const namespaceUsage = "the namespace of objects of namespaced kinds that have none (kubectl sends them in its context's namespace)"

// kubeNamed tells whether the command line named a Kubernetes (a version or
// gates): the text output then says which answered.
func (a *app) kubeNamed() bool { return a.kubeVersion != "" || a.featureGates != "" }

// run runs the command line args and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(context.Background())
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	case errors.Is(err, errInput):
		return exitUsage
	default:
		fmt.Fprintf(stderr, "gatehouse: %v\n", err)
		var usage usageError
		if errors.As(err, &usage) {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", usage.command)
		}
		return exitUsage
	}
}

// usageError is a command line that cobra cannot parse: the message tells
// where to find the usage.
type usageError struct {
	err     error
	command string
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "gatehouse",
		Short: "kube-apiserver's verdicts on authorization configurations, requests, admission manifests, mutating policies and CRDs, offline",
		Long: `gatehouse gives, offline, the verdicts kube-apiserver gives (1.37's by default;
--kube-version 1.35, 1.36, 1.37 or 1.38 from its beta, --feature-gates as its
flag takes them): whether it
starts with an AuthorizationConfiguration, what its authorizer chain decides
for a request, whom RBAC allows what, which file replaces the legacy
--authorization-* flags, whether it starts with a directory of static admission
manifests, what its MutatingAdmissionPolicies do to objects, and whether CRDs in
protected API groups are accepted.

Inputs are files, directories (their .yaml, .yml and .json files, recursively)
or "-" for standard input. Output is text, or -o json / -o yaml with a stable
schema. Exit status: 0 all fine, 1 findings, 2 usage or input error.`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			switch a.output {
			case "text", "json", "yaml":
			case "junit":
				if cmd.Name() != "test" {
					return fmt.Errorf("-o junit: only gatehouse test writes JUnit XML")
				}
			case "sarif":
				if cmd.Name() != "lint" {
					return errNoSARIF
				}
			default:
				return fmt.Errorf("-o %q: must be text, json or yaml (or junit for test, sarif for lint)", a.output)
			}
			switch a.color {
			case "auto", "always", "never":
			default:
				return fmt.Errorf("--color %q: must be auto, always or never", a.color)
			}
			if a.kubeVersion != "" {
				t, err := kube.ParseTarget(a.kubeVersion)
				if err != nil {
					return fmt.Errorf("--kube-version: %w", err)
				}
				a.kube = t
			}
			t, err := a.kube.WithFeatureGates(a.featureGates)
			if err != nil {
				return fmt.Errorf("--feature-gates: %w", err)
			}
			a.kube = t
			if a.kubeNamed() && a.output == "text" && cmd.Name() != "version" {
				// The text output says which kube-apiserver answered.
				fmt.Fprintf(a.stdout, "answers of Kubernetes %s\n", a.kube)
			}
			return nil
		},
	}
	root.PersistentFlags().StringVarP(&a.output, "output", "o", "text", "output format: text, json or yaml")
	root.PersistentFlags().StringVar(&a.color, "color", "auto", "colour the text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	root.PersistentFlags().StringVar(&a.kubeVersion, "kube-version", "", "the Kubernetes version whose kube-apiserver answers: 1.35, 1.36, 1.37 (the default) or 1.38 (its beta)")
	root.PersistentFlags().StringVar(&a.featureGates, "feature-gates", "", "kube-apiserver's --feature-gates for that version: Gate=true,Other=false")
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{err: err, command: cmd.CommandPath()}
	})

	authz := &cobra.Command{
		Use:   "authz",
		Short: "AuthorizationConfiguration files and the authorizer chain",
	}
	authz.AddCommand(a.authzValidateCommand(), a.authzExplainCommand(), a.authzMigrateCommand())
	crd := &cobra.Command{
		Use:   "crd",
		Short: "CustomResourceDefinitions in protected API groups",
	}
	crd.AddCommand(a.crdCheckCommand())
	rbacCmd := &cobra.Command{
		Use:   "rbac",
		Short: "Roles, ClusterRoles, RoleBindings and ClusterRoleBindings: who may do what",
	}
	rbacCmd.AddCommand(a.rbacCanICommand(), a.rbacWhoCanCommand())
	admission := &cobra.Command{
		Use:   "admission",
		Short: "Static admission manifests: webhooks and policies kube-apiserver loads from a directory",
	}
	admission.AddCommand(a.admissionValidateCommand())
	root.AddCommand(a.admitCommand(), a.testCommand(), admission, authz, crd, a.lintCommand(), a.mutateCommand(), rbacCmd, a.versionCommand())
	return root
}

// usageArgs wraps a cobra.PositionalArgs so that its error says where to
// find the usage, as flag errors do.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err: err, command: cmd.CommandPath()}
		}
		return nil
	}
}

// version is the module version of the binary, with its VCS revision when
// it was built from a checkout.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + dirty
	}
	return v
}

// versionReport is the -o json/yaml form of gatehouse version.
type versionReport struct {
	SchemaVersion int    `json:"schemaVersion"`
	Version       string `json:"version"`
	// Kubernetes is the version that answers by default (or the one
	// --kube-version names); Supported every version gatehouse answers
	// for, with the kube-apiserver release it checks its answers against.
	Kubernetes string             `json:"kubernetes"`
	Supported  []supportedVersion `json:"supported"`
	Go         string             `json:"go"`
}

type supportedVersion struct {
	Version string `json:"version"`
	Release string `json:"release"`
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gatehouse's version and the Kubernetes release it follows",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := versionReport{SchemaVersion: schemaVersion, Version: version(), Kubernetes: a.kube.Version().String(), Go: runtime.Version()}
			var names []string
			for _, v := range kube.SupportedVersions() {
				r.Supported = append(r.Supported, supportedVersion{Version: v.String(), Release: v.Release()})
				name := v.String()
				if v == kube.LatestVersion() {
					name += " (default)"
				}
				if strings.Contains(v.Release(), "-") {
					name += " (beta)"
				}
				names = append(names, name)
			}
			return a.emit(r, func(p *printer) {
				p.linef("gatehouse %s (answers of Kubernetes %s, %s)", r.Version, r.Kubernetes, r.Go)
				p.linef("answers for Kubernetes %s (--kube-version)", strings.Join(names, ", "))
			})
		},
	}
}

// colorOn says whether text output is coloured.
func (a *app) colorOn() bool {
	switch a.color {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := a.stdout.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// indent prefixes every line of s after the first with prefix.
func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
