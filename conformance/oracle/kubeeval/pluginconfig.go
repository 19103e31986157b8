//go:build !k8s135

package kubeeval

import (
	"fmt"
	"io"

	policyconfig "k8s.io/apiserver/pkg/admission/plugin/policy/config"
	webhookconfig "k8s.io/apiserver/pkg/admission/plugin/webhook/config"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// pluginConfig reads a plugin's configuration as kube-apiserver 1.36 to
// 1.38 do (1.38's webhook configuration has a staticOrder: staticOrderOf).
func pluginConfig(plugin string, r io.Reader) (*protocol.PluginConfig, error) {
	switch plugin {
	case "ValidatingAdmissionWebhook", "MutatingAdmissionWebhook":
		c, err := webhookconfig.LoadConfig(r)
		if err != nil {
			return nil, err
		}
		return &protocol.PluginConfig{KubeConfigFile: c.KubeConfigFile, StaticManifestsDir: c.StaticManifestsDir, StaticOrder: staticOrderOf(c)}, nil
	case "ValidatingAdmissionPolicy":
		c, err := policyconfig.LoadValidatingConfig(r)
		if err != nil {
			return nil, err
		}
		return &protocol.PluginConfig{StaticManifestsDir: c.StaticManifestsDir}, nil
	case "MutatingAdmissionPolicy":
		c, err := policyconfig.LoadMutatingConfig(r)
		if err != nil {
			return nil, err
		}
		return &protocol.PluginConfig{StaticManifestsDir: c.StaticManifestsDir}, nil
	}
	return nil, fmt.Errorf("unknown plugin %q", plugin)
}
