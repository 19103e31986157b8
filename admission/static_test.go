package admission

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// everywherePolicies are a ValidatingAdmissionPolicy named NAME that denies
// every CREATE, with its binding.
const everywherePolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: NAME}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE"], resources: ["*"]}
  validations:
  - {expression: "false", message: "NAME says no"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: NAME}
spec: {policyName: NAME, validationActions: [Warn]}
`

func policiesNamed(t *testing.T, name string) *Config {
	t.Helper()
	cfg, err := Decode([]byte(strings.ReplaceAll(everywherePolicies, "NAME", name)))
	require.NoError(t, err)
	return cfg
}

// bindingRequest is the CREATE of a ValidatingAdmissionPolicyBinding, an
// admission configuration object.
func bindingRequest() *Request {
	gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}
	return &Request{Operation: admissionv1.Create, Kind: gvr.GroupVersion().WithKind("ValidatingAdmissionPolicyBinding"), Resource: gvr, Name: "b",
		Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": "ValidatingAdmissionPolicyBinding",
			"metadata": map[string]any{"name": "b"}, "spec": map[string]any{"policyName": "p", "validationActions": []any{"Deny"}}}}}
}

// TestChainComposesStaticAndAPI: each plugin runs its static policies or
// webhooks before its API ones, and only the static ones for requests on
// admission configuration objects, as kube-apiserver composes its sources.
func TestChainComposesStaticAndAPI(t *testing.T) {
	srv, err := admissionwebhooktest.NewServer(admissionwebhooktest.Options{})
	require.NoError(t, err)
	defer srv.Close()
	srv.Handle("/static", admissionwebhooktest.Deny(403, "the static webhook says no"))
	srv.Handle("/api", admissionwebhooktest.Deny(403, "the API webhook says no"))
	webhook := func(name, path string) *admissionregistrationv1.ValidatingWebhookConfiguration {
		none := admissionregistrationv1.SideEffectClassNone
		c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: name, ClientConfig: srv.ClientConfig(path), SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}}}
		admissionmanifest.SetDefaultsValidatingWebhookConfiguration(c)
		return c
	}
	api := policiesNamed(t, "api")
	api.ValidatingWebhooks = []*admissionregistrationv1.ValidatingWebhookConfiguration{webhook("api.example.com", "/api")}
	static := policiesNamed(t, "static.static.k8s.io")
	static.ValidatingWebhooks = []*admissionregistrationv1.ValidatingWebhookConfiguration{webhook("hook.static.k8s.io", "/static")}
	api.Static = static
	c, err := New(*api, Options{})
	require.NoError(t, err)

	t.Run("a pod: static first, then API", func(t *testing.T) {
		srv.ResetRequests()
		res, trace, err := c.Explain(context.Background(), podRequest(admissionv1.Create, nil))
		require.Error(t, err)
		assert.Equal(t, []string{
			"Validation failed for ValidatingAdmissionPolicy 'static.static.k8s.io' with binding 'static.static.k8s.io': static.static.k8s.io says no",
			"Validation failed for ValidatingAdmissionPolicy 'api' with binding 'api': api says no",
		}, res.Warnings)
		require.NotNil(t, trace.ValidatingWebhooks)
		var called []string
		for _, w := range trace.ValidatingWebhooks.Webhooks {
			if w.Called {
				called = append(called, w.Webhook)
			}
		}
		assert.Equal(t, []string{"hook.static.k8s.io", "api.example.com"}, called)
		assert.Len(t, srv.Requests(), 2)
	})
	t.Run("an admission configuration object: only static", func(t *testing.T) {
		srv.ResetRequests()
		res, err := c.Admit(context.Background(), bindingRequest())
		require.Error(t, err)
		assert.Equal(t, `admission webhook "hook.static.k8s.io" denied the request: the static webhook says no`, err.(*apierrors.StatusError).ErrStatus.Message)
		assert.Equal(t, []string{
			"Validation failed for ValidatingAdmissionPolicy 'static.static.k8s.io' with binding 'static.static.k8s.io': static.static.k8s.io says no",
		}, res.Warnings)
		require.Len(t, srv.Requests(), 1)
		assert.Equal(t, "/static", srv.Requests()[0].Path)
	})
	t.Run("a static Config holds no Static", func(t *testing.T) {
		nested := *static
		nested.Static = &Config{}
		_, err := New(Config{Static: &nested}, Options{})
		assert.EqualError(t, err, "a static Config holds no Static of its own")
	})
}

// TestReloaderSetAPI: the Reloader enforces the API configuration after
// its directories' content, and keeps the chain in force when the new API
// configuration does not build.
func TestReloaderSetAPI(t *testing.T) {
	fsys := fstest.MapFS{"etc/validating/static.yaml": {Data: []byte(strings.ReplaceAll(everywherePolicies, "NAME", "static.static.k8s.io"))}}
	r, err := NewReloader(ReloaderOptions{
		Dirs:  map[admissionmanifest.Plugin]string{admissionmanifest.ValidatingAdmissionPolicy: "/etc/validating"},
		Files: admissionmanifest.FilesOf(fsys),
		API:   *policiesNamed(t, "api"),
	})
	require.NoError(t, err)
	warnings := func(req *Request) []string {
		res, err := r.Chain().Admit(context.Background(), req)
		require.NoError(t, err)
		return res.Warnings
	}
	static := "Validation failed for ValidatingAdmissionPolicy 'static.static.k8s.io' with binding 'static.static.k8s.io': static.static.k8s.io says no"
	assert.Equal(t, []string{static, "Validation failed for ValidatingAdmissionPolicy 'api' with binding 'api': api says no"}, warnings(podRequest(admissionv1.Create, nil)))
	assert.Equal(t, []string{static}, warnings(bindingRequest()))

	require.NoError(t, r.SetAPI(*policiesNamed(t, "other")))
	assert.Equal(t, []string{static, "Validation failed for ValidatingAdmissionPolicy 'other' with binding 'other': other says no"}, warnings(podRequest(admissionv1.Create, nil)))

	bad := *policiesNamed(t, "bad")
	bad.Static = &Config{}
	assert.Error(t, r.SetAPI(bad))
	assert.Len(t, warnings(podRequest(admissionv1.Create, nil)), 2, "the chain in force stays")
}

// The chain answers as the Kubernetes of Options.Kube, every plugin alike:
// on a default 1.35 the mutating policies do not run.
func TestChainKube(t *testing.T) {
	cfg, err := Decode([]byte(labelPolicies))
	require.NoError(t, err)
	for version, label := range map[string]string{"1.35": "", "1.36": "unknown"} {
		target, err := kube.ParseTarget(version)
		require.NoError(t, err)
		c, err := New(*cfg, Options{Kube: target})
		require.NoError(t, err)
		res, err := c.Admit(context.Background(), podRequest(admissionv1.Create, nil))
		require.NoError(t, err)
		assert.Equal(t, label, res.Object.GetLabels()["team"], version)
	}
}
