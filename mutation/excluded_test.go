package mutation

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestExcludedResources: nil excludes kube-apiserver's reviews from every
// policy, an empty list none, another list its own resources.
func TestExcludedResources(t *testing.T) {
	review := func(group, kind, resource string) *Request {
		return &Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind},
			Resource: schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource},
			Object:   &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": kind, "metadata": map[string]any{}}}}
	}
	requests := map[string]*Request{
		"tokenreviews":              review("authentication.k8s.io", "TokenReview", "tokenreviews"),
		"selfsubjectreviews":        review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews"),
		"subjectaccessreviews":      review("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews"),
		"selfsubjectaccessreviews":  review("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews"),
		"localsubjectaccessreviews": review("authorization.k8s.io", "LocalSubjectAccessReview", "localsubjectaccessreviews"),
		"selfsubjectrulesreviews":   review("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews"),
		"pods":                      podRequest(admissionv1.Create, nil),
	}
	all := func(p *admissionregistrationv1.MutatingAdmissionPolicy) {
		r := &p.Spec.MatchConstraints.ResourceRules[0].Rule
		r.APIGroups, r.APIVersions, r.Resources = []string{"*"}, []string{"*"}, []string{"*"}
	}
	for _, tc := range []struct {
		name     string
		excluded []schema.GroupResource
		// matched are the requests the policy sees.
		matched []string
	}{
		{name: "nil: kube-apiserver's reviews", excluded: nil, matched: []string{"pods"}},
		{name: "empty: none", excluded: []schema.GroupResource{}, matched: []string{"tokenreviews", "selfsubjectreviews", "subjectaccessreviews",
			"selfsubjectaccessreviews", "localsubjectaccessreviews", "selfsubjectrulesreviews", "pods"}},
		{name: "own list", excluded: []schema.GroupResource{{Resource: "pods"}, {Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}},
			matched: []string{"tokenreviews", "selfsubjectreviews", "selfsubjectaccessreviews", "localsubjectaccessreviews", "selfsubjectrulesreviews"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDispatcher(policies{newPolicy("label", []string{"label:seen=yes"}, all)}, bindings{newBinding("b", "label")},
				Options{ExcludedResources: tc.excluded}, compileFake, applyFake)
			var matched []string
			for name, req := range requests {
				_, trace, _ := d.Explain(context.Background(), req)
				require.Len(t, trace.Policies, 1, name)
				if pt := trace.Policies[0]; pt.Matched {
					matched = append(matched, name)
				} else {
					assert.Equal(t, "excluded resource", pt.Reason, name)
				}
			}
			assert.ElementsMatch(t, tc.matched, matched)
		})
	}
}
