package admissionmanifest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestMatchExcludedResources: MatchOptions.ExcludedResources nil excludes
// kube-apiserver's reviews from every webhook, an empty list none, another
// list its own resources.
func TestMatchExcludedResources(t *testing.T) {
	none := admissionregistrationv1.SideEffectClassNone
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Name: "all.example.com", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}}}}}}
	SetDefaultsValidatingWebhookConfiguration(c)
	hooks := WebhooksOf([]*admissionregistrationv1.ValidatingWebhookConfiguration{c}, nil)
	request := func(group, kind, resource string) *Request {
		return &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind},
			Resource: schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}}
	}
	requests := map[string]*Request{
		"tokenreviews":              request("authentication.k8s.io", "TokenReview", "tokenreviews"),
		"selfsubjectreviews":        request("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews"),
		"subjectaccessreviews":      request("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews"),
		"selfsubjectaccessreviews":  request("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews"),
		"localsubjectaccessreviews": request("authorization.k8s.io", "LocalSubjectAccessReview", "localsubjectaccessreviews"),
		"selfsubjectrulesreviews":   request("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews"),
		"nodes":                     request("", "Node", "nodes"),
	}
	for _, tc := range []struct {
		name     string
		excluded []schema.GroupResource
		called   []string
	}{
		{name: "nil: kube-apiserver's reviews", excluded: nil, called: []string{"nodes"}},
		{name: "empty: none", excluded: []schema.GroupResource{}, called: []string{"tokenreviews", "selfsubjectreviews", "subjectaccessreviews",
			"selfsubjectaccessreviews", "localsubjectaccessreviews", "selfsubjectrulesreviews", "nodes"}},
		{name: "own list", excluded: []schema.GroupResource{{Resource: "nodes"}, {Group: "authentication.k8s.io", Resource: "tokenreviews"}},
			called: []string{"selfsubjectreviews", "subjectaccessreviews", "selfsubjectaccessreviews", "localsubjectaccessreviews", "selfsubjectrulesreviews"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewWebhookMatcher(hooks, MatchOptions{API: true, ExcludedResources: tc.excluded})
			require.NoError(t, err)
			var called []string
			for name, req := range requests {
				if len(m.Match(context.Background(), req)) > 0 {
					called = append(called, name)
				}
			}
			assert.ElementsMatch(t, tc.called, called)
		})
	}
}
