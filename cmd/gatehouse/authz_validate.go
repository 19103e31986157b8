package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// validateReport is the -o json/yaml output of authz validate.
type validateReport struct {
	// kubernetes is the version that answered, for the text.
	kubernetes string

	SchemaVersion int            `json:"schemaVersion"`
	Files         []validateFile `json:"files"`
}

// The verdicts of authz validate.
const (
	verdictValid      = "valid"      // kube-apiserver 1.37 starts with the file
	verdictInvalid    = "invalid"    // kube-apiserver 1.37 refuses it
	verdictInputError = "inputError" // the file could not be read
)

// validateFile is the verdict on one file.
type validateFile struct {
	File    string `json:"file"`
	Verdict string `json:"verdict"`
	// Errors are kube-apiserver's errors, in its order and words.
	Errors []kubeError `json:"errors"`
	// Hints are gatehouse's advice, never kube-apiserver's errors.
	Hints []hint `json:"hints"`
	// InputError says why the file could not be read.
	InputError string `json:"inputError,omitempty"`
}

// kubeError is one error as kube-apiserver reports it.
type kubeError struct {
	// Field is the field path ("authorizers[0].name"); empty for an error
	// about the whole file (decoding).
	Field string `json:"field,omitempty"`
	// Type is the field.ErrorType ("FieldValueRequired", ...), or "Decode"
	// for an error of decoding.
	Type string `json:"type"`
	// Detail is the error's detail, without field, type and value.
	Detail string `json:"detail,omitempty"`
	// Message is kube-apiserver's text of the error.
	Message string `json:"message"`
}

// hint is gatehouse's advice on a likely mistake.
type hint struct {
	// Field is the path of the field in the file, as written
	// (authorizers[0].webhook.connectionInfo.type); empty for the file.
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

type validateOptions struct {
	checkFiles bool
	strict     bool
	reloadOf   string
}

func (a *app) authzValidateCommand() *cobra.Command {
	var o validateOptions
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check AuthorizationConfiguration files as kube-apiserver 1.37 does at startup",
		Long: `Check AuthorizationConfiguration files (--authorization-config) as
kube-apiserver 1.37 does when it starts: strict decoding, defaults, validation
with its messages and field paths, CEL match conditions compiled, and its
naming rule for non-webhook authorizers.

Hints follow kube-apiserver's errors, marked as hints: gatehouse's advice on
mistakes seen in published configurations (early KEP field names, CEL that
reads request.user.groups, a zero TTL that is defaulted, ...). They never
change the verdict; --strict makes them count as findings.

The kubeconfig files of webhooks live on the control-plane node: their paths
must be absolute, and they are looked for on this machine only with
--check-kubeconfig-files.

kube-apiserver reloads its file when it changes; with --reload-of STARTUP the
files are checked as such a reload of a server that started with STARTUP, with
its reload rules. A refused reload leaves the previous configuration in force.`,
		Example: `  gatehouse authz validate authorization-config.yaml
  gatehouse authz validate -o json deploy/control-plane/
  kustomize build . | gatehouse authz validate -`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.authzValidate(args, o)
		},
	}
	cmd.Flags().BoolVar(&o.checkFiles, "check-kubeconfig-files", false, "check that the webhooks' kubeconfig files exist on this machine, as kube-apiserver does on its node")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "count hints as findings (exit status 1)")
	cmd.Flags().StringVar(&o.reloadOf, "reload-of", "", "check the files as an automatic reload of a kube-apiserver that started with this configuration file (Node, RBAC and ABAC can be neither added nor removed)")
	return cmd
}

