package kube_test

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/kube"
)

// A 1.36 cluster with static manifests enabled, as its kube-apiserver's
// --feature-gates would say.
func ExampleTarget_WithFeatureGates() {
	t, err := kube.ParseTarget("1.36")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t, t.Enabled(kube.MutatingAdmissionPolicy), t.Enabled(kube.ManifestBasedAdmissionControlConfig))
	t, err = t.WithFeatureGates("ManifestBasedAdmissionControlConfig=true")
	fmt.Println(t, t.Enabled(kube.ManifestBasedAdmissionControlConfig), err)
	_, err = t.WithFeatureGates("ExcludeAdmissionWebhookVirtualResources=true")
	fmt.Println(err)
	_, err = kube.ParseTarget("1.34")
	fmt.Println(err)
	// Output:
	// 1.36 true false
	// 1.36 --feature-gates=ManifestBasedAdmissionControlConfig=true true <nil>
	// unrecognized feature gate: ExcludeAdmissionWebhookVirtualResources
	// unsupported Kubernetes version 1.34: gatehouse answers for Kubernetes 1.35, 1.36, 1.37, 1.38 (beta)
}
