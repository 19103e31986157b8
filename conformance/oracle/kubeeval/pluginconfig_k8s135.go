//go:build k8s135

package kubeeval

import (
	"fmt"
	"io"

	webhookconfig "k8s.io/apiserver/pkg/admission/plugin/webhook/config"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// pluginConfig reads a plugin's configuration as kube-apiserver 1.35 does:
// the webhook plugins' LoadConfig returns the kubeconfig file only; the
// policy plugins' NewPlugin ignores its reader.
func pluginConfig(plugin string, r io.Reader) (*protocol.PluginConfig, error) {
	switch plugin {
	case "ValidatingAdmissionWebhook", "MutatingAdmissionWebhook":
		file, err := webhookconfig.LoadConfig(r)
		if err != nil {
			return nil, err
		}
		return &protocol.PluginConfig{KubeConfigFile: file}, nil
	case "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
		return &protocol.PluginConfig{}, nil
	}
	return nil, fmt.Errorf("unknown plugin %q", plugin)
}