func (a *app) authzValidate(args []string, o validateOptions) error {
	compiler, err := matchcond.NewAuthorizationCompilerFor(a.kube)
	if err != nil {
		return err
	}
	var startup *authzconfig.Configuration
	if o.reloadOf != "" {
		in := readFile(o.reloadOf)
		if in.err != nil {
			return fmt.Errorf("--reload-of: %w", in.err)
		}
		startup, err = authzconfig.DecodeFor(a.kube, in.data)
		if err != nil {
			return fmt.Errorf("--reload-of %s: failed to load AuthorizationConfiguration from file: %w", o.reloadOf, err)
		}
	}
	report := validateReport{SchemaVersion: schemaVersion, kubernetes: a.kube.Version().String()}
	findings, inputErrors := false, false
	for _, in := range readInputs(args, a.stdin) {
		f := validateFile{File: in.name, Errors: []kubeError{}, Hints: []hint{}}
		if in.err != nil {
			f.Verdict, f.InputError = verdictInputError, in.err.Error()
			inputErrors = true
		} else {
			_, f.Errors = validateConfig(a.kube, in.data, compiler, o.checkFiles, startup)
			f.Hints = hintsFor(in.data, f.Errors)
			f.Verdict = verdictValid
			if len(f.Errors) > 0 {
				f.Verdict = verdictInvalid
				findings = true
			}
			if o.strict && len(f.Hints) > 0 {
				findings = true
			}
		}
		report.Files = append(report.Files, f)
	}
	if err := a.emit(report, report.text); err != nil {
		return err
	}
	switch {
	case inputErrors:
		return errInput
	case findings:
		return errFindings
	}
	return nil
}

// validateConfig checks a configuration file as kube-apiserver as k does
// (authzconfig.DecodeAndValidate) at startup, or, when startup is not nil,
// on an automatic reload of a server that started with startup, keeping the
// errors apart. It returns the configuration compiled when it passes.
func validateConfig(k kube.Target, data []byte, compiler *matchcond.AuthorizationCompiler, checkFiles bool, startup *authzconfig.Configuration) (*authzconfig.Compiled, []kubeError) {
	cfg, err := authzconfig.DecodeFor(k, data)
	if err != nil {
		return nil, []kubeError{{Type: "Decode", Detail: err.Error(), Message: "failed to load AuthorizationConfiguration from file: " + err.Error()}}
	}
	opts := authzconfig.ValidateOptions{SkipFileChecks: !checkFiles, Compiler: compiler, Kube: k}
	compiled, errs := authzconfig.ValidateAndCompile(cfg, opts)
	if len(errs) > 0 {
		return nil, kubeErrors(errs, false)
	}
	// kube-apiserver's own rule, checked only once validation passed: a
	// non-webhook authorizer is named after its lowercased type. Its message
	// is the detail alone.
	opts.RequireTypeNames = true
	names := kubeErrors(authzconfig.Validate(cfg, opts), true)
	if startup == nil {
		if len(names) > 0 {
			return nil, names
		}
		return compiled, names
	}
	// On reload, kube-apiserver reports the naming errors and the missing
	// types together, or else a type added since startup: its text says
	// which, and DecodeAndValidate gives it.
	opts.RequireTypeNames = false
	_, err = authzconfig.DecodeAndValidate(data, startup, opts)
	if err == nil {
		return compiled, names
	}
	list := []error{err}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		list = agg.Errors()
	}
	for i, e := range list {
		if i < len(names) {
			continue // the naming errors, already in names
		}
		names = append(names, kubeError{Type: "Reload", Detail: e.Error(), Message: e.Error()})
	}
	return nil, names
}

func kubeErrors(errs field.ErrorList, detailOnly bool) []kubeError {
	out := []kubeError{}
	for _, e := range errs {
		k := kubeError{Field: e.Field, Type: string(e.Type), Detail: e.Detail, Message: e.Error()}
		if detailOnly {
			k.Message = e.Detail
		}
		out = append(out, k)
	}
	return out
}

func (r validateReport) text(p *printer) {
	for _, f := range r.Files {
		switch f.Verdict {
		case verdictInputError:
			p.linef("%s: %s: %s", f.File, p.paint(red, "cannot read"), f.InputError)
			continue
		case verdictValid:
			p.linef("%s: %s", f.File, p.paint(green, "valid"))
		default:
			p.linef("%s: %s: kube-apiserver %s refuses it (%s)", f.File, p.paint(red, "invalid"), r.kubernetes, plural(len(f.Errors), "error"))
			for _, e := range f.Errors {
				p.block("  ", e.Message)
			}
		}
		if len(f.Hints) > 0 {
			p.linef("  %s", p.paint(yellow, "hints (gatehouse's advice, not kube-apiserver's errors):"))
			for _, h := range f.Hints {
				if h.Field != "" {
					p.block("    hint: ", h.Field+": "+h.Message)
				} else {
					p.block("    hint: ", h.Message)
				}
			}
		}
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
