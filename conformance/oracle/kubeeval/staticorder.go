//go:build !k8s135 && !k8s138

package kubeeval

import "k8s.io/apiserver/pkg/admission/plugin/webhook/config/apis/webhookadmission"

// staticOrderOf is a webhook plugin configuration's staticOrder: 1.36 and
// 1.37 have none.
func staticOrderOf(*webhookadmission.WebhookAdmission) string { return "" }
