package admissionmanifest

import (
	"context"
	"slices"
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
)

const matchManifests = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: hooks.static.k8s.io
webhooks:
- name: pods.example.com
  clientConfig: {url: "https://127.0.0.1/pods"}
  rules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"], scope: Namespaced}]
  namespaceSelector: {matchLabels: {team: a}}
  sideEffects: None
  admissionReviewVersions: ["v1"]
- name: labelled.example.com
  clientConfig: {url: "https://127.0.0.1/labelled"}
  rules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
  objectSelector: {matchExpressions: [{key: app, operator: Exists}]}
  matchConditions:
  - name: not-kube-system
    expression: request.namespace != 'kube-system'
  sideEffects: None
  admissionReviewVersions: ["v1"]
- name: broken-condition.example.com
  clientConfig: {url: "https://127.0.0.1/broken"}
  rules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["configmaps"]}]
  failurePolicy: FAILURE_POLICY
  matchConditions:
  - name: missing-key
    expression: object.data.missing == 'x'
  sideEffects: None
  admissionReviewVersions: ["v1"]
- name: webhook-configurations.example.com
  clientConfig: {url: "https://127.0.0.1/config"}
  rules: [{apiGroups: ["admissionregistration.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["validatingwebhookconfigurations"]}]
  sideEffects: None
  admissionReviewVersions: ["v1"]
`

func matcherFor(t *testing.T, failurePolicy string, o MatchOptions) *WebhookMatcher {
	t.Helper()
	data := []byte(strings.ReplaceAll(matchManifests, "FAILURE_POLICY", failurePolicy))
	m, err := Load(ValidatingAdmissionWebhook, "/hooks", LoadOptions{Files: FilesOf(fstest.MapFS{"hooks/hooks.yaml": {Data: data}})})
	require.NoError(t, err)
	if !o.API {
		matcher, err := m.WebhookMatcher(o)
		require.NoError(t, err)
		return matcher
	}
	// The same webhooks, registered through the API.
	hooks := slices.Clone(m.Webhooks())
	for i := range hooks {
		require.True(t, hooks[i].Static)
		hooks[i].Static = false
	}
	matcher, err := NewWebhookMatcher(hooks, o)
	require.NoError(t, err)
	return matcher
}

func object(labels map[string]any, data map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"labels": labels}, "data": data}}
}

func TestWebhookMatcher(t *testing.T) {
	namespaces := NamespaceLookupFunc(func(_ context.Context, name string) (map[string]string, error) {
		switch name {
		case "a":
			return map[string]string{"team": "a"}, nil
		case "b", "kube-system":
			return map[string]string{"team": "b"}, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	})
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	podKind := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	configMapKind := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	vwcs := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
	vwcKind := schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}
	tests := []struct {
		name          string
		failurePolicy string
		api           bool
		request       Request
		want          []string // called webhooks; "!name" fails the request
		reasons       []string // Explain's reason for each webhook
	}{
		{name: "pod in a selected namespace, unlabelled", failurePolicy: "Fail",
			request: Request{Operation: admissionv1.Create, Kind: podKind, Resource: pods, Namespace: "a", Object: object(nil, nil)},
			want:    []string{"pods.example.com"}, reasons: []string{"matched", "objectSelector", "rules", "rules"}},
		{name: "labelled pod in another namespace", failurePolicy: "Fail",
			request: Request{Operation: admissionv1.Create, Kind: podKind, Resource: pods, Namespace: "b", Object: object(map[string]any{"app": "x"}, nil)},
			want:    []string{"labelled.example.com"}, reasons: []string{"namespaceSelector", "matched", "rules", "rules"}},
		{name: "match condition false in kube-system", failurePolicy: "Fail",
			request: Request{Operation: admissionv1.Create, Kind: podKind, Resource: pods, Namespace: "kube-system", Object: object(map[string]any{"app": "x"}, nil)},
			want:    nil, reasons: []string{"namespaceSelector", "match condition", "rules", "rules"}},
		{name: "unknown namespace: 404 from the pods webhook", failurePolicy: "Fail",
			request: Request{Operation: admissionv1.Create, Kind: podKind, Resource: pods, Namespace: "nope", Object: object(nil, nil)},
			want:    []string{"!pods.example.com"}, reasons: []string{"error", "objectSelector", "rules", "rules"}},
		{name: "condition error, Fail", failurePolicy: "Fail",
			request: Request{Operation: admissionv1.Update, Kind: configMapKind, Resource: configMaps, Namespace: "a", Object: object(nil, map[string]any{}), OldObject: object(nil, nil)},
			want:    []string{"!broken-condition.example.com"}, reasons: []string{"rules", "objectSelector", "match condition", "rules"}},
		{name: "condition error, Ignore", failurePolicy: "Ignore",
			request: Request{Operation: admissionv1.Update, Kind: configMapKind, Resource: configMaps, Namespace: "a", Object: object(nil, map[string]any{}), OldObject: object(nil, nil)},
			want:    nil, reasons: []string{"rules", "objectSelector", "match condition", "rules"}},
		{name: "static webhooks see webhook configurations", failurePolicy: "Fail",
			request: Request{Operation: admissionv1.Create, Kind: vwcKind, Resource: vwcs, Object: object(nil, nil)},
			want:    []string{"webhook-configurations.example.com"}, reasons: []string{"rules", "objectSelector", "rules", "matched"}},
		{name: "API webhooks do not", failurePolicy: "Fail", api: true,
			request: Request{Operation: admissionv1.Create, Kind: vwcKind, Resource: vwcs, Object: object(nil, nil)},
			want:    nil, reasons: []string{"admission configuration object", "admission configuration object", "admission configuration object", "admission configuration object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := matcherFor(t, tt.failurePolicy, MatchOptions{Namespaces: namespaces, API: tt.api})
			var got []string
			for _, match := range m.Match(context.Background(), &tt.request) {
				name := match.Webhook.Name()
				if match.Err != nil {
					name = "!" + name
				}
				got = append(got, name)
				if match.Err == nil {
					assert.Equal(t, tt.request.Resource, match.Resource)
					assert.Equal(t, tt.request.Kind, match.Kind)
				}
			}
			assert.Equal(t, tt.want, got)
			var reasons []string
			var called []string
			for _, x := range m.Explain(context.Background(), &tt.request) {
				reasons = append(reasons, x.Reason)
				switch {
				case x.Called:
					called = append(called, x.Webhook.Name())
				case x.Err != nil:
					called = append(called, "!"+x.Webhook.Name())
				}
			}
			assert.Equal(t, tt.reasons, reasons)
			assert.Equal(t, tt.want, called, "Explain decides as Match")
		})
	}
}

func TestWebhookMatcherErrors(t *testing.T) {
	m := matcherFor(t, "Fail", MatchOptions{Namespaces: NamespaceLookupFunc(func(context.Context, string) (map[string]string, error) {
		return map[string]string{"team": "a"}, nil
	})})
	matches := m.Match(context.Background(), &Request{Operation: admissionv1.Update, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "a", Object: object(nil, map[string]any{})})
	require.Len(t, matches, 1)
	assert.ErrorContains(t, matches[0].Err, "no such key: missing")
	assert.True(t, apierrors.IsForbidden(matches[0].Err), "kube-apiserver fails closed with a 403: %v", matches[0].Err)
}

// TestWebhookMatcherNoExemptions: the predicates alone, as ShouldCallHook,
// see the resources the dispatcher exempts; the reasons are the constants;
// a match says the request's subresource.
func TestWebhookMatcherNoExemptions(t *testing.T) {
	none := admissionregistrationv1.SideEffectClassNone
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "all.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}}}}}}
	SetDefaultsValidatingWebhookConfiguration(c)
	hooks := WebhooksOf([]*admissionregistrationv1.ValidatingWebhookConfiguration{c}, nil)
	review := &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview"},
		Resource: schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}}
	scale := &Request{Operation: admissionv1.Update, Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"},
		Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, SubResource: "scale", Namespace: "ns"}
	lookup := NamespaceLookupFunc(func(context.Context, string) (map[string]string, error) { return nil, nil })

	api, err := NewWebhookMatcher(hooks, MatchOptions{API: true, Namespaces: lookup})
	require.NoError(t, err)
	assert.Empty(t, api.Match(context.Background(), review), "the dispatcher exempts the reviews")
	assert.Equal(t, ReasonExcludedResource, api.Explain(context.Background(), review)[0].Reason)
	got := api.Match(context.Background(), scale)
	require.Len(t, got, 1)
	assert.Equal(t, "scale", got[0].Subresource)

	predicates, err := NewWebhookMatcher(hooks, MatchOptions{API: true, NoExemptions: true, Namespaces: lookup})
	require.NoError(t, err)
	assert.Len(t, predicates.Match(context.Background(), review), 1, "ShouldCallHook alone matches them")
	assert.Equal(t, ReasonMatched, predicates.Explain(context.Background(), review)[0].Reason)
}
