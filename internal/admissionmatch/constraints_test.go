package admissionmatch

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func named(r admissionregistrationv1.RuleWithOperations, names ...string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: r, ResourceNames: names}
}

func TestPolicyConstraints(t *testing.T) {
	pods := ruleOf([]string{"CREATE"}, []string{""}, []string{"v1"}, []string{"pods"})
	deploymentsExtRule := ruleOf([]string{"*"}, []string{"extensions"}, []string{"v1beta1"}, []string{"deployments", "deployments/scale"})
	onDeployment := func(r *Request) { r.Resource, r.Kind = deploymentsV1, deploymentV1 }
	tests := []struct {
		name     string
		mr       *admissionregistrationv1.MatchResources
		change   func(*Request)
		want     bool
		why      Reason
		resource schema.GroupVersionResource
		wantErr  string
	}{
		{"nil constraints", nil, nil, false, ReasonError, schema.GroupVersionResource{}, "policy contained no match constraints, a required field"},
		{"nil namespace selector", &admissionregistrationv1.MatchResources{ObjectSelector: everything}, nil, false, ReasonError, schema.GroupVersionResource{},
			"a nil namespace selector was passed, please ensure selectors are initialized properly"},
		{"nil object selector", &admissionregistrationv1.MatchResources{NamespaceSelector: everything}, nil, false, ReasonError, schema.GroupVersionResource{},
			"a nil object selector was passed, please ensure selectors are initialized properly"},
		{"no rules: everything", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything}, nil, true, ReasonMatched, podsGVR, ""},
		{"a rule", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(pods)}}, nil, true, ReasonMatched, podsGVR, ""},
		{"resource names", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(pods, "q", "p")}}, nil, true, ReasonMatched, podsGVR, ""},
		{"other resource names", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(pods, "q")}}, nil, false, ReasonResourceNames, schema.GroupVersionResource{}, ""},
		{"generateName: the empty name", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(pods, "")}}, func(r *Request) { r.Name = "" }, true, ReasonMatched, podsGVR, ""},
		{"excluded", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(pods)}}, nil, false, ReasonExcludeResourceRules, schema.GroupVersionResource{}, ""},
		{"excluded by name only", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(pods, "other")}}, nil, true, ReasonMatched, podsGVR, ""},
		{"exclusion wins over selector errors", &admissionregistrationv1.MatchResources{NamespaceSelector: badLabel, ObjectSelector: everything,
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(pods)}}, nil, false, ReasonExcludeResourceRules, schema.GroupVersionResource{}, ""},
		{"selector error when the rules match", &admissionregistrationv1.MatchResources{NamespaceSelector: badLabel, ObjectSelector: everything}, nil,
			false, ReasonError, schema.GroupVersionResource{}, "Internal error occurred: key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
		{"namespace not selected", &admissionregistrationv1.MatchResources{NamespaceSelector: prod, ObjectSelector: everything}, func(r *Request) { r.Namespace = "dev" },
			false, ReasonNamespaceSelector, schema.GroupVersionResource{}, ""},
		{"object not selected", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: prod}, nil,
			false, ReasonObjectSelector, schema.GroupVersionResource{}, ""},
		{"equivalent (unknown policies too)", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			MatchPolicy:   ptr(admissionregistrationv1.MatchPolicyType("Fuzzy")),
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(deploymentsExtRule)}}, onDeployment, true, ReasonMatched, deploymentsExt, ""},
		{"equivalent: unknown kind before names, a plain error", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			MatchPolicy:   ptr(admissionregistrationv1.Equivalent),
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(deploymentsExtRule, "nobody")}},
			func(r *Request) { onDeployment(r); r.Subresource = "scale" }, false, ReasonError, schema.GroupVersionResource{},
			"unable to convert to extensions/v1beta1, Resource=deployments: unknown kind"},
		{"equivalent exclusion", &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
			MatchPolicy:          ptr(admissionregistrationv1.Equivalent),
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(deploymentsExtRule)}}, onDeployment, false, ReasonExcludeResourceRules, schema.GroupVersionResource{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := podCreate()
			if tt.change != nil {
				tt.change(r)
			}
			c := CompilePolicy(tt.mr, noExemptions)
			res, x := c.Explain(context.Background(), r)
			assert.Equal(t, tt.want, res.Matches)
			assert.Equal(t, tt.why, x.Reason, x.Reason.String())
			assert.Equal(t, tt.resource, res.Resource)
			if tt.wantErr == "" {
				require.NoError(t, res.Err)
			} else {
				require.EqualError(t, res.Err, tt.wantErr)
			}
			assert.Equal(t, res, c.Match(context.Background(), r))
		})
	}
}

