package admissionmanifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// MergeWebhooks orders the mutating webhooks of the two sources as
// kube-apiserver 1.38's MutatingAdmissionWebhook does for each staticOrder
// (k8s.io/apiserver v0.38.0-beta.0
// pkg/admission/plugin/webhook/generic/composite_webhook_source.go), and
// the validating ones static first whatever the order.
func TestMergeWebhooks(t *testing.T) {
	mutating := func(config, name string, static bool) Webhook {
		return Webhook{ConfigurationName: config, Mutating: &admissionregistrationv1.MutatingWebhook{Name: name}, Static: static}
	}
	validating := func(config, name string, static bool) Webhook {
		return Webhook{ConfigurationName: config, Validating: &admissionregistrationv1.ValidatingWebhook{Name: name}, Static: static}
	}
	// Each source sorted by configuration name, as WebhooksOf and the
	// loader give them; the names of the two sources interleave.
	static := []Webhook{
		validating("v.static.k8s.io", "sv", true),
		mutating("b.static.k8s.io", "s-b2", true), // a configuration's webhooks keep their order
		mutating("b.static.k8s.io", "s-b1", true),
		mutating("d.static.k8s.io", "s-d", true),
	}
	api := []Webhook{
		validating("a", "av", false),
		mutating("a", "a-a", false),
		mutating("b", "a-b", false),
		mutating("b.a", "a-ba", false), // sorts before b.static.k8s.io
		mutating("b.t", "a-bt", false), // and this one after it
		mutating("c", "a-c2", false),
		mutating("c", "a-c1", false),
		mutating("e", "a-e", false),
	}
	staticFirst := []string{"sv", "av", "s-b2", "s-b1", "s-d", "a-a", "a-b", "a-ba", "a-bt", "a-c2", "a-c1", "a-e"}
	for _, tt := range []struct {
		order StaticOrder
		want  []string
	}{
		{"", staticFirst},
		{StaticFirst, staticFirst},
		{"Bogus", staticFirst},
		{StaticLast, []string{"sv", "av", "a-a", "a-b", "a-ba", "a-bt", "a-c2", "a-c1", "a-e", "s-b2", "s-b1", "s-d"}},
		{ByName, []string{"sv", "av", "a-a", "a-b", "a-ba", "s-b2", "s-b1", "a-bt", "a-c2", "a-c1", "s-d", "a-e"}},
	} {
		var got []string
		for _, w := range MergeWebhooks(static, api, tt.order) {
			got = append(got, w.Name())
		}
		assert.Equal(t, tt.want, got, "%q", tt.order)
	}
	// Equal configuration names (not possible between the sources with
	// static names reserved): ByName is stable, static first.
	got := MergeWebhooks([]Webhook{mutating("x", "static", true)}, []Webhook{mutating("x", "api", false)}, ByName)
	assert.Equal(t, []string{"static", "api"}, []string{got[0].Name(), got[1].Name()})
}
