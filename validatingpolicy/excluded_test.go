package validatingpolicy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestExcludedResources: nil excludes kube-apiserver's reviews from every
// policy, an empty list none, another list its own resources (whatever the
// version and subresource).
func TestExcludedResources(t *testing.T) {
	review := func(group, version, kind, resource string) *Request {
		return &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
			Resource: schema.GroupVersionResource{Group: group, Version: version, Resource: resource},
			Object:   &unstructured.Unstructured{Object: map[string]any{"apiVersion": schema.GroupVersion{Group: group, Version: version}.String(), "kind": kind}}}
	}
	reviews := map[string]*Request{
		"tokenreviews":              review("authentication.k8s.io", "v1", "TokenReview", "tokenreviews"),
		"selfsubjectreviews":        review("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews"),
		"subjectaccessreviews":      review("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews"),
		"selfsubjectaccessreviews":  review("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews"),
		"localsubjectaccessreviews": review("authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews"),
		"selfsubjectrulesreviews":   review("authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews"),
		"pods":                      create(pod("dev", "a", nil)),
	}
	for _, tc := range []struct {
		name     string
		excluded []schema.GroupResource
		// denied are the requests the deny-all policy sees.
		denied []string
	}{
		{name: "nil: kube-apiserver's reviews", excluded: nil, denied: []string{"pods"}},
		{name: "empty: none", excluded: []schema.GroupResource{}, denied: []string{"tokenreviews", "selfsubjectreviews", "subjectaccessreviews",
			"selfsubjectaccessreviews", "localsubjectaccessreviews", "selfsubjectrulesreviews", "pods"}},
		{name: "own list", excluded: []schema.GroupResource{{Resource: "pods"}, {Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}},
			denied: []string{"tokenreviews", "selfsubjectreviews", "selfsubjectaccessreviews", "localsubjectaccessreviews", "selfsubjectrulesreviews"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDispatcher(policies{policy("deny-all", validations(expr("false")))}, bindings{binding("b", "deny-all", deny)},
				Options{ExcludedResources: tc.excluded})
			require.NoError(t, err)
			var denied []string
			for name, req := range reviews {
				if _, err := d.Validate(context.Background(), req); err != nil {
					denied = append(denied, name)
				}
			}
			assert.ElementsMatch(t, tc.denied, denied)
		})
	}
}
