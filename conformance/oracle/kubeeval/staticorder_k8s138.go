//go:build k8s138

package kubeeval

import "k8s.io/apiserver/pkg/admission/plugin/webhook/config/apis/webhookadmission"

// staticOrderOf is a webhook plugin configuration's staticOrder (1.38).
func staticOrderOf(c *webhookadmission.WebhookAdmission) string { return string(c.StaticOrder) }
