// Command migrate turns kube-apiserver's legacy authorization flags into an
// AuthorizationConfiguration file, the way kube-apiserver 1.37 itself
// translates them, and prints the file and the flags that replace the old
// ones.
//
//	go run ./examples/migrate                                 # a sample command line
//	go run ./examples/migrate --authorization-mode=Node,RBAC  # your own
//
// Other kube-apiserver flags may be passed too; they are ignored.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

// sample returns a typical legacy command line with a webhook.
func sample() []string {
	return []string{
		"--authorization-mode=Node,RBAC,Webhook",
		"--authorization-webhook-config-file=/etc/kubernetes/authz-webhook.kubeconfig",
		"--authorization-webhook-version=v1",
		"--authorization-webhook-cache-authorized-ttl=2m",
		"--authorization-webhook-cache-unauthorized-ttl=0s",
	}
}

const configPath = "/etc/kubernetes/authorization-config.yaml"

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		args = sample()
	}
	if err := migrate(os.Stdout, args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func migrate(w io.Writer, args []string) error {
	flags, err := authzconfig.ParseFlags(args)
	if err != nil {
		return err
	}
	if flags.ConfigFile != "" {
		return fmt.Errorf("--authorization-config is already used (%s)", flags.ConfigFile)
	}
	flags.Complete()
	if errs := flags.Validate(); len(errs) > 0 {
		return fmt.Errorf("kube-apiserver would refuse these flags: %v", errs)
	}
	cfg, err := authzconfig.FromFlags(flags)
	if err != nil {
		return err
	}
	out, err := authzconfig.Encode(cfg, authzconfig.VersionV1)
	if err != nil {
		return err
	}
	// Check the file as kube-apiserver will read it; the kubeconfig files
	// are on the control-plane node, not here.
	if _, err := authzconfig.DecodeAndValidate(out, nil, authzconfig.ValidateOptions{SkipFileChecks: true}); err != nil {
		return fmt.Errorf("the flags translate to a configuration kube-apiserver would reject: %w", err)
	}

	fmt.Fprintf(w, "# %s\n%s\n", configPath, out)
	fmt.Fprintln(w, "# kube-apiserver flags: drop --authorization-mode and --authorization-webhook-*, add")
	fmt.Fprintf(w, "--authorization-config=%s\n", configPath)
	if flags.PolicyFile != "" {
		fmt.Fprintf(w, "--authorization-policy-file=%s\n", flags.PolicyFile)
	}
	return nil
}
