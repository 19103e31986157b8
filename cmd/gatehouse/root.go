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
}

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
		Short: "kube-apiserver 1.37's verdicts on authorization configurations, requests, admission manifests, mutating policies and CRDs, offline",
		Long: `gatehouse gives, offline, the verdicts kube-apiserver 1.37 gives: whether it
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
			return nil
		},
	}
	root.PersistentFlags().StringVarP(&a.output, "output", "o", "text", "output format: text, json or yaml")
	root.PersistentFlags().StringVar(&a.color, "color", "auto", "colour the text output: auto (on a terminal, unless NO_COLOR is set), always or never")
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

// kubernetesVersion is the Kubernetes release whose answers gatehouse gives.
const kubernetesVersion = "1.37"

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
	Kubernetes    string `json:"kubernetes"`
	Go            string `json:"go"`
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gatehouse's version and the Kubernetes release it follows",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := versionReport{SchemaVersion: schemaVersion, Version: version(), Kubernetes: kubernetesVersion, Go: runtime.Version()}
			return a.emit(r, func(p *printer) {
				p.linef("gatehouse %s (answers of Kubernetes %s, %s)", r.Version, r.Kubernetes, r.Go)
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