func TestPolicyUnknownKindIsNotAStatus(t *testing.T) {
	c := CompilePolicy(&admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything,
		MatchPolicy:   ptr(admissionregistrationv1.Equivalent),
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named(ruleOf([]string{"*"}, []string{"extensions"}, []string{"*"}, []string{"*/*"}))}}, noExemptions)
	r := podCreate()
	r.Resource, r.Kind, r.Subresource = deploymentsV1, deploymentV1, "scale"
	err := c.Match(context.Background(), r).Err
	require.Error(t, err)
	_, isStatus := err.(*apierrors.StatusError)
	assert.False(t, isStatus)
}

func TestBinding(t *testing.T) {
	ctx := context.Background()
	assert.True(t, CompileBinding(nil, noExemptions).Match(ctx, podCreate()).Matches, "no matchResources: every request")
	res := CompileBinding(&admissionregistrationv1.MatchResources{ObjectSelector: everything}, noExemptions).Match(ctx, podCreate())
	require.EqualError(t, res.Err, "a nil namespace selector was passed, please ensure selectors are initialized properly")
	res = CompileBinding(&admissionregistrationv1.MatchResources{NamespaceSelector: prod, ObjectSelector: everything}, noExemptions).Match(ctx, podCreate())
	assert.True(t, res.Matches)
}

func TestPolicyExemptions(t *testing.T) {
	ctx := context.Background()
	mr := &admissionregistrationv1.MatchResources{NamespaceSelector: everything, ObjectSelector: everything}
	api, static := CompilePolicy(mr, Options{}), CompilePolicy(mr, Options{Static: true})
	apiBinding := CompileBinding(nil, Options{})
	on := func(group, resource, sub, kind string) *Request {
		return &Request{Operation: admissionv1.Update, Subresource: sub, Resource: schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource},
			Kind: schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind}}
	}
	for _, resource := range []string{"validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"} {
		r := on("admissionregistration.k8s.io", resource, "status", "Whatever")
		res, x := api.Explain(ctx, r)
		assert.False(t, res.Matches, resource)
		assert.Equal(t, ReasonAdmissionConfiguration, x.Reason)
		assert.False(t, apiBinding.Match(ctx, r).Matches, resource)
		assert.True(t, static.Match(ctx, r).Matches, resource)
	}
	// Policies, unlike webhooks, see webhook configurations, and go by
	// resource, not kind.
	assert.True(t, api.Match(ctx, on("admissionregistration.k8s.io", "validatingwebhookconfigurations", "", "ValidatingWebhookConfiguration")).Matches)
	assert.True(t, api.Match(ctx, on("admissionregistration.k8s.io", "other", "", "MutatingAdmissionPolicy")).Matches)
	for _, gr := range ExcludedResources() {
		r := on(gr.Group, gr.Resource, "", "Review")
		res, x := static.Explain(ctx, r)
		assert.False(t, res.Matches, gr)
		assert.Equal(t, ReasonExcludedResource, x.Reason)
	}
	custom := CompilePolicy(mr, Options{ExcludedResources: []schema.GroupResource{{Resource: "pods"}}})
	assert.False(t, custom.Match(ctx, podCreate()).Matches)
	assert.True(t, custom.Match(ctx, on("authorization.k8s.io", "subjectaccessreviews", "", "SubjectAccessReview")).Matches)
}

var _ = metav1.LabelSelector{}
