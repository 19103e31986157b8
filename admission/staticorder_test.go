package admission

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// orderWebhooks are mutating webhook configurations of the given names,
// each with one webhook of the configuration's name that every pod CREATE
// calls; and the names of the mutating webhooks a pod CREATE called, in
// order.
func orderWebhooks(t *testing.T) (func(names ...string) []*admissionregistrationv1.MutatingWebhookConfiguration, func(c *Chain) []string) {
	t.Helper()
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	srv.Handle("/allow", admissionwebhooktest.Allow())
	configs := func(names ...string) []*admissionregistrationv1.MutatingWebhookConfiguration {
		var out []*admissionregistrationv1.MutatingWebhookConfiguration
		for _, name := range names {
			none := admissionregistrationv1.SideEffectClassNone
			c := &admissionregistrationv1.MutatingWebhookConfiguration{
				TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Webhooks: []admissionregistrationv1.MutatingWebhook{{
					Name: name, ClientConfig: srv.ClientConfig("/allow"), SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
					Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}}}
			admissionmanifest.SetDefaultsMutatingWebhookConfiguration(c)
			out = append(out, c)
		}
		return out
	}
	called := func(c *Chain) []string {
		_, trace, err := c.Explain(context.Background(), podRequest(admissionv1.Create, nil))
		require.NoError(t, err)
		require.NotEmpty(t, trace.MutatingWebhooks)
		var names []string
		for _, w := range trace.MutatingWebhooks[0].Webhooks {
			if w.Called {
				names = append(names, w.Webhook)
			}
		}
		return names
	}
	return configs, called
}

// Options.StaticOrder orders the static and API mutating webhooks as
// kube-apiserver 1.38's MutatingAdmissionWebhook does; before 1.38 only
// StaticFirst is.
func TestChainStaticOrder(t *testing.T) {
	configs, called := orderWebhooks(t)
	cfg := Config{
		MutatingWebhooks: configs("e", "a", "c"),
		Static:           &Config{MutatingWebhooks: configs("d.static.k8s.io", "b.static.k8s.io")},
	}
	t138, err := kube.TargetFor(kube.V1_38)
	require.NoError(t, err)
	t137, err := kube.TargetFor(kube.V1_37)
	require.NoError(t, err)
	staticFirst := []string{"b.static.k8s.io", "d.static.k8s.io", "a", "c", "e"}
	for _, tt := range []struct {
		kube  kube.Target
		order admissionmanifest.StaticOrder
		want  []string
		err   string
	}{
		{t138, "", staticFirst, ""},
		{t138, admissionmanifest.StaticFirst, staticFirst, ""},
		{t138, admissionmanifest.StaticLast, []string{"a", "c", "e", "b.static.k8s.io", "d.static.k8s.io"}, ""},
		{t138, admissionmanifest.ByName, []string{"a", "b.static.k8s.io", "c", "d.static.k8s.io", "e"}, ""},
		{t138, "byName", nil, `staticOrder "byName": must be ByName, StaticFirst or StaticLast`},
		{t137, "", staticFirst, ""},
		{t137, admissionmanifest.StaticFirst, staticFirst, ""},
		{t137, admissionmanifest.ByName, nil, `staticOrder "ByName": kube-apiserver 1.37 runs static webhooks first only (staticOrder is 1.38's)`},
	} {
		c, err := New(cfg, Options{Kube: tt.kube, StaticOrder: tt.order})
		if tt.err != "" {
			assert.EqualError(t, err, tt.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, called(c), "%s %q", tt.kube, tt.order)
	}
}

// The Reloader orders the mutating webhooks by the MutatingAdmissionWebhook
// configuration's staticOrder, unless Chain.StaticOrder says otherwise.
func TestReloaderStaticOrder(t *testing.T) {
	configs, called := orderWebhooks(t)
	fsys := fstest.MapFS{"etc/admission.yaml": {Data: []byte(`
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    staticManifestsDir: /etc/mutating
    staticOrder: StaticLast
`)}}
	for _, c := range configs("b.static.k8s.io") {
		data, err := yaml.Marshal(c)
		require.NoError(t, err)
		fsys["etc/mutating/"+c.Name+".yaml"] = &fstest.MapFile{Data: data}
	}
	t138, err := kube.TargetFor(kube.V1_38)
	require.NoError(t, err)
	for _, tt := range []struct {
		order admissionmanifest.StaticOrder
		want  []string
	}{
		{"", []string{"a", "c", "b.static.k8s.io"}},
		{admissionmanifest.ByName, []string{"a", "b.static.k8s.io", "c"}},
	} {
		r, err := NewReloader(ReloaderOptions{
			AdmissionConfiguration: "/etc/admission.yaml", Files: admissionmanifest.FilesOf(fsys),
			Chain: Options{Kube: t138, StaticOrder: tt.order}, API: Config{MutatingWebhooks: configs("c", "a")},
		})
		require.NoError(t, err)
		assert.Equal(t, tt.want, called(r.Chain()), "%q", tt.order)
	}
	// kube-apiserver 1.37 does not know the field.
	t137, err := kube.TargetFor(kube.V1_37)
	require.NoError(t, err)
	_, err = NewReloader(ReloaderOptions{AdmissionConfiguration: "/etc/admission.yaml", Files: admissionmanifest.FilesOf(fsys), Chain: Options{Kube: t137}})
	assert.EqualError(t, err, `MutatingAdmissionWebhook: strict decoding error: unknown field "staticOrder"`)
}
