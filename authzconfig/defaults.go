package authzconfig

import "time"

// withDefaults applies the defaults that decoding any external version
// applies (v1alpha1, v1beta1 and v1 have the same), and returns c. The
// internal version is decoded without them.
func withDefaults(c *Configuration) *Configuration {
	for i := range c.Authorizers {
		if w := c.Authorizers[i].Webhook; w != nil {
			setWebhookDefaults(w)
		}
	}
	return c
}

// setWebhookDefaults applies a webhook's defaults, as decoding in
// kube-apiserver does: zero TTLs (absent or explicit) become 5m and 30s, and
// absent cache switches become true.
func setWebhookDefaults(w *WebhookConfiguration) {
	if w.AuthorizedTTL.Duration == 0 {
		w.AuthorizedTTL.Duration = 5 * time.Minute
	}
	if w.CacheAuthorizedRequests == nil {
		w.CacheAuthorizedRequests = newBool(true)
	}
	if w.UnauthorizedTTL.Duration == 0 {
		w.UnauthorizedTTL.Duration = 30 * time.Second
	}
	if w.CacheUnauthorizedRequests == nil {
		w.CacheUnauthorizedRequests = newBool(true)
	}
}
