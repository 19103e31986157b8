// Command authzconfig decodes and validates the AuthorizationConfiguration
// sample of KEP-3221 the way kube-apiserver 1.37 does: first the sample as
// the Kubernetes blog published it (which kube-apiserver rejects), then
// corrected.
//
//	go run ./examples/authzconfig
package main

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

// The blog's sample, as published (see authzconfig/testdata/realworld).
//
//go:embed blog-sample-original.yaml
var published []byte

// The same, corrected: connectionInfo.type KubeConfigFile, the '!' expression
// quoted, request.groups.
//
//go:embed kep-sample.yaml
var corrected []byte

func main() {
	// The webhook's kubeconfig file lives on the control-plane node, not
	// here: check everything else.
	opts := authzconfig.ValidateOptions{SkipFileChecks: true}

	fmt.Println("== the sample as published")
	report(published, opts)
	fmt.Println()
	fmt.Println("== the sample, corrected")
	if !report(corrected, opts) {
		os.Exit(1)
	}
}

// report decodes and validates one file and prints kube-apiserver's verdict.
func report(data []byte, opts authzconfig.ValidateOptions) bool {
	cfg, err := authzconfig.Decode(data)
	if err != nil {
		fmt.Println("rejected while decoding:", err)
		return false
	}
	if errs := authzconfig.Validate(cfg, opts); len(errs) > 0 {
		fmt.Println("rejected by validation:")
		for _, e := range errs {
			fmt.Println("  ", e)
		}
		return false
	}
	fmt.Println("valid; the authorizer chain, after system:masters:")
	for i, a := range cfg.Authorizers {
		line := fmt.Sprintf("  %d. %s %q", i+1, a.Type, a.Name)
		if w := a.Webhook; w != nil {
			line += fmt.Sprintf(": %s via %s, timeout %s, failurePolicy %s, %d match conditions, caches allowed for %s and denied for %s",
				w.SubjectAccessReviewVersion, w.ConnectionInfo.Type, w.Timeout.Duration, w.FailurePolicy,
				len(w.MatchConditions), w.AuthorizedTTL.Duration, w.UnauthorizedTTL.Duration)
		}
		fmt.Println(line)
	}
	return true
}
